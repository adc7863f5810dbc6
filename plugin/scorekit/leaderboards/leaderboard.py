"""Leaderboard rows: a scoring config's benchmarks as columns, its overall score as ``Average``.

The Open LLM Leaderboard's normalization, ``max(0, (v - 1/n) / (1 - 1/n)) * 100``, is threshold
scoring with good = 1 and bad = chance on a 0-100 scale, so a leaderboard is a
:mod:`scorekit.leaderboards.scorecard_config` config (``configs/open_llm_leaderboard_v2.yaml``)
scored by :func:`scorekit.leaderboards.scorecard.scorecard_results` with two rules of its own:

- every value used must be a fraction in [0, 1] (else :class:`ScorekitError` naming the file
  and ``results["task"]["metric"]``);
- the missing policy is ``strict``: a column with any part absent is *missing* (its score and
  raw value None, listed in :attr:`LeaderboardRow.missing` with what is absent), and the
  Average is None: never an average over fewer columns.

A column's raw value is the weighted mean of its metrics' values (weights 1: the plain mean).
Stderr, intervals (score -/+ z * stderr cut to [0, scale]) and ``indistinguishable_from_best``
come from the scoring (:mod:`scorekit.leaderboards.threshold`, :func:`scorecard.rank`). A config
of SCORE per-prompt accuracies has no stderr in the results files; :func:`add_sample_intervals`
gives its columns the bootstrap intervals of :mod:`scorekit.leaderboards.prompt_intervals` from the
runs' samples logs (the intervals ``scorekit demo`` prints).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from scorekit.leaderboards.results_files import ModelResults
from scorekit.leaderboards.scorecard import Note
from scorekit.harness_outputs.kinds import LIGHTEVAL
from scorekit.leaderboards.scorecard_config import LEADERBOARD_OVERALL, ScorecardConfig, load_scorecard_config
from scorekit.errors import listed

DEFAULT_CONFIG = "open_llm_leaderboard_v2.yaml"
DEFAULT_LIGHTEVAL_CONFIG = "open_llm_leaderboard_v2_lighteval.yaml"
AVERAGE = LEADERBOARD_OVERALL  # the column of the config's overall score (no benchmark may take it)


@dataclass
class LeaderboardRow:
    """One model's columns. ``scores``/``raw`` map every column to a float or None (missing)."""

    model: str
    scores: dict[str, float | None]
    raw: dict[str, float | None]
    missing: list[str]
    sources: list[str]
    config: str
    missing_detail: dict[str, list[str]] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    stderr: dict[str, float | None] = field(default_factory=dict)
    indistinguishable_from_best: bool | None = None
    scale: float = 100.0
    sampled: dict[str, tuple[float, float]] = field(default_factory=dict)  # 95% bootstrap intervals (no stderr)

    def intervals(self, confidence: float = 0.95) -> dict[str, tuple[float, float] | None]:
        """``score -/+ z * stderr`` cut to [0, scale] per column; a column without a stderr has its
        bootstrap interval from the samples logs (:attr:`sampled`, 95% only), else None."""
        from scorekit.metrics.intervals import z_value

        z = z_value(confidence)
        out: dict[str, tuple[float, float] | None] = {}
        for c, v in self.scores.items():
            se = self.stderr.get(c)
            if v is None:
                out[c] = None
            elif se is None or math.isnan(se):
                out[c] = self.sampled.get(c) if confidence == 0.95 else None
            else:
                out[c] = (max(0.0, v - z * se), min(self.scale, v + z * se))
        return out

    def to_json(self) -> dict:
        """The documented JSON shape: model, scores, raw, missing, sources, plus stderr,
        scores_ci_low / scores_ci_high (95%) and indistinguishable_from_best."""
        cis = self.intervals()
        return {
            "model": self.model, "scores": dict(self.scores), "raw": dict(self.raw), "missing": list(self.missing),
            "sources": list(self.sources), "stderr": dict(self.stderr),
            "scores_ci_low": {c: ci[0] if ci else None for c, ci in cis.items()},
            "scores_ci_high": {c: ci[1] if ci else None for c, ci in cis.items()},
            "indistinguishable_from_best": self.indistinguishable_from_best,
        }


@dataclass
class Leaderboard:
    """What ``scorekit leaderboard`` shows (the JSON's source): the rows, the first config's
    benchmark columns and its name."""

    rows: list[LeaderboardRow]
    bench_columns: list[str]
    title: str

    @property
    def columns(self) -> list[str]:
        return [*self.bench_columns, AVERAGE]

    def to_json(self) -> dict:
        return {"models": [r.to_json() for r in self.rows]}


def build_leaderboard(models: dict[str, ModelResults], configs: Sequence[ScorecardConfig]) -> Leaderboard:
    """The ranked rows of ``models`` (:func:`compute_leaderboard`) with their samples' intervals
    (:func:`add_sample_intervals`)."""
    rows = compute_leaderboard(models.values(), configs)
    add_sample_intervals(rows, models, configs)
    return Leaderboard(rows, columns(configs[0]), config_name(configs[0]))


def columns(config: ScorecardConfig) -> list[str]:
    """The benchmark columns (:attr:`ScorecardConfig.columns`)."""
    return config.columns


def config_name(config: ScorecardConfig) -> str:
    return config.name or Path(config.path).stem


def _row(m: dict, config: ScorecardConfig, notes: list[Note], absent: dict[str, str]) -> LeaderboardRow:
    scores: dict[str, float | None] = {}
    raw: dict[str, float | None] = {}
    stderr: dict[str, float | None] = {}
    detail: dict[str, list[str]] = {}  # missing column -> what is absent
    for column, bench in zip(columns(config), config.benchmarks):
        node = m["categories"][bench.category]["benchmarks"][bench.name]
        scores[column], stderr[column] = node["score"], node["stderr"]
        if node["missing"] or node["score"] is None:
            what = [absent.get(path, f"{path} ({reason})") for path, reason in node["missing"].items()]
            detail[column] = list(dict.fromkeys(what))
            raw[column] = None
        else:
            parts = [(node["metrics"][s.name]["value"], s.weight) for s in bench.metrics
                     if s.weight > 0 and node["metrics"][s.name]["value"] is not None]  # None: not asked
            raw[column] = sum(w * v for v, w in parts) / sum(w for _, w in parts)
    scores[AVERAGE], stderr[AVERAGE] = m["overall"], m["overall_stderr"]
    return LeaderboardRow(m["model"], scores, raw, list(detail), m["sources"], config_name(config), detail,
                          notes, stderr, m["indistinguishable_from_best"], config.scale)


def shipped_config(name: str = DEFAULT_CONFIG) -> ScorecardConfig:
    """A config shipped in scorekit's ``configs/`` folder, by file name."""
    from scorekit.resources import config_path

    return load_scorecard_config(config_path(name))


def default_configs() -> list[ScorecardConfig]:
    """The shipped lm-eval and lighteval leaderboard configs (see :func:`config_for`)."""
    return [shipped_config(DEFAULT_CONFIG), shipped_config(DEFAULT_LIGHTEVAL_CONFIG)]


def config_for(model: ModelResults, configs: Sequence[ScorecardConfig]) -> ScorecardConfig:
    """The config whose ``harness`` is lighteval for a model seen only in lighteval files, else
    the first other one (lm-eval or any)."""
    if model.harnesses == {LIGHTEVAL}:
        for c in configs:
            if c.harness == LIGHTEVAL:
                return c
    return next((c for c in configs if c.harness != LIGHTEVAL), configs[0])


def compute_leaderboard(models: Iterable[ModelResults],
                        config: ScorecardConfig | Sequence[ScorecardConfig]) -> list[LeaderboardRow]:
    """Rows for all ``models``, best Average first; rows without an Average follow, by name.

    ``config`` is one config for every model, or several to choose from by harness
    (:func:`config_for`).
    """
    from scorekit.leaderboards.scorecard import rank, scorecard_results

    configs = [config] if isinstance(config, ScorecardConfig) else list(config)
    groups: dict[int, tuple[ScorecardConfig, list[ModelResults]]] = {}
    for m in models:
        chosen = config_for(m, configs)
        groups.setdefault(id(chosen), (chosen, []))[1].append(m)
    scored, of = [], {}
    for chosen, group in groups.values():
        rows, inputs = scorecard_results(group, chosen, missing="strict", fractions=True)
        scored += rows
        of.update({r["model"]: (chosen, inputs) for r in rows})
    out = []
    for m in rank(scored):
        chosen, inputs = of[m["model"]]
        out.append(_row(m, chosen, inputs.notes[m["model"]], inputs.absent[m["model"]]))
    return out


def add_sample_intervals(rows: Sequence[LeaderboardRow], models: dict[str, ModelResults],
                         configs: Sequence[ScorecardConfig]) -> None:
    """Give each row whose columns lack an interval, scored with a config of SCORE per-prompt
    accuracies (:func:`scorekit.leaderboards.prompt_intervals.prompt_columns`), the bootstrap
    intervals of its runs' samples logs (:func:`~scorekit.leaderboards.prompt_intervals.summary_intervals`)
    in :attr:`LeaderboardRow.sampled`, and replace its notes of unknown stderr by one note saying
    where the intervals come from. The columns' raw values the samples give (each the mean of its
    prompts' accuracies) must equal the row's (to 1e-9), else the samples are not those scores'
    documents and nothing is used; samples that cannot be read are said in a note, never an error
    (the intervals are extra)."""
    from scorekit.leaderboards.prompt_intervals import prompt_columns

    by_name = {config_name(c): (c, prompt_columns(c)) for c in configs}
    for row in rows:
        config, parts = by_name.get(row.config, (None, None))
        if parts is None or row.model not in models:
            continue
        lacking = [c for c, ci in row.intervals().items() if ci is None and row.scores.get(c) is not None]
        paths = _samples_files(models[row.model], parts) if lacking else None
        if paths:
            said = _bootstrap(row, paths, config, lacking)
            if said:
                row.notes.append(Note("sampled_intervals", said))


def _samples_files(model: ModelResults, parts) -> list[str] | None:
    """The results and samples files of every task the columns read, or None if one is missing."""
    from scorekit.leaderboards.results_files import find
    from scorekit.harness_outputs.samples import run_samples_file

    paths: list[str] = []
    for task in dict.fromkeys(task for _, column in parts for task, _, _, _ in column):
        found = find(model, task)
        samples = None if found is None else run_samples_file(found[1].path, found[0])
        if samples is None:
            return None
        paths += [found[1].path, samples]
    return list(dict.fromkeys(paths))


def _bootstrap(row: LeaderboardRow, paths: list[str], config: ScorecardConfig, lacking: list[str]) -> str | None:
    """Set ``row.sampled`` from the samples ``paths`` (see :func:`add_sample_intervals`);
    the note to add (None when nothing was found to say)."""
    from scorekit.leaderboards.prompt_intervals import raw_values, summary_intervals
    from scorekit.errors import ScorekitError
    from scorekit.robustness.readers import read_paths

    try:
        samples = read_paths(paths).samples
    except ScorekitError as exc:
        return f"the intervals were not bootstrapped from the samples logs: {exc}"
    raw = raw_values(samples, config).get(row.model)
    if not raw:
        return None
    # the columns' raw values (means of the prompts' accuracies, not clamped at chance) must be the files'
    off = next((c for c, v in raw.items() if row.raw.get(c) is None or abs(v - row.raw[c]) > 1e-9), None)
    if off is not None:
        return (f"the samples logs give {off} a raw value of {raw[off]!r}, the results files {row.raw.get(off)!r}: not "
                "the same documents; no interval was bootstrapped")
    found = summary_intervals(samples, config)[row.model]
    row.sampled = {c: (float(found[c][1]), float(found[c][2])) for c in lacking if c in found}
    covered = {b.name for b, c in zip(config.benchmarks, columns(config)) if c in row.sampled}
    row.notes[:] = [n for n in row.notes if not (n.kind == "stderr_unknown" and n.benchmark in covered)]
    return (f"the results files have no stderr for SCORE's per-prompt accuracies: the {listed(row.sampled)} "
            "intervals are a bootstrap over questions from the runs' samples logs (as `scorekit demo` prints them)")


def override_notes(models: Iterable[ModelResults]) -> list[str]:
    """Human-readable lines for every task replaced by a newer file while merging."""
    lines = []
    for model in models:
        for ov in model.overrides:
            lines.append(f"{model.model}: {listed(ov.tasks)} found in {ov.dropped} and {ov.kept}; kept the newer {ov.kept}")
    return lines


def missing_notes(rows: Iterable[LeaderboardRow]) -> list[str]:
    """One line per model with missing columns, naming what is absent."""
    lines = []
    for row in rows:
        if not row.missing:
            continue
        parts = [f"{col} (absent: {listed(row.missing_detail.get(col, []))})" for col in row.missing]
        lines.append(f"{row.model}: missing " + "; ".join(parts) + f"; {AVERAGE} left out")
    return lines
