"""Find and read lm-eval and lighteval results files into one uniform shape.

Reusable by any command that consumes aggregated results (leaderboard, robustness reports):

>>> loaded = load_results(["out/"])                     # files and/or folders (recursive)
>>> loaded.models["EleutherAI/pythia-410m"].tasks["leaderboard_gpqa"].metrics["acc_norm,none"]

Recognised files (detected from content, not from the name):

lm-eval (``OUT/<model_name_sanitized>/results_<time>.json``)
    a JSON object with ``results`` plus lm-eval's bookkeeping keys (``versions``, ``n-shot``,
    ``configs``, ``config``, ``group_subtasks`` or ``higher_is_better``). Task keys are lm-eval
    task and group names; metric keys are ``"<metric>,<filter>"``, values as written (stderr
    may be the string ``"N/A"``, every task also carries a string ``alias``).
lighteval (``OUT/results/<model_name>/results_<time>.json``)
    a JSON object with ``config_general`` and ``results``. Task keys are kept as written,
    ``"task|fewshots"`` (older versions: ``"suite|task|fewshots"``); the ``"all"`` entry
    (lighteval's mean of every metric, stderr included) is dropped.

Model identity: lm-eval's top-level ``model_name``, else the first of the ``peft=``,
``delta=``, ``pretrained=``, ``model=``, ``path=``, ``engine=`` entries of ``config.model_args``
(lm-eval's own order), else ``config.model``, else the name of the folder holding the file;
lighteval's ``config_general.model_name``, else ``config_general.model_config.model_name``,
else the folder name. Files are merged by this name.

Timestamp of a file (used for "newest file wins"): the ISO time both harnesses put in the file
name (``results_2024-06-16T10-22-33.123456.json``, local time), else lm-eval's ``date`` field
(Unix time), else the file's modification time. Equal timestamps are broken by path order.

Values are not validated here (a results file may hold anything for tasks nobody asks
about); consumers check the values they use, e.g. with
:func:`scorekit.aggregate.normalize.check_fraction`.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable

from scorekit.errors import ScorekitError
from scorekit.io import load_json

LM_EVAL = "lm-eval"
LIGHTEVAL = "lighteval"

_LM_EVAL_MARKERS = ("versions", "n-shot", "configs", "config", "group_subtasks", "higher_is_better")
_MODEL_ARG_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")
_TIME_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}(?:\.\d+)?)")
_FEWSHOT_SUFFIX = re.compile(r"\|(\d+)$")


@dataclass
class ResultsFile:
    """One results file as read: ``tasks`` maps task key -> metric key -> value (as written)."""

    path: str
    harness: str
    model: str
    timestamp: float
    timestamp_source: str  # "file name", "date field" or "modification time"
    tasks: dict[str, dict[str, Any]]
    n_shot: dict[str, Any] = field(default_factory=dict)  # as written; ints where well formed


@dataclass
class TaskResult:
    """The metrics of one task for one model and the file they came from."""

    metrics: dict[str, Any]
    source: str
    timestamp: float
    harness: str
    n_shot: int | None = None


@dataclass
class Override:
    """Tasks present in two files of one model: ``kept`` (newer) replaced ``dropped``."""

    kept: str
    dropped: str
    tasks: list[str]


class ModelResults:
    """Everything known about one model after merging its files.

    ``task_files`` maps each task key to the file it is taken from (the newest holding it);
    :meth:`get` and :attr:`tasks` give :class:`TaskResult` views of it.
    """

    def __init__(self, model: str):
        self.model = model
        self.sources: list[str] = []  # oldest first
        self.harnesses: set[str] = set()
        self.overrides: list[Override] = []
        self.task_files: dict[str, ResultsFile] = {}

    def get(self, key: str) -> TaskResult | None:
        """The metrics of task ``key`` (exact key) or None."""
        f = self.task_files.get(key)
        if f is None:
            return None
        n = f.n_shot.get(key)
        n = n if isinstance(n, int) and not isinstance(n, bool) else None
        return TaskResult(f.tasks[key], f.path, f.timestamp, f.harness, n)

    @property
    def tasks(self) -> dict[str, TaskResult]:
        """All tasks as :class:`TaskResult` (built on each access; prefer :meth:`get`)."""
        return {k: self.get(k) for k in self.task_files}  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"ModelResults({self.model!r}, {len(self.task_files)} tasks, {len(self.sources)} files)"


@dataclass
class LoadedResults:
    """Output of :func:`load_results`: models by name, files read, and files skipped by reason."""

    models: dict[str, ModelResults]
    files: list[ResultsFile]
    skipped: dict[str, list[str]]

    def skipped_summary(self) -> str | None:
        """One line saying what a directory walk skipped, or None when nothing was."""
        if not any(self.skipped.values()):
            return None
        total = sum(len(v) for v in self.skipped.values())
        parts = []
        for reason, paths in self.skipped.items():
            if paths:
                parts.append(f"{len(paths)} {reason} (e.g. {paths[0]})")
        return f"skipped {total} file(s) that are not results files: " + "; ".join(parts)


def discover(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[tuple[str, bool]], dict[str, list[str]]]:
    """Expand ``paths`` into ``[(file, explicit), ...]`` plus non-JSON files skipped by reason.

    Files are taken as given (``explicit=True``); folders are walked recursively with
    :func:`os.walk` (a folder's files sorted, then its subfolders sorted; symlinked folders
    are not entered, unreadable ones are passed over), keeping ``*.json`` files
    (``explicit=False``) and setting aside everything else (samples ``*.jsonl``, details
    ``*.parquet``, ...). A missing path raises.
    """
    found: list[tuple[str, bool]] = []
    skipped: dict[str, list[str]] = {"samples/JSONL files": [], "non-JSON files": []}
    seen: set[str] = set()
    for p in paths:
        p = os.fspath(p)
        if os.path.isfile(p):
            if p not in seen:
                seen.add(p)
                found.append((p, True))
        elif os.path.isdir(p):
            for folder, subfolders, names in os.walk(p):
                subfolders.sort()
                for name in sorted(names):
                    full = os.path.join(folder, name)
                    if full in seen:
                        continue
                    seen.add(full)
                    if name.endswith(".json"):
                        found.append((full, False))
                    elif name.endswith(".jsonl"):
                        skipped["samples/JSONL files"].append(full)
                    else:
                        skipped["non-JSON files"].append(full)
        else:
            raise ScorekitError("no such file or directory", path=p)
    return found, skipped


def read_results_file(path: str | os.PathLike[str], data: Any = None) -> ResultsFile | None:
    """Read one file; None if it parses but is not an lm-eval/lighteval results file.

    ``data``: the file's parsed JSON, when the caller has it already. Malformed JSON, or a
    results file with wrongly typed structure (``results`` not a mapping of mappings, a
    non-string model name), raises :class:`ScorekitError` naming the place.
    """
    path = os.fspath(path)
    if data is None:
        data = load_json(path)
    if not isinstance(data, dict):
        return None
    results = data.get("results")
    if "config_general" in data and "results" in data:
        harness = LIGHTEVAL
    elif "results" in data and not data.keys().isdisjoint(_LM_EVAL_MARKERS):
        harness = LM_EVAL
    else:
        return None
    if not isinstance(results, dict):
        raise ScorekitError(f"expected a mapping of tasks, got {type(results).__name__}", path=path, where='"results"')
    if not results:
        raise ScorekitError("results file holds no task results", path=path, where='"results"')
    for key, metrics in results.items():
        if not isinstance(metrics, dict):
            raise ScorekitError(
                f"expected a mapping of metrics, got {type(metrics).__name__}", path=path, where=f'results["{key}"]'
            )
    ts, ts_source = _timestamp(path, data if harness == LM_EVAL else None)
    if harness == LM_EVAL:
        model = _lm_eval_model(data, path)
        n_shot_raw = data.get("n-shot")
        n_shot = n_shot_raw if isinstance(n_shot_raw, dict) else {}  # checked on use (TaskResult)
        tasks, n_shot = unqualified(results), unqualified(n_shot)
    else:
        model = _lighteval_model(data, path)
        tasks = {k: v for k, v in results.items() if k != "all"}
        n_shot = {}
        for k in tasks:
            m = _FEWSHOT_SUFFIX.search(k)
            if m:
                n_shot[k] = int(m.group(1))
        if not tasks:
            raise ScorekitError("results file holds no task results (only \"all\")", path=path, where='"results"')
    return ResultsFile(path, harness, model, ts, ts_source, tasks, n_shot)


def unqualified(by_task: dict[str, Any]) -> dict[str, Any]:
    """lm-eval 0.5 names a task run inside a group ``<group>::<task>`` (``"leaderboard_gpqa::
    leaderboard_gpqa_main"``); keys are given without the group part, except where two keys
    would then be the same task (both kept qualified, so nothing is lost).

    >>> unqualified({"leaderboard::leaderboard_ifeval": 1, "leaderboard_bbh": 2, "a::t": 3, "b::t": 4})
    {'leaderboard_ifeval': 1, 'leaderboard_bbh': 2, 'a::t': 3, 'b::t': 4}
    """
    plain = [key.rpartition("::")[2] for key in by_task]
    counts = Counter(plain)
    return {(p if counts[p] == 1 else key): v for p, (key, v) in zip(plain, by_task.items())}


def task_base(key: str) -> str:
    """A lighteval key without its few-shot suffix and suite prefix: ``"leaderboard|gpqa|0"`` -> ``"gpqa"``."""
    key = _FEWSHOT_SUFFIX.sub("", key)
    if "|" in key:
        key = key.split("|", 1)[1]
    return key


def merge(files: Iterable[ResultsFile]) -> dict[str, ModelResults]:
    """Group files by model; a task key found in several files of one model keeps the newest.

    Newest = larger :attr:`ResultsFile.timestamp`; ties go to the later path in sorted order.
    Every replacement is recorded in :attr:`ModelResults.overrides`.
    """
    models: dict[str, ModelResults] = {}
    for f in sorted(files, key=lambda f: (f.timestamp, f.path)):
        mr = models.get(f.model)
        if mr is None:
            mr = models[f.model] = ModelResults(f.model)
        mr.sources.append(f.path)
        mr.harnesses.add(f.harness)
        replaced: dict[str, list[str]] = {}  # dropped file -> its tasks f replaces, in f's order
        for key in f.tasks:
            old = mr.task_files.get(key)
            if old is not None:
                replaced.setdefault(old.path, []).append(key)
            mr.task_files[key] = f
        for dropped, keys in replaced.items():
            mr.overrides.append(Override(kept=f.path, dropped=dropped, tasks=keys))
    return models


def load_results(
    paths: Iterable[str | os.PathLike[str]], *, on_file: Callable[[int, int], None] | None = None
) -> LoadedResults:
    """Discover, read and merge results files (see module docstring).

    In a folder walk, JSON files that are not results files are skipped (and listed in
    :attr:`LoadedResults.skipped`); a malformed JSON file named ``results*.json`` is an error,
    other malformed JSON in a walk is skipped. A file passed explicitly must be a results file.
    No results file at all is an error. ``on_file(done, total)`` is called after each file.
    """
    paths = list(paths)
    if not paths:
        raise ScorekitError("no input paths given")
    candidates, skipped = discover(paths)
    skipped["other JSON files"] = []
    skipped["unparsable JSON files"] = []
    files: list[ResultsFile] = []
    for i, (path, explicit) in enumerate(candidates):
        try:
            data = load_json(path)
        except ScorekitError:
            # malformed: an error when named on the command line or named like a results
            # file; other unparsable JSON met in a folder walk is skipped (and reported)
            if explicit or os.path.basename(path).startswith("results"):
                raise
            skipped["unparsable JSON files"].append(path)
        else:
            rf = read_results_file(path, data)
            if rf is not None:
                files.append(rf)
            elif explicit:
                raise ScorekitError(
                    "not an lm-eval or lighteval results file (expected a JSON object with 'results' "
                    "and lighteval's 'config_general' or lm-eval's 'versions'/'config' keys)",
                    path=path,
                )
            else:
                skipped["other JSON files"].append(path)
        if on_file is not None:
            on_file(i + 1, len(candidates))
    if not files:
        where = ", ".join(os.fspath(p) for p in paths)
        summary = LoadedResults({}, [], skipped).skipped_summary()
        raise ScorekitError("no lm-eval or lighteval results files found" + (f" ({summary})" if summary else ""), path=where)
    return LoadedResults(merge(files), files, skipped)


def _timestamp(path: str, lm_eval_data: dict | None) -> tuple[float, str]:
    m = _TIME_IN_NAME.search(os.path.basename(path))
    if m:
        try:
            dt = datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}:{m.group(3)}:{m.group(4)}")
            return dt.timestamp(), "file name"
        except ValueError:
            pass
    if lm_eval_data is not None:
        date = lm_eval_data.get("date")
        if isinstance(date, (int, float)) and not isinstance(date, bool) and date == date:
            return float(date), "date field"
    try:
        return os.path.getmtime(path), "modification time"
    except OSError:  # pragma: no cover - the file was just read
        return time.time(), "modification time"


def _lm_eval_model(data: dict, path: str) -> str:
    name = data.get("model_name")
    if name is not None:
        if not isinstance(name, str):
            raise ScorekitError(f"expected a string, got {type(name).__name__}", path=path, where='"model_name"')
        if name:
            return name
    config = data.get("config")
    if config is not None and not isinstance(config, dict):
        raise ScorekitError(f"expected a mapping, got {type(config).__name__}", path=path, where='"config"')
    if config:
        args = config.get("model_args")
        found = _model_from_args(args)
        if found:
            return found
        model = config.get("model")
        if isinstance(model, str) and model:
            return model
    return _folder_name(path)


def _model_from_args(args: Any) -> str | None:
    if isinstance(args, dict):
        for key in _MODEL_ARG_KEYS:
            if key in args and args[key] not in (None, ""):
                return str(args[key])
    elif isinstance(args, str):
        for key in _MODEL_ARG_KEYS:
            marker = f"{key}="
            if marker in args:
                value = args.split(marker, 1)[1].split(",", 1)[0]
                if value:
                    return value
    return None


def _lighteval_model(data: dict, path: str) -> str:
    general = data.get("config_general")
    if not isinstance(general, dict):
        raise ScorekitError(f"expected a mapping, got {type(general).__name__}", path=path, where='"config_general"')
    name = general.get("model_name")
    if name is not None and not isinstance(name, str):
        raise ScorekitError(
            f"expected a string, got {type(name).__name__}", path=path, where='config_general["model_name"]'
        )
    if name:
        return name
    mc = general.get("model_config")
    if isinstance(mc, dict) and isinstance(mc.get("model_name"), str) and mc["model_name"]:
        return mc["model_name"]
    return _folder_name(path)


def _folder_name(path: str) -> str:
    return Path(path).resolve().parent.name
