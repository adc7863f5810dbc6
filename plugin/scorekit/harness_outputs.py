"""Facts about the files lm-eval and lighteval write: the one place every command reads them from.

``scorekit leaderboard``, ``scorekit score`` and ``scorekit robustness`` (and anything else that
reads harness output folders) use these functions, so that they agree on what a file says. The
layouts behind each rule are surveyed, version by version, in ``docs/harness-outputs.md``.

Finding files (:func:`walk`)
    Paths named by the user are taken as given. Folders are walked recursively in sorted order
    (a folder's files, then its sub-folders). Symbolic links are followed once: a folder or file
    already met (the same device and inode, under any name: a link, a hard link) is not read
    again (no loops, no double counting). Only
    regular files are returned (a FIFO, a device such as ``/dev/zero`` or a socket is never
    opened). Hidden files and folders (``.name``: ``.ipynb_checkpoints``, ``.git``, atomic-write
    temporaries) are not entered. Every file or folder left out is listed in
    :attr:`Walk.skipped` with its reason, for a note.

Telling files apart (:func:`file_kind`, :func:`results_harness`)
    lm-eval results: a JSON object with ``results`` and one of lm-eval's bookkeeping keys;
    lighteval results: a JSON object with ``config_general`` and ``results``; lm-eval samples:
    ``*.jsonl`` (JSON lines, or 0.4.2's JSON array); lighteval details: ``details_*.parquet``.

Model identity (:func:`model_identity`, :func:`details_model`)
    lm-eval: ``model_name``, unless empty or lm-eval's random 8-character stand-in (written
    when ``model_args`` names no model); then the first of ``model_args``'s ``peft``,
    ``delta``, ``pretrained``, ``model``, ``path``, ``engine`` (lm-eval's own order) and
    ``base_model`` (exact keys of the dict, or of the ``key=value,...`` string); then, when
    there are no ``model_args`` at all (a model object passed in Python), ``config.model``;
    then the folder holding the file.
    lighteval: ``config_general.model_name``, else ``config_general.model_config.model_name``,
    else the folders between ``results/`` (or ``details/``) and the file. A model given by
    absolute local path keeps its path as its name (``/models/local/Llama-3``), whether it is
    read from the file or from lighteval's folders (which drop the leading ``/``).

Reading samples (:func:`iter_samples`, :func:`run_samples_file`)
    lm-eval samples files are JSON lines, one object per document and filter; 0.4.2 wrote one
    JSON array (indent 2) under the same ``.jsonl`` suffix. Both are read. The samples of a
    task written by the same run as a results file (0.4.5+ names) sit in the same folder with
    the same time stamp: ``samples_<task>_<time>.jsonl`` next to ``results_<time>.json``
    (0.5: ``samples_<group>::<task>_<time>.jsonl``).

Run time (:func:`run_time`)
    lm-eval's ``date`` (Unix seconds: one clock wherever the run was made), else the time stamp
    in the file name (``results_2024-06-16T10-22-33.123456.json``, the local time of the
    machine that ran it), else the file's modification time. A samples or details file has the
    run time of its run's results file (same folder and time stamp), else its own. The newest
    run is the one with the largest run time; ties go to the later path.

Task keys (:func:`split_task_key`, :func:`key_matches`, :func:`find_task_key`)
    A key is ``[suite|]task[|fewshots]`` (lighteval) or ``[group::]task`` (lm-eval 0.5).
    A wanted key matches a file's key when the task names are equal, the suites are equal
    where both have one, and the few-shot counts are equal where the wanted key has one. When
    several keys match (``ifeval|0`` from one run, ``ifeval|5`` from another), the newest is
    used and the others are named.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from scorekit.errors import ScorekitError
from scorekit.io import loads_json, missing_reason

__all__ = [
    "LM_EVAL",
    "LIGHTEVAL",
    "RESULTS",
    "SAMPLES",
    "DETAILS",
    "Walk",
    "walk",
    "file_kind",
    "results_harness",
    "model_identity",
    "details_model",
    "is_random_id",
    "time_in_name",
    "run_time",
    "iter_samples",
    "samples_name",
    "run_samples_file",
    "split_task_key",
    "key_matches",
    "find_task_key",
    "ungrouped",
]

LM_EVAL = "lm-eval"
LIGHTEVAL = "lighteval"
RESULTS = "results"
SAMPLES = "samples"
DETAILS = "details"

LM_EVAL_MARKERS = ("versions", "n-shot", "configs", "config", "group_subtasks", "higher_is_better")
# Keys of model_args that name the model, in the order they are looked at.
MODEL_ARG_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine", "base_model")
# lm-eval's own list (evaluation_tracker._get_model_name): when model_args has none of these,
# lm-eval >= 0.4.11 writes a random 8-character id as model_name.
_LM_EVAL_NAMING_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")
_RANDOM_ID = re.compile(r"^[a-z0-9]{8}$")
TIME_PATTERN = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
_TIME_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}(?:\.\d+)?)")
_DETAILS_NAME = re.compile(rf"^details_.+_{TIME_PATTERN}\.parquet$")
SAMPLES_NAME = re.compile(rf"^samples_(?P<task>.+)_(?P<time>{TIME_PATTERN})\.jsonl$")

# --- finding files -----------------------------------------------------------------------------

SKIP_HIDDEN = "hidden files and folders"
SKIP_NOT_REGULAR = "not regular files (FIFO, device, socket, broken link)"
SKIP_UNREADABLE = "unreadable folders"
SKIP_SEEN = "links to a file or folder read already"
WALK_SKIPS = (SKIP_HIDDEN, SKIP_NOT_REGULAR, SKIP_UNREADABLE, SKIP_SEEN)


@dataclass
class Walk:
    """What :func:`walk` found: ``files`` in walk order (paths as given or joined, not
    resolved), the ``explicit`` ones the user named, and everything left out, by reason
    (``skipped``)."""

    files: list[str] = field(default_factory=list)
    explicit: set[str] = field(default_factory=set)
    skipped: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, reason: str, path: str | os.PathLike[str]) -> None:
        self.skipped.setdefault(reason, []).append(os.fspath(path))

    def notes(self) -> list[str]:
        """One line per reason: how many were left out, and which."""
        return [f"left out {len(paths)} {reason}: {', '.join(paths)}" for reason, paths in self.skipped.items() if paths]


def walk(paths: Iterable[str | os.PathLike[str]]) -> Walk:
    """Expand files and folders into the regular files under them (see the module docstring).

    A path that does not exist, or a named path that is not a regular file or folder (a FIFO),
    raises :class:`ScorekitError`.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "m").mkdir(); (root / "m" / "results_1.json").write_text("{}")
    2
    >>> (root / ".ipynb_checkpoints").mkdir()
    >>> [pathlib.Path(p).name for p in walk([root]).files], walk([root]).notes()[0].startswith("left out 1 hidden")
    (['results_1.json'], True)
    """
    out = Walk()
    folders: set[tuple[int, int]] = set()  # (device, inode) of the folders walked
    files: dict[tuple[int, int], str] = {}  # (device, inode) -> the first name of each file
    again: list[str] = []  # files met again under another name (noted after the folders met again)
    for raw in paths:
        p = os.fspath(raw)
        try:
            st = os.stat(p)
        except OSError:
            raise ScorekitError(missing_reason(p), path=p) from None
        if stat.S_ISDIR(st.st_mode):
            _walk_folder(p, out, folders, files, again)
        elif stat.S_ISREG(st.st_mode):
            key = (st.st_dev, st.st_ino)
            if key not in files:
                files[key] = p
                out.files.append(p)
            out.explicit.update((p, files[key]))  # a file named by the user is explicit under its first name too
        else:
            raise ScorekitError("not a regular file or folder (a FIFO, device or socket)", path=p)
    for f in again:
        out.skip(SKIP_SEEN, f)
    return out


def _walk_folder(top: str, out: Walk, folders: set[tuple[int, int]], files: dict[tuple[int, int], str],
                 again: list[str]) -> None:
    """Add the files under ``top`` to ``out`` (``os.walk`` following links; a folder or file
    met before under another name is skipped with a note)."""
    for folder, subfolders, names in os.walk(top, followlinks=True, onerror=lambda e: out.skip(SKIP_UNREADABLE, e.filename)):
        st = os.stat(folder)
        if (st.st_dev, st.st_ino) in folders:
            out.skip(SKIP_SEEN, folder)
            subfolders.clear()
            continue
        folders.add((st.st_dev, st.st_ino))
        for name in sorted(subfolders + names):
            if name.startswith("."):
                out.skip(SKIP_HIDDEN, os.path.join(folder, name))
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        for name in sorted(n for n in names if not n.startswith(".")):
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:  # a broken link
                st = None
            if st is None or not stat.S_ISREG(st.st_mode):
                out.skip(SKIP_NOT_REGULAR, path)
            elif (st.st_dev, st.st_ino) in files:
                if files[(st.st_dev, st.st_ino)] != path:  # the same name, named by the user: read once, no note
                    again.append(path)
            else:
                files[(st.st_dev, st.st_ino)] = path
                out.files.append(path)


# --- telling files apart -----------------------------------------------------------------------


def results_harness(data: Any) -> str | None:
    """``"lighteval"``, ``"lm-eval"`` or None for parsed JSON that is not a results file."""
    if not isinstance(data, dict) or "results" not in data:
        return None
    if "config_general" in data:
        return LIGHTEVAL
    if not data.keys().isdisjoint(LM_EVAL_MARKERS):
        return LM_EVAL
    return None


def file_kind(path: str | os.PathLike[str]) -> str | None:
    """What a file is by its name: ``"results"`` (a ``.json``: check with
    :func:`results_harness`), ``"samples"`` (lm-eval ``.jsonl``), ``"details"`` (lighteval
    ``details_*.parquet``) or None.

    >>> file_kind("out/m/samples_gpqa_2024-06-16T10-22-33.1.jsonl"), file_kind("a/b.txt")
    ('samples', None)
    """
    name = os.path.basename(os.fspath(path))
    if name.endswith(".json"):
        return RESULTS
    if name.endswith(".jsonl"):
        return SAMPLES
    if _DETAILS_NAME.match(name):
        return DETAILS
    return None


def samples_name(name: str) -> tuple[str, str] | None:
    """``(task, time stamp)`` of an lm-eval (0.4.5+) samples file name, or None. The task is
    as written: lm-eval 0.5 qualifies a task run inside a group (``group::task``; see
    :func:`split_task_key`).

    >>> samples_name("samples_leaderboard_gpqa::leaderboard_gpqa_main_2026-11-23T12-21-33.829457.jsonl")
    ('leaderboard_gpqa::leaderboard_gpqa_main', '2026-11-23T12-21-33.829457')
    """
    m = SAMPLES_NAME.match(os.path.basename(name))
    return (m["task"], m["time"]) if m else None


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


# --- model identity ----------------------------------------------------------------------------


def is_random_id(name: str, model_args: Any) -> bool:
    """True when ``name`` is the random 8-character id lm-eval >= 0.4.11 writes as
    ``model_name`` because ``model_args`` names no model (``{}``, or only ``base_model``)."""
    if not _RANDOM_ID.match(name):
        return False
    return _arg(model_args, _LM_EVAL_NAMING_KEYS) is None


def model_from_args(model_args: Any) -> str | None:
    """The model named by lm-eval ``model_args`` (dict or ``key=value,...`` string), or None.

    >>> model_from_args("base_model=org/base,dtype=float32"), model_from_args({"pretrained": "org/m"})
    ('org/base', 'org/m')
    """
    return _arg(model_args, MODEL_ARG_KEYS)


def _arg(model_args: Any, keys: tuple[str, ...]) -> str | None:
    if isinstance(model_args, str):
        pairs: dict[str, str] = {}
        for item in model_args.split(","):
            k, sep, v = item.partition("=")
            if sep:
                pairs.setdefault(k.strip(), v.strip())
        model_args = pairs
    if isinstance(model_args, dict):
        for key in keys:
            value = model_args.get(key)
            if value not in (None, ""):
                return str(value)
    return None


def model_identity(data: dict, path: str | os.PathLike[str], harness: str) -> str:
    """The model a results file belongs to (rule in the module docstring). A wrongly typed
    ``model_name`` or ``config`` raises :class:`ScorekitError` naming the place."""
    if harness == LIGHTEVAL:
        general = data.get("config_general")
        if not isinstance(general, dict):
            raise ScorekitError(f"expected a mapping, got {type(general).__name__}", path=path, where='"config_general"')
        name = general.get("model_name")
        if name is not None and not isinstance(name, str):
            raise ScorekitError(f"expected a string, got {type(name).__name__}", path=path, where='config_general["model_name"]')
        if name:
            return name
        mc = general.get("model_config")
        if isinstance(mc, dict) and isinstance(mc.get("model_name"), str) and mc["model_name"]:
            return mc["model_name"]
        return _model_folders(Path(path), "results")
    name = data.get("model_name")
    if name is not None and not isinstance(name, str):
        raise ScorekitError(f"expected a string, got {type(name).__name__}", path=path, where='"model_name"')
    config = data.get("config")
    if config is not None and not isinstance(config, dict):
        raise ScorekitError(f"expected a mapping, got {type(config).__name__}", path=path, where='"config"')
    args = (config or {}).get("model_args")
    if name and not is_random_id(name, args):
        return name
    found = model_from_args(args)
    if found:
        return found
    if args is None and isinstance((config or {}).get("model"), str) and config["model"]:
        return config["model"]
    return name or os.path.basename(os.path.dirname(os.path.abspath(path)))


def _model_folders(path: Path, top: str) -> str:
    """lighteval's ``<top>/<model...>/`` folders of ``path`` joined by ``/``; more than two
    folders are an absolute local path with its leading ``/`` dropped (lighteval 0.13)."""
    parts = Path(os.path.abspath(path)).parts
    inner = 2 if top == DETAILS else 1  # details/<model...>/<time>/file
    for i in range(len(parts) - inner - 1, -1, -1):
        if parts[i] == top:
            folders = parts[i + 1 : len(parts) - inner]
            if folders:
                name = "/".join(folders)
                return "/" + name if len(folders) > 2 else name
            break
    return parts[-1 - inner] if len(parts) > inner else str(path)


def details_model(path: str | os.PathLike[str], load: Callable[[Path], Any] | None = None) -> str:
    """The model of a lighteval details file ``OUT/details/<model...>/<T>/details_*.parquet``:
    the model of the results file of the same run (``OUT/results/<model...>/results_<T>.json``)
    when it exists, else the folders (see :func:`model_identity`)."""
    path = Path(path)
    run = path.parent.name
    folders = _model_folders(path, DETAILS)
    parts = Path(os.path.abspath(path)).parts
    if DETAILS in parts:
        i = len(parts) - 1 - parts[::-1].index(DETAILS)
        results = Path(*parts[:i], RESULTS, *parts[i + 1 : -2], f"results_{run}.json")
        if results.is_file():
            if load is None:
                from scorekit.io import load_json as load
            try:
                data = load(results)
            except ScorekitError:
                data = None
            if results_harness(data) == LIGHTEVAL:
                return model_identity(data, results, LIGHTEVAL)
    return folders


# --- reading samples ---------------------------------------------------------------------------

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
            from scorekit.io import load_json

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


# --- run time ----------------------------------------------------------------------------------


def time_in_name(name: str) -> str | None:
    """The harness time stamp in a file or folder name (``2024-06-16T10-22-33.123456``), or None."""
    m = _TIME_IN_NAME.search(os.path.basename(name))
    return m.group(0) if m else None


def run_time(path: str | os.PathLike[str], data: Any = None) -> tuple[float, str]:
    """``(Unix seconds, source)`` of a run (rule in the module docstring): lm-eval's ``date`` in
    ``data``, else the file name's time stamp (local time), else the modification time.
    ``source`` is ``"date field"``, ``"file name"`` or ``"modification time"``."""
    if isinstance(data, dict) and "config_general" not in data:
        date = data.get("date")
        if isinstance(date, (int, float)) and not isinstance(date, bool) and date == date:
            return float(date), "date field"
    m = _TIME_IN_NAME.search(os.path.basename(os.fspath(path)))
    if m:
        try:
            dt = datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}:{m.group(3)}:{m.group(4)}")
            return dt.timestamp(), "file name"
        except ValueError:
            pass
    try:
        return os.path.getmtime(path), "modification time"
    except OSError:
        return time.time(), "modification time"


# --- task keys ---------------------------------------------------------------------------------


def ungrouped(task: str) -> str:
    """``task`` without lm-eval 0.5's group qualifier (a task run inside a group is written
    ``<group>::<task>``); other names as they are.

    >>> ungrouped("leaderboard_gpqa::leaderboard_gpqa_main"), ungrouped("gpqa")
    ('leaderboard_gpqa_main', 'gpqa')
    """
    return task.rpartition("::")[2]


def split_task_key(key: str) -> tuple[str | None, str, int | None]:
    """``(suite, task, fewshots)`` of a task key; missing parts are None.

    >>> split_task_key("leaderboard|gpqa|0"), split_task_key("gpqa|0"), split_task_key("lighteval|gpqa")
    (('leaderboard', 'gpqa', 0), (None, 'gpqa', 0), ('lighteval', 'gpqa', None))
    >>> split_task_key("leaderboard_gpqa::leaderboard_gpqa_main")
    (None, 'leaderboard_gpqa_main', None)
    """
    parts = key.split("|")
    n: int | None = None
    if len(parts) > 1 and parts[-1].isdigit():
        n = int(parts.pop())
    suite = parts[0] if len(parts) > 1 else None
    task = parts[-1] if len(parts) <= 2 else "|".join(parts[1:])
    return suite, ungrouped(task), n


def key_matches(wanted: str, actual: str) -> bool:
    """Does a config's key ``wanted`` name the results key ``actual``? (module docstring)

    >>> [key_matches(w, "lighteval|ifeval|0") for w in ("ifeval", "lighteval|ifeval", "lighteval|ifeval|0", "ifeval|5")]
    [True, True, True, False]
    >>> key_matches("lighteval|ifeval|0", "ifeval|0"), key_matches("other|ifeval", "lighteval|ifeval|0")
    (True, False)
    """
    if wanted == actual:
        return True
    ws, wt, wn = split_task_key(wanted)
    s, t, n = split_task_key(actual)
    return wt == t and (ws is None or s is None or ws == s) and (wn is None or wn == n)


def find_task_key(keys: Collection[str], wanted: str, newest: Callable[[str], Any]) -> tuple[str, list[str]] | None:
    """The results key ``wanted`` names among ``keys`` and the other keys it also matched.

    An exact key wins; otherwise the matching key with the largest ``newest(key)`` (the
    commands pass ``(run time, file)``) is taken. None when nothing matches. Matching keys
    that tie for newest (two few-shot settings of one run, ``gsm8k|0`` and ``gsm8k|5``) have no
    newest: :class:`ScorekitError` naming the file (the second item of ``newest``) and the keys.
    """
    if wanted in keys:
        return wanted, []
    matching = [k for k in keys if key_matches(wanted, k)]
    if not matching:
        return None
    best = max(matching, key=lambda k: (newest(k), k))
    tied = sorted(k for k in matching if newest(k) == newest(best))
    if len(tied) > 1:
        where = newest(best)
        raise ScorekitError(
            f"config key {wanted!r} matches several results keys of one run ({', '.join(tied)}); "
            "write the few-shot count in the config key (suite|task|n)",
            path=where[1] if isinstance(where, tuple) and len(where) == 2 else None,
        )
    return best, [k for k in matching if k != best]
