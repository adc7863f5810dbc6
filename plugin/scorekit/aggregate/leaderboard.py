"""Leaderboard columns for merged results, from a :class:`NormalizationConfig`.

For each model and each benchmark column the config's parts are looked up in the model's
merged tasks (:mod:`scorekit.aggregate.results_files`), checked to be fractions in [0, 1]
(else :class:`ScorekitError` naming the file and ``results["task"]["metric"]``), and combined
with :meth:`Benchmark.combine`. A column with any part absent is *missing*: its score and raw
value are None, it is listed in :attr:`LeaderboardRow.missing`, and the average column (the
plain mean of the columns) is None: never an average over fewer columns.

Uncertainty: each part's stderr is read from the same results entry (``acc_norm_stderr,none``
for ``acc_norm,none``; lighteval ``acc_stderr`` for ``acc``) and carried through the
normalization and the means (:meth:`Benchmark.combine_stderr`; the Average of independent
benchmarks: sqrt(sum se^2) / n). A stderr that is ``"N/A"`` (lm-eval's IFEval instruction
level) is computed from the run's samples log when there is one
(:func:`scorekit.aggregate.results_files.samples_stderr`, with a note); a stderr that is
absent, or ``"N/A"`` without a samples log, makes that column's (and the Average's) stderr
unknown (None), with a note. Interval = score -/+ z * stderr, cut to
[0, 100]. ``indistinguishable_from_best``: the ranking column's score differs from the best
model's by no more than z * sqrt(se_best^2 + se^2) (two independent runs; None when a stderr
is unknown).

Task lookup: :func:`scorekit.harness_outputs.find_task_key` (a config key ``task``,
``suite|task`` or ``suite|task|n`` matches; when several keys match, ``ifeval|0`` and
``ifeval|5`` from different runs, the newest one is used and a note says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

from scorekit.aggregate.normalize import NormalizationConfig, check_fraction, load_config
from scorekit.aggregate.results_files import LIGHTEVAL, ModelResults, find, group_value, samples_stderr, stderr_value

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
    stderr: dict[str, float | None] = field(default_factory=dict)
    indistinguishable_from_best: bool | None = None

    def interval(self, column: str, confidence: float = 0.95) -> tuple[float, float] | None:
        """``score -/+ z * stderr`` cut to [0, 100], or None (no score or no stderr)."""
        from scorekit.metrics.intervals import z_value

        return _interval(self.scores.get(column), self.stderr.get(column), z_value(confidence))

    def intervals(self, confidence: float = 0.95) -> dict[str, tuple[float, float] | None]:
        """:meth:`interval` of every column."""
        from scorekit.metrics.intervals import z_value

        z = z_value(confidence)
        return {c: _interval(v, self.stderr.get(c), z) for c, v in self.scores.items()}

    def to_json(self) -> dict:
        """The documented JSON shape: model, scores, raw, missing, sources, plus stderr,
        scores_ci_low / scores_ci_high (95%) and indistinguishable_from_best."""
        cis = self.intervals()
        return {
            "model": self.model,
            "scores": dict(self.scores),
            "raw": dict(self.raw),
            "missing": list(self.missing),
            "sources": list(self.sources),
            "stderr": dict(self.stderr),
            "scores_ci_low": {c: ci[0] if ci else None for c, ci in cis.items()},
            "scores_ci_high": {c: ci[1] if ci else None for c, ci in cis.items()},
            "indistinguishable_from_best": self.indistinguishable_from_best,
        }


def _interval(v: float | None, se: float | None, z: float) -> tuple[float, float] | None:
    if v is None or se is None or math.isnan(se):
        return None
    return max(0.0, v - z * se), min(100.0, v + z * se)


def _row(model: ModelResults, config: NormalizationConfig) -> LeaderboardRow:
    """Columns of one model under ``config`` (see module docstring)."""
    scores: dict[str, float | None] = {}
    raw: dict[str, float | None] = {}
    detail: dict[str, list[str]] = {}  # missing column -> what is absent
    notes: list[str] = []
    stderr: dict[str, float | None] = {}
    task_files = model.task_files
    for bench in config.benchmarks:
        values: list[float] = []
        ses: list[float] = []
        absent: list[str] = []
        for part in bench.parts:
            key = part.results_key
            rf = task_files.get(key)  # the exact key, else a matching one
            others: list[str] = []
            if rf is None:
                found = find(model, key)
                if found is not None:
                    key, rf, others = found
            metrics = rf.tasks[key] if rf is not None else {}
            if part.metric not in metrics:
                derived = group_value(model, part.results_key, part.metric, dict(bench.subtask_sizes))
                if isinstance(derived, str):
                    if derived not in absent:
                        absent.append(derived)
                else:
                    values.append(derived[0])
                    ses.append(math.nan)  # not propagated through the derivation
                    notes.append(f"{derived[1]}; the {bench.column} interval is unknown")
                continue
            if others:
                notes.append(
                    f"{part.results_key}: several runs ({', '.join(sorted([key] + others))}); "
                    f"used the newest, {key} from {rf.path}"
                )
            value = metrics[part.metric]
            if type(value) is not float or not 0.0 <= value <= 1.0:  # the place is named only for a bad value
                value = check_fraction(value, path=rf.path, where=f'results["{key}"]["{part.metric}"]')
            values.append(value)
            se = metrics.get(part.stderr_key)
            if type(se) is not float or not 0.0 <= se < math.inf:  # the usual case needs no more checks
                se = stderr_value(se)
                if math.isnan(se):  # "N/A": lm-eval's IFEval instruction level; the samples log may tell
                    found_se, why = samples_stderr(rf, key, part.metric)
                    if found_se is None:
                        notes.append(f"{key}: no usable {part.stderr_key}, {why}; the {bench.column} interval is unknown")
                    else:
                        se = found_se
                        notes.append(f"{key}: {part.stderr_key} {why}")
            ses.append(se)
        if absent:
            scores[bench.column] = raw[bench.column] = stderr[bench.column] = None
            detail[bench.column] = absent
        else:
            scores[bench.column], raw[bench.column] = bench.combine(values)
            se_col = bench.combine_stderr(ses)
            stderr[bench.column] = None if math.isnan(se_col) else se_col
    if config.average is not None:
        columns = [scores[c] for c in config.columns]
        scores[config.average] = None if detail else sum(columns) / len(columns)  # type: ignore[arg-type]
        col_se = [stderr[c] for c in config.columns]
        stderr[config.average] = None if detail or any(se is None for se in col_se) else _mean_se(col_se)
    return LeaderboardRow(
        model.model, scores, raw, list(detail), list(model.sources), config.name, config.average, detail,
        list(dict.fromkeys(notes)), stderr,
    )


def _mean_se(ses: list) -> float:
    from scorekit.metrics.intervals import mean_stderr

    return mean_stderr(ses)


def mark_indistinguishable(rows: list[LeaderboardRow], confidence: float = 0.95) -> None:
    """Set :attr:`LeaderboardRow.indistinguishable_from_best` on the ranking column (the
    average, else the first column) of every row (see the module docstring)."""
    from scorekit.metrics.intervals import indistinguishable

    def column(row: LeaderboardRow) -> str | None:
        return row.average_column or next(iter(row.scores), None)

    scored = [r for r in rows if column(r) and r.scores.get(column(r)) is not None]
    if not scored:
        return
    best = max(scored, key=lambda r: r.scores[column(r)])
    best_score, best_se = best.scores[column(best)], best.stderr.get(column(best))
    for r in scored:
        tied = indistinguishable(best_score, best_se, r.scores[column(r)], r.stderr.get(column(r)), confidence)
        r.indistinguishable_from_best = True if r is best else tied


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

    rows = sorted(rows, key=order)
    mark_indistinguishable(rows)
    return rows


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
