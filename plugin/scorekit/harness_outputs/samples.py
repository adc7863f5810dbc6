"""Reading lm-eval samples files, and finding the samples file of a run (rules in
:mod:`scorekit.harness_outputs`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from scorekit.errors import ScorekitError
from scorekit.harness_outputs.keys import ungrouped
from scorekit.harness_outputs.kinds import samples_name
from scorekit.harness_outputs.runs import time_in_name
from scorekit.files import loads_json


def run_samples_file(results_path: str | os.PathLike[str], task: str) -> str | None:
    """The samples file of ``task`` written by the run that wrote the results file
    ``results_path`` (rule in the module docstring), or None: no time stamp in the results
    file's name, or no such file (``--log_samples`` not given, or the file moved).

    ``task`` may carry lm-eval 0.5's group qualifier or not; both spellings find the file.
    """
    folder, name = os.path.split(os.fspath(results_path))
    stamp = time_in_name(name) if name.startswith("results") else None
    if stamp is None:
        return None
    try:
        names = sorted(os.listdir(folder or "."))
    except OSError:
        return None
    for candidate in names:
        found = samples_name(candidate)
        if found and found[1] == stamp and (found[0] == task or ungrouped(found[0]) == ungrouped(task)):
            path = os.path.join(folder, candidate)
            return path if os.path.isfile(path) else None
    return None


def iter_samples(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, sample)`` for every sample of an lm-eval samples file (JSON lines, or
    0.4.2's indented JSON array, whose first line is ``[`` alone: numbered from 1 in array order).

    Bad JSON or a sample that is not an object raises :class:`ScorekitError` naming the file
    and line; so does a file without samples.
    """
    n = 0
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise ScorekitError(f"cannot read: {exc.strerror}", path=path) from None
    with fh:
        if fh.readline().strip() == b"[":  # lm-eval 0.4.2: one JSON array, indent 2 (a line "[" alone)
            from scorekit.files import load_json

            fh.close()
            items = load_json(path)
            if not isinstance(items, list):
                raise ScorekitError(f"expected a JSON array of samples, got {type(items).__name__}", path=path)
            for i, obj in enumerate(items, 1):
                if not isinstance(obj, dict):
                    raise ScorekitError(f"expected a JSON object per sample, got {type(obj).__name__}", path=path, where=f"item {i}")
                n += 1
                yield i, obj
        else:
            fh.seek(0)
            for lineno, obj in _iter_lines(fh, path):
                n += 1
                yield lineno, obj
    if n == 0:
        raise ScorekitError("empty samples file (no samples)", path=path)


def _iter_lines(fh: Any, path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    import orjson

    loads, error = orjson.loads, orjson.JSONDecodeError
    for lineno, line in enumerate(fh, 1):
        try:
            obj = loads(line)
        except error:
            if not line.strip():
                continue
            # what orjson refuses (NaN, very long integers, a BOM, deep nesting) is accepted
            # or refused with its place by the careful parser
            obj = loads_json(line, path, line=lineno)
        if not isinstance(obj, dict):
            raise ScorekitError(
                f"expected a JSON object per line, got {type(obj).__name__}", path=path, where=f"line {lineno}"
            )
        yield lineno, obj
