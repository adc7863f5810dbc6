"""Find and read lm-eval and lighteval results files into one uniform shape.

Reusable by any command that consumes aggregated results (leaderboard, robustness reports):

>>> import json, tempfile
>>> from pathlib import Path
>>> run = Path(tempfile.mkdtemp()) / "out" / "EleutherAI__pythia-410m"
>>> run.mkdir(parents=True)
>>> _ = (run / "results_2024-06-01T10-00-00.000000.json").write_text(json.dumps({
...     "results": {"leaderboard_gpqa": {"alias": "leaderboard_gpqa", "acc_norm,none": 0.26}},
...     "versions": {"leaderboard_gpqa": 1.0},
...     "config": {"model": "hf", "model_args": "pretrained=EleutherAI/pythia-410m"}}))
>>> loaded = load_results([run.parent])                  # files and/or folders (recursive)
>>> loaded.models["EleutherAI/pythia-410m"].tasks["leaderboard_gpqa"].metrics["acc_norm,none"]
0.26

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

Model identity, run time ("newest file wins") and the folder walk follow the rules of
:mod:`scorekit.harness_outputs`, shared by every command. Files are merged by model; equal
timestamps are broken by path order.

Stderr from samples (:func:`samples_stderr`): lm-eval writes ``"N/A"`` as the stderr of a
metric whose aggregation is not the mean (IFEval's ``inst_level_*``); when the run logged its
samples, the stderr is computed from them (documents as the unit).

Values are not validated here (a results file may hold anything for tasks nobody asks
about); consumers check the values they use, e.g. with :func:`check_fraction`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from scorekit.errors import ScorekitError, listed
from scorekit.harness_outputs.folders import WALK_SKIPS, walk
from scorekit.harness_outputs.keys import find_task_key, split_task_key, unqualified, ungrouped  # noqa: F401 (re-exported)
from scorekit.harness_outputs.kinds import LM_EVAL
from scorekit.harness_outputs.registry import log_format, read_results_file
from scorekit.files import finite_number, load_json
# the values moved to the formats' wing; importable from here as before
from scorekit.harness_outputs.values import ResultsFile, TaskResult, check_fraction, results_mapping  # noqa: F401



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
        """One line saying what a directory walk skipped, or None when nothing was. Files that
        are not results are counted with an example; what the walk left out (hidden, linked
        twice, not regular, unreadable: :data:`scorekit.harness_outputs.folders.WALK_SKIPS`) is named."""
        if not any(self.skipped.values()):
            return None
        total = sum(len(v) for v in self.skipped.values())
        parts = []
        for reason, paths in self.skipped.items():
            if paths and reason in WALK_SKIPS:
                parts.append(f"{len(paths)} {reason} ({listed(paths)})")
            elif paths:
                parts.append(f"{len(paths)} {reason} (e.g. {paths[0]})")
        return f"skipped {total} file(s) or folder(s) that are not results files: " + "; ".join(parts)


def discover(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[tuple[str, bool]], dict[str, list[str]]]:
    """Expand ``paths`` into ``[(file, explicit), ...]`` plus what was set aside, by reason.

    The walk is :func:`scorekit.harness_outputs.walk` (symlinks followed once, regular files
    only, hidden files and folders left out, each named). Of the files found, ``*.json`` are
    kept; samples ``*.jsonl``, details ``*.parquet`` and anything else are set aside. Files the
    user named are kept whatever their name (``explicit=True``). A missing path raises.
    """
    found_walk = walk(paths)
    skipped: dict[str, list[str]] = {"samples/JSONL files": [], "non-JSON files": []}
    skipped.update(found_walk.skipped)
    found: list[tuple[str, bool]] = []
    for full in found_walk.files:
        explicit = full in found_walk.explicit
        if explicit or full.endswith(".json"):
            found.append((full, explicit))
        elif full.endswith(".jsonl"):
            skipped["samples/JSONL files"].append(full)
        else:
            skipped["non-JSON files"].append(full)
    return found, skipped


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


def find(model: ModelResults, key: str) -> tuple[str, ResultsFile, list[str]] | None:
    """``(actual key, file it comes from, other matching keys)`` or None
    (:func:`scorekit.harness_outputs.find_task_key`: exact key, else the newest matching key)."""
    files = model.task_files
    found = find_task_key(files, key, lambda k: (files[k].timestamp, files[k].path))
    if found is None:
        return None
    return found[0], files[found[0]], found[1]


def group_value(model: ModelResults, key: str, metric: str, known: dict[str, int] | None = None) -> tuple[float, str] | str:
    """The size-weighted mean of ``metric`` over the subtasks of the group ``key``, for a file
    whose group entry has no value (``{" ": " ", "alias": ...}``,
    lm-eval 0.4.5-0.4.11 without ``aggregate_metric_list``) or a model with no group entry.

    Subtasks: the file's ``group_subtasks`` (nested groups expanded), else ``known`` (a
    config's ``subtask_sizes``). Sizes: ``n-samples[task].effective``, else ``known``. Values
    are checked to be fractions. Returns ``(value, note)``, or what is absent (a string) when it
    cannot be derived.
    """
    known = known or {}
    found = find(model, key)
    what = f"{found[0]} -> {metric}" if found else key
    rf = found[1] if found else None
    leaves = _leaves(rf.groups, found[0]) if rf is not None else []
    if not leaves:
        if not known:
            return what
        leaves = list(known)
    total = weighted = 0.0
    sized_by = set()
    for leaf in leaves:
        hit = (leaf, rf, []) if rf is not None and leaf in rf.tasks else find(model, leaf)
        if hit is None or metric not in hit[1].tasks[hit[0]]:
            return f"{what} (no group value; subtask {leaf} absent)"
        leaf_key, leaf_file = hit[0], hit[1]
        value = check_fraction(leaf_file.tasks[leaf_key][metric], path=leaf_file.path,
                               where=f'results["{leaf_key}"]["{metric}"]')
        size = _effective(leaf_file.sizes.get(leaf_key))
        if size is not None:
            sized_by.add("n-samples")
        else:
            size = known.get(split_task_key(leaf_key)[1])
            if size is None:
                return f"{what} (no group value; no size for subtask {leaf_key})"
            sized_by.add("the known subtask sizes")
        total += size
        weighted += size * value
    if total <= 0:
        return f"{what} (no group value; subtasks have no documents)"
    where = f"in {rf.path} " if rf is not None else ""
    note = (
        f"{key} has no {metric} value {where}(a group lm-eval did not aggregate); derived it as the "
        f"size-weighted mean over its {len(leaves)} subtasks, sizes from {' and '.join(sorted(sized_by))}"
    )
    return weighted / total, note


def _leaves(groups: dict[str, Any], key: str) -> list[str]:
    """The tasks under group ``key`` in an lm-eval ``group_subtasks`` mapping, nested groups expanded."""
    out: list[str] = []
    stack = [key]
    seen = set()
    while stack:
        g = stack.pop()
        members = groups.get(g)
        if g in seen or not isinstance(members, list):
            continue
        seen.add(g)
        for m in reversed(members):
            if not isinstance(m, str):
                continue
            m = ungrouped(m)  # lm-eval 0.5 writes members as group::task (see unqualified)
            if isinstance(groups.get(m), list) and groups[m]:
                stack.append(m)
            else:
                out.append(m)
    return out


def _effective(entry: Any) -> int | None:
    """``n-samples[task]["effective"]`` when it is a positive integer."""
    n = entry.get("effective") if isinstance(entry, dict) else None
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


def load_results(paths: Iterable[str | os.PathLike[str]], *,
                 on_file: Callable[[int, int], None] | None = None) -> LoadedResults:
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
    # whole-run logs (Inspect's .eval, and .json with Inspect's header) are results too
    logs = [(p, fmt) for p in skipped["non-JSON files"] if (fmt := log_format(p)) is not None]
    skipped["non-JSON files"] = [p for p in skipped["non-JSON files"] if log_format(p) is None]
    files.extend(fmt.read_results(p, None) for p, fmt in logs)
    for i, (path, explicit) in enumerate(candidates):
        fmt = log_format(path)
        if fmt is not None:
            files.append(fmt.read_results(path, None))
            continue
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
        raise ScorekitError("no lm-eval or lighteval results files found" + (f" ({summary})" if summary else "")
                            + _logs_hint(skipped), path=where)
    return LoadedResults(merge(files), files, skipped)


def _logs_hint(skipped: Mapping[str, list[str]]) -> str:
    """Where to go when only per-sample logs were found: lighteval details (``details_*.parquet``)
    or lm-eval samples logs (``samples_*.jsonl``) are read by ``scorekit robustness`` / ``compare``."""
    names = [os.path.basename(f) for files in skipped.values() for f in files]
    kinds = [kind for kind, hit in (
        ("lighteval details", any(n.startswith("details_") and n.endswith(".parquet") for n in names)),
        ("lm-eval samples logs", any(n.startswith("samples_") and n.endswith(".jsonl") for n in names))) if hit]
    if not kinds:
        return ""
    return (f"; found {' and '.join(kinds)}: `scorekit robustness` (SCORE and variant tasks) and `scorekit compare` "
            "read those; this command reads the results_*.json files (lighteval: OUT/results/, lm-eval: --output_path)")


def stderr_key(metric: str) -> str:
    """The results key of a metric's stderr: ``acc_norm,none`` -> ``acc_norm_stderr,none``,
    lighteval ``acc`` -> ``acc_stderr``.

    >>> stderr_key("acc_norm,none"), stderr_key("acc")
    ('acc_norm_stderr,none', 'acc_stderr')
    """
    name, sep, filt = metric.partition(",")
    return f"{name}_stderr{sep}{filt}"


def stderr_value(value: Any) -> float:
    """A results file's stderr value as a float; nan when it is absent, ``"N/A"`` (lm-eval when
    it cannot compute one), or nonsense (a boolean, negative, not finite).

    >>> stderr_value(0.02), stderr_value("N/A"), stderr_value(-1.0)
    (0.02, nan, nan)
    """
    se = finite_number(value)
    return se if se is not None and se >= 0 else math.nan


def samples_stderr(rf: ResultsFile, key: str, metric: str) -> tuple[float | None, str]:
    """``(stderr, note)`` of ``results[key][metric]`` computed from the samples file the same
    run wrote (:func:`scorekit.harness_outputs.samples.run_samples_file`), for a results file without a
    usable stderr; ``(None, note)`` saying why not when it cannot be.

    Per document the metric's value (a number, or IFEval's list of 0/1 instruction results;
    anything else, such as a SCORE record, stops the reading at its first line)
    is read from the rows of the metric's filter (``acc,none`` -> filter ``none``) and
    :func:`scorekit.metrics.intervals.clustered_stderr` applied. The value the samples give
    must equal the results file's (to 1e-9), else the samples are not that value's documents
    and nothing is computed. A samples file that cannot be read is named in the note, never an
    error: the stderr is extra, the results are read already.
    """
    from scorekit.harness_outputs.samples import iter_samples, run_samples_file
    from scorekit.metrics.intervals import clustered_stderr

    if rf.harness != LM_EVAL:
        return None, "no samples log is read for lighteval results"
    path = run_samples_file(rf.path, key)
    if path is None:
        return None, "no samples log of the run beside the results file to compute it from"
    name, _, filt = metric.partition(",")
    filt = filt or "none"
    values: list[Any] = []
    seen: set[Any] = set()
    try:
        for lineno, row in iter_samples(path):
            if row.get("filter", "none") != filt or name not in row:
                continue
            value, doc = row[name], row.get("doc_id")
            if isinstance(value, list):
                usable = all(isinstance(x, (bool, int)) and x in (0, 1) for x in value)
            else:
                usable = isinstance(value, (bool, int, float)) and value == value
            if not usable or doc in seen:
                why = "doc_id repeated" if doc in seen else "not a number or a list of 0/1 items"
                return None, f"its per-document value is {why} ({path} line {lineno}); the stderr was not computed"
            seen.add(doc)
            values.append(value)
    except ScorekitError as exc:
        return None, f"samples log unreadable ({exc}); the stderr was not computed"
    estimate, se = clustered_stderr(values)
    expected = rf.tasks[key].get(metric)
    if not isinstance(expected, (int, float)) or not abs(estimate - expected) <= 1e-9:
        return None, (f"{path} gives {metric} = {estimate!r} over {len(values)} documents, the results file "
                      f"{expected!r}: not the same documents; the stderr was not computed")
    if se != se:
        return None, f"{path} holds {len(values)} document(s); no stderr below two"
    return se, f"computed from {path} ({len(values)} documents as the unit)"
