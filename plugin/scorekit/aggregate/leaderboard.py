"""Leaderboard columns for merged results, from a :class:`NormalizationConfig`.

For each model and each benchmark column the config's parts are looked up in the model's
merged tasks (:mod:`scorekit.aggregate.results_files`), checked to be fractions in [0, 1]
(else :class:`ScorekitError` naming the file and ``results["task"]["metric"]``), and combined
with :meth:`Benchmark.combine`. A column with any part absent is *missing*: its score and raw
value are None, it is listed in :attr:`LeaderboardRow.missing`, and the average column (the
plain mean of the columns) is None: never an average over fewer columns.

Task lookup: :func:`scorekit.harness_outputs.find_task_key` (a config key ``task``,
``suite|task`` or ``suite|task|n`` matches; when several keys match, ``ifeval|0`` and
``ifeval|5`` from different runs, the newest one is used and a note says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from scorekit.aggregate.normalize import NormalizationConfig, Part, check_fraction, load_config
from scorekit.aggregate.results_files import LIGHTEVAL, ModelResults, ResultsFile
from scorekit.harness_outputs import find_task_key, split_task_key

DEFAULT_CONFIG = "open_llm_leaderboard_v2.yaml"
DEFAULT_LIGHTEVAL_CONFIG = "open_llm_leaderboard_v2_lighteval.yaml"


@dataclass
class LeaderboardRow:
    """One model's columns. ``scores``/``raw`` map every column to a float or None (missing)."""

    model: str
    scores: dict[str, float | None]
    raw: dict[str, float | None]
    missing: list[str]
    sources: list[str]
    config: str
    average_column: str | None = None
    missing_detail: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The documented JSON shape: model, scores, raw, missing, sources."""
        return {
            "model": self.model,
            "scores": dict(self.scores),
            "raw": dict(self.raw),
            "missing": list(self.missing),
            "sources": list(self.sources),
        }


def _find(model: ModelResults, key: str) -> tuple[str, ResultsFile, list[str]] | None:
    """``(actual key, file it comes from, other matching keys)`` or None
    (:func:`scorekit.harness_outputs.find_task_key`: exact key, else the newest matching key)."""
    files = model.task_files
    found = find_task_key(files, key, lambda k: (files[k].timestamp, files[k].path))
    if found is None:
        return None
    return found[0], files[found[0]], found[1]


def _group_value(
    model: ModelResults, found: tuple[str, ResultsFile, list[str]] | None, part: Part, known: dict[str, int]
) -> tuple[float, str] | str:
    """The size-weighted mean of ``part.metric`` over the subtasks of the group
    ``part.results_key``, for a file whose group entry has no value (``{" ": " ", "alias": ...}``,
    lm-eval 0.4.5-0.4.11 without ``aggregate_metric_list``) or a model with no group entry.

    Subtasks: the file's ``group_subtasks`` (nested groups expanded), else the config's
    ``subtask_sizes``. Sizes: ``n-samples[task].effective``, else ``subtask_sizes``. Returns
    ``(value, note)``, or what is absent (a string) when it cannot be derived.
    """
    key = part.results_key
    what = f"{found[0]} -> {part.metric}" if found else key
    rf = found[1] if found else None
    leaves = _leaves(rf.groups, found[0]) if rf is not None else []
    if not leaves:
        if not known:
            return what
        leaves = list(known)
    total = weighted = 0.0
    sized_by = set()
    for leaf in leaves:
        hit = (leaf, rf, []) if rf is not None and leaf in rf.tasks else _find(model, leaf)
        if hit is None or part.metric not in hit[1].tasks[hit[0]]:
            return f"{what} (no group value; subtask {leaf} absent)"
        leaf_key, leaf_file = hit[0], hit[1]
        value = check_fraction(
            leaf_file.tasks[leaf_key][part.metric], path=leaf_file.path, where=f'results["{leaf_key}"]["{part.metric}"]'
        )
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
        f"{key} has no {part.metric} value {where}(a group lm-eval did not aggregate); derived it as the "
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
            if isinstance(groups.get(m), list) and groups[m]:
                stack.append(m)
            else:
                out.append(m)
    return out


def _effective(entry: Any) -> int | None:
    """``n-samples[task]["effective"]`` when it is a positive integer."""
    n = entry.get("effective") if isinstance(entry, dict) else None
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


def _row(model: ModelResults, config: NormalizationConfig) -> LeaderboardRow:
    """Columns of one model under ``config`` (see module docstring)."""
    scores: dict[str, float | None] = {}
    raw: dict[str, float | None] = {}
    detail: dict[str, list[str]] = {}  # missing column -> what is absent
    notes: list[str] = []
    for bench in config.benchmarks:
        values: list[float] = []
        absent: list[str] = []
        for part in bench.parts:
            rf = model.task_files.get(part.results_key)  # the exact key, else a matching one
            found = (part.results_key, rf, []) if rf is not None else _find(model, part.results_key)
            metrics = found[1].tasks[found[0]] if found else {}
            if part.metric not in metrics:
                derived = _group_value(model, found, part, dict(bench.subtask_sizes))
                if isinstance(derived, str):
                    if derived not in absent:
                        absent.append(derived)
                else:
                    values.append(derived[0])
                    notes.append(derived[1])
                continue
            key, rf, others = found  # type: ignore[misc]
            if others:
                notes.append(
                    f"{part.results_key}: several runs ({', '.join(sorted([key] + others))}); "
                    f"used the newest, {key} from {rf.path}"
                )
            value = metrics[part.metric]
            if type(value) is not float or not 0.0 <= value <= 1.0:  # the place is named only for a bad value
                value = check_fraction(value, path=rf.path, where=f'results["{key}"]["{part.metric}"]')
            values.append(value)
        if absent:
            scores[bench.column] = raw[bench.column] = None
            detail[bench.column] = absent
        else:
            scores[bench.column], raw[bench.column] = bench.combine(values)
    if config.average is not None:
        columns = [scores[c] for c in config.columns]
        scores[config.average] = None if detail else sum(columns) / len(columns)  # type: ignore[arg-type]
    return LeaderboardRow(
        model.model, scores, raw, list(detail), list(model.sources), config.name, config.average, detail,
        list(dict.fromkeys(notes)),
    )


def shipped_config(name: str = DEFAULT_CONFIG) -> NormalizationConfig:
    """A config shipped in scorekit's ``configs/`` folder, by file name."""
    from scorekit.resources import config_path

    return load_config(config_path(name))


def config_for(model: ModelResults, configs: dict[str, NormalizationConfig]) -> NormalizationConfig:
    """The default choice: the lighteval config for a model seen only in lighteval files,
    the lm-eval config otherwise. ``configs`` maps ``"lm-eval"``/``"lighteval"`` to configs."""
    if model.harnesses == {LIGHTEVAL} and LIGHTEVAL in configs:
        return configs[LIGHTEVAL]
    return configs["lm-eval"]


def compute_leaderboard(
    models: Iterable[ModelResults], config: NormalizationConfig | dict[str, NormalizationConfig]
) -> list[LeaderboardRow]:
    """Rows for all ``models``, best average first; rows without an average follow, by name.

    ``config`` is one config for every model, or a per-harness mapping (see :func:`config_for`).
    """
    rows = [_row(m, config if isinstance(config, NormalizationConfig) else config_for(m, config)) for m in models]

    def order(row: LeaderboardRow):
        avg = row.scores.get(row.average_column) if row.average_column else None
        return (avg is None, -(avg or 0.0), row.model)

    return sorted(rows, key=order)


def override_notes(models: Iterable[ModelResults]) -> list[str]:
    """Human-readable lines for every task replaced by a newer file while merging."""
    lines = []
    for model in models:
        for ov in model.overrides:
            shown = ", ".join(ov.tasks[:3]) + (f", ... ({len(ov.tasks)} tasks)" if len(ov.tasks) > 3 else "")
            lines.append(f"{model.model}: {shown} found in {ov.dropped} and {ov.kept}; kept the newer {ov.kept}")
    return lines


def missing_notes(rows: Iterable[LeaderboardRow]) -> list[str]:
    """One line per model with missing columns, naming what is absent."""
    lines = []
    for row in rows:
        if not row.missing:
            continue
        parts = []
        for col in row.missing:
            absent = row.missing_detail.get(col, [])
            shown = ", ".join(absent[:4]) + (f", ... ({len(absent)} in all)" if len(absent) > 4 else "")
            parts.append(f"{col} (absent: {shown})")
        tail = f"; {row.average_column} left out" if row.average_column else ""
        lines.append(f"{row.model}: missing " + "; ".join(parts) + tail)
    return lines
