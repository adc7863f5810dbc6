"""The registry of harness formats: the one place every reader of harness files asks which
format a file is (:mod:`scorekit.harness_outputs.formats` describes the interface).

The built-in formats (lm-eval, lighteval, Inspect) come first, then the formats registered
with :func:`register_format`, in order.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorekit.harness_outputs.formats import Format
from scorekit.harness_outputs.inspect_logs import INSPECT_FORMAT
from scorekit.harness_outputs.lighteval import LIGHTEVAL_FORMAT
from scorekit.harness_outputs.lm_eval import LM_EVAL_FORMAT
from scorekit.harness_outputs.values import ResultsFile

__all__ = ["FORMATS", "RunFolder", "formats", "register_format", "log_format", "results_format", "read_results_file",
           "holds_questions"]


@dataclass
class RunFolder:
    """The files of one run (a folder's walk): :class:`~scorekit.harness_outputs.formats.RunFiles`,
    with the results files among them found by (folder, time stamp) on first use."""

    files: list[Path]
    _results: dict[tuple[Path, str], ResultsFile] | None = field(default=None, repr=False)

    def results_at(self, folder: Path, stamp: str) -> ResultsFile | None:
        """The results file ``<folder>/results_<stamp>.json`` (any format) of this run, or None."""
        if self._results is None:
            from scorekit.errors import ScorekitError

            self._results = {}
            for f in self.files:
                if f.suffix == ".json" and "_" in f.stem and log_format(f) is None:
                    try:
                        rf = read_results_file(f)
                    except ScorekitError:
                        rf = None
                    if rf is not None:
                        self._results[(f.parent, f.stem.rsplit("_", 1)[-1])] = rf
        return self._results.get((folder, stamp))


FORMATS: list[Format] = []  # registered formats (register_format), asked after the built-in ones


def register_format(fmt: Format) -> None:
    """Have every command read ``fmt``'s files: after the built-in formats and the formats
    registered before it. Registering the same format again changes nothing."""
    if fmt not in FORMATS:
        FORMATS.append(fmt)


def formats() -> list[Format]:
    """Every format, in the order files are offered to them: lm-eval, lighteval, Inspect, then
    the registered ones."""
    return [LM_EVAL_FORMAT, LIGHTEVAL_FORMAT, INSPECT_FORMAT, *FORMATS]


def log_format(path: str | os.PathLike[str]) -> Format | None:
    """The format whose whole-run log ``path`` is, or None."""
    p = Path(path)
    return next((fmt for fmt in formats() if fmt.is_log(p)), None)


def results_format(data: Any) -> Format | None:
    """The format whose results file ``data`` (parsed JSON) is, or None."""
    return next((fmt for fmt in formats() if fmt.is_results(data)), None)


def holds_questions(path: str | os.PathLike[str]) -> bool:
    """True when a format reads per-question values from ``path``."""
    p = Path(path)
    return any(fmt.holds_questions(p) for fmt in formats())


def read_results_file(path: str | os.PathLike[str], data: Any = None) -> ResultsFile | None:
    """Read one results file; None if it parses but is no format's results file.

    ``data``: the file's parsed JSON, when the caller has it already. Malformed JSON, or a
    results file with wrongly typed structure (``results`` not a mapping of mappings, a
    non-string model name), raises :class:`~scorekit.errors.ScorekitError` naming the place.
    """
    from scorekit.files import load_json

    path = os.fspath(path)
    if data is None:
        data = load_json(path)
    fmt = results_format(data)
    return None if fmt is None else fmt.read_results(path, data)
