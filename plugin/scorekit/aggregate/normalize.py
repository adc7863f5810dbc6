"""Random-baseline normalization and the config format that describes it.

The core is one formula (the Open LLM Leaderboard v2 rule)::

    normalize(v, lower) = max(0, (v - lower) / (1 - lower)) * 100

where ``lower`` is the score of random guessing (``1 / num_choices`` for a multiple-choice
task, 0 for generative tasks). A score at or below chance maps to 0, a perfect score to 100.

A :class:`NormalizationConfig` (read from YAML with :func:`load_config`) says, for each
column of a leaderboard, which results key(s) and metric key(s) feed it, the lower bound of
each, and how sub-values are combined:

``normalize_each`` (default)
    normalize every sub-value with its own bound (clamping at 0 *per sub-value*), then take
    the unweighted mean — the leaderboard's rule for BBH and MuSR.
``mean_raw``
    take the unweighted mean of the raw sub-values, then normalize once (all sub-values must
    share one bound) — the leaderboard's rule for IFEval (prompt- and instruction-level).

The raw value of a column is always the unweighted mean of its raw sub-values. The YAML
schema is documented in ``docs/leaderboard.md``; ``configs/open_llm_leaderboard_v2.yaml`` is
the reference example.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorekit.aggregate.results_files import stderr_key
from scorekit.aggregate.yaml_config import read_yaml
from scorekit.errors import ScorekitError

AGGREGATIONS = ("normalize_each", "mean_raw")


def lower_from_choices(num_choices: int) -> float:
    """Chance accuracy of a task with ``num_choices`` equally likely answers: ``1 / num_choices``."""
    if isinstance(num_choices, bool) or not isinstance(num_choices, int) or num_choices < 2:
        raise ValueError(f"num_choices must be an integer >= 2, got {num_choices!r}")
    return 1.0 / num_choices


def normalize(value: float, lower: float) -> float:
    """``max(0, (value - lower) / (1 - lower)) * 100``.

    ``value`` is a fraction in [0, 1]; ``lower`` in [0, 1). Values below ``lower`` clamp to 0,
    so the result is in [0, 100]. No input checking here (see :func:`check_fraction`).
    """
    if value < lower:
        return 0.0
    return (value - lower) / (1.0 - lower) * 100.0


def check_fraction(value: Any, *, path: str | None = None, where: str | None = None) -> float:
    """Return ``value`` as a float if it is a finite real number in [0, 1], else raise.

    Booleans and strings (lm-eval writes ``"N/A"`` for some stderr values) are rejected, as
    are NaN/inf and numbers outside [0, 1].
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScorekitError(
            f"expected a number (a fraction in [0, 1]), got {type(value).__name__} {value!r}",
            path=path,
            where=where,
        )
    value = float(value)
    if math.isnan(value):
        raise ScorekitError("value is NaN, expected a fraction in [0, 1]", path=path, where=where)
    if not 0.0 <= value <= 1.0:
        raise ScorekitError(f"value {value!r} is outside [0, 1], expected a fraction", path=path, where=where)
    return value


@dataclass(frozen=True)
class Part:
    """One raw value feeding a column: ``results[results_key][metric]`` with its chance level.

    ``stderr_key`` is the metric's stderr key in the same results entry (:func:`stderr_key`),
    derived once here rather than for every model."""

    results_key: str
    metric: str
    lower: float
    stderr_key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stderr_key", stderr_key(self.metric))


@dataclass(frozen=True)
class Benchmark:
    """One leaderboard column: its parts and how they combine (see module docstring)."""

    column: str
    parts: tuple[Part, ...]
    aggregation: str = "normalize_each"
    # sizes of the subtasks of a size-weighted group (results_key), for deriving the group's
    # value when a results file holds none: ((subtask, number of documents), ...)
    subtask_sizes: tuple[tuple[str, int], ...] = ()

    def combine(self, values: list[float]) -> tuple[float, float]:
        """``(normalized score, raw value)`` from the raw values of :attr:`parts`, in order."""
        n = len(values)
        raw = sum(values) / n
        if self.aggregation == "mean_raw":
            return normalize(raw, self.parts[0].lower), raw
        score = sum(normalize(v, p.lower) for v, p in zip(values, self.parts)) / n
        return score, raw

    def combine_stderr(self, stderrs: list[float]) -> float:
        """Stderr of the normalized score from the parts' stderr (nan when any is unknown).

        ``normalize_each``: the parts are different questions (BBH's subtasks), so their errors
        are independent: sqrt(sum_i (se_i * 100 / (1 - lower_i))^2) / n. ``mean_raw``: the
        parts are scored on the same questions (IFEval's prompt and instruction level), so
        they are taken as fully correlated (an upper bound): mean(se_i) * 100 / (1 - lower).
        The clamp at 0 keeps the scaled stderr (:func:`scorekit.metrics.intervals.normalized_stderr`).
        """
        from scorekit.metrics.intervals import mean_stderr, normalized_stderr  # numpy: imported on first use

        if self.aggregation == "mean_raw":
            return normalized_stderr(0.0, sum(stderrs) / len(stderrs), self.parts[0].lower)
        return mean_stderr([normalized_stderr(0.0, se, p.lower) for se, p in zip(stderrs, self.parts)])


@dataclass(frozen=True)
class NormalizationConfig:
    """A named set of columns; ``average`` names the plain-mean column (None: no average)."""

    name: str
    benchmarks: tuple[Benchmark, ...]
    average: str | None = "Average"
    harness: str = "any"
    source: str | None = None

    @property
    def columns(self) -> list[str]:
        return [b.column for b in self.benchmarks]


_TOP_KEYS = {"name", "description", "harness", "average", "benchmarks"}
_BENCH_KEYS = {
    "column", "description", "results_key", "subtasks", "metric", "metrics", "num_choices", "lower", "aggregation",
    "subtask_sizes",
}
_SUB_KEYS = {"num_choices", "lower", "metric", "metrics"}
HARNESSES = ("lm-eval", "lighteval", "any")


def load_config(path: str | os.PathLike[str]) -> NormalizationConfig:
    """Read and validate a normalization config (YAML, see :mod:`scorekit.aggregate.yaml_config`).

    Every problem raises :class:`ScorekitError` naming the file and the place, e.g.
    ``benchmarks[1] (BBH).subtasks.leaderboard_bbh_navigate.num_choices``.
    """
    path = Path(path)
    return config_from_dict(read_yaml(path), path=str(path))


def config_from_dict(data: Any, *, path: str | None = None) -> NormalizationConfig:
    """Validate an already-parsed config mapping (see :func:`load_config`)."""

    def fail(msg: str, where: str | None = None) -> ScorekitError:
        return ScorekitError(msg, path=path, where=where)

    if data is None:
        raise fail("config is empty")
    if not isinstance(data, dict):
        raise fail(f"expected a mapping at the top level, got {_kind(data)}")
    unknown = sorted(set(map(str, data)) - _TOP_KEYS)
    if unknown:
        raise fail(f"unknown key(s) {unknown}; allowed: {sorted(_TOP_KEYS)}")
    name = data.get("name", Path(path).stem if path else "config")
    if not isinstance(name, str) or not name:
        raise fail("expected a non-empty string", "name")
    harness = data.get("harness", "any")
    if harness not in HARNESSES:
        raise fail(f"expected one of {list(HARNESSES)}, got {harness!r}", "harness")
    average = data.get("average", "Average")
    if average is not None and (not isinstance(average, str) or not average):
        raise fail("expected a column name (string) or null for no average column", "average")
    benches = data.get("benchmarks")
    if not isinstance(benches, list) or not benches:
        raise fail(f"expected a non-empty list of benchmarks, got {_kind(benches)}", "benchmarks")
    parsed: list[Benchmark] = []
    seen: set[str] = set()
    for i, item in enumerate(benches):
        bench = _parse_benchmark(item, f"benchmarks[{i}]", fail)
        if bench.column in seen or bench.column == average:
            raise fail(f"duplicate column name {bench.column!r}", f"benchmarks[{i}].column")
        seen.add(bench.column)
        parsed.append(bench)
    return NormalizationConfig(name=name, benchmarks=tuple(parsed), average=average, harness=harness, source=path)


def _parse_benchmark(item: Any, where: str, fail) -> Benchmark:
    if not isinstance(item, dict):
        raise fail(f"expected a mapping, got {_kind(item)}", where)
    column = item.get("column")
    if not isinstance(column, str) or not column.strip():
        raise fail("expected a non-empty column name", f"{where}.column")
    where = f"{where} ({column})"
    unknown = sorted(set(map(str, item)) - _BENCH_KEYS)
    if unknown:
        raise fail(f"unknown key(s) {unknown}; allowed: {sorted(_BENCH_KEYS)}", where)
    aggregation = item.get("aggregation", "normalize_each")
    if aggregation not in AGGREGATIONS:
        raise fail(f"expected one of {list(AGGREGATIONS)}, got {aggregation!r}", f"{where}.aggregation")
    default_metrics = _parse_metrics(item, where, fail, required=False)
    default_lower = _parse_lower(item, where, fail, required=False)

    has_key, has_subs = "results_key" in item, "subtasks" in item
    if has_key == has_subs:
        raise fail("give exactly one of 'results_key' (one task) or 'subtasks' (several)", where)
    if has_key:
        key = item["results_key"]
        if not isinstance(key, str) or not key:
            raise fail("expected a non-empty string", f"{where}.results_key")
        entries: list[tuple[str, Any, str]] = [(key, {}, f"{where}")]
    else:
        subs = item["subtasks"]
        if isinstance(subs, list) and subs:
            entries = []
            for j, key in enumerate(subs):
                if not isinstance(key, str) or not key:
                    raise fail(f"expected a results key (string), got {_kind(key)}", f"{where}.subtasks[{j}]")
                entries.append((key, {}, f"{where}.subtasks[{j}]"))
        elif isinstance(subs, dict) and subs:
            entries = [(str(k), v, f"{where}.subtasks.{k}") for k, v in subs.items()]
        else:
            raise fail("expected a non-empty list or mapping of results keys", f"{where}.subtasks")

    parts: list[Part] = []
    for key, spec, place in entries:
        if spec is None:
            spec = {}
        if not isinstance(spec, dict):
            raise fail(f"expected a mapping with num_choices or lower, got {_kind(spec)}", place)
        unknown = sorted(set(map(str, spec)) - _SUB_KEYS)
        if unknown:
            raise fail(f"unknown key(s) {unknown}; allowed: {sorted(_SUB_KEYS)}", place)
        metrics = _parse_metrics(spec, place, fail, required=False) or default_metrics
        if not metrics:
            raise fail("no metric: give 'metric' (or 'metrics') here or on the benchmark", place)
        lower = _parse_lower(spec, place, fail, required=False)
        if lower is None:
            lower = default_lower
        if lower is None:
            raise fail("no lower bound: give 'num_choices' or 'lower' here or on the benchmark", place)
        parts.extend(Part(key, m, lower) for m in metrics)
    if len({(p.results_key, p.metric) for p in parts}) != len(parts):
        raise fail("the same results key and metric appear twice", where)
    if aggregation == "mean_raw" and len({p.lower for p in parts}) > 1:
        raise fail("aggregation 'mean_raw' needs one lower bound shared by all parts", f"{where}.aggregation")
    sizes: tuple[tuple[str, int], ...] = ()
    if "subtask_sizes" in item:
        raw = item["subtask_sizes"]
        if not has_key:
            raise fail("'subtask_sizes' needs 'results_key' (the group they make up)", f"{where}.subtask_sizes")
        if not isinstance(raw, dict) or not raw:
            raise fail(f"expected a mapping of subtask -> number of documents, got {_kind(raw)}", f"{where}.subtask_sizes")
        for k, v in raw.items():
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise fail(f"expected an integer >= 1, got {v!r}", f"{where}.subtask_sizes.{k}")
        sizes = tuple((str(k), v) for k, v in raw.items())
    return Benchmark(column=column.strip(), parts=tuple(parts), aggregation=aggregation, subtask_sizes=sizes)


def _parse_metrics(spec: dict, where: str, fail, *, required: bool) -> list[str] | None:
    if "metric" in spec and "metrics" in spec:
        raise fail("give 'metric' or 'metrics', not both", where)
    if "metric" in spec:
        m = spec["metric"]
        if not isinstance(m, str) or not m:
            raise fail(f"expected a metric key (string), got {_kind(m)}", f"{where}.metric")
        return [m]
    if "metrics" in spec:
        ms = spec["metrics"]
        if not isinstance(ms, list) or not ms or not all(isinstance(m, str) and m for m in ms):
            raise fail("expected a non-empty list of metric keys (strings)", f"{where}.metrics")
        if len(set(ms)) != len(ms):
            raise fail("a metric key is listed twice", f"{where}.metrics")
        return list(ms)
    if required:
        raise fail("missing 'metric'", where)
    return None


def _parse_lower(spec: dict, where: str, fail, *, required: bool) -> float | None:
    if "num_choices" in spec and "lower" in spec:
        raise fail("give 'num_choices' or 'lower', not both", where)
    if "num_choices" in spec:
        n = spec["num_choices"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 2:
            raise fail(f"expected an integer >= 2, got {n!r}", f"{where}.num_choices")
        return lower_from_choices(n)
    if "lower" in spec:
        lo = spec["lower"]
        if isinstance(lo, bool) or not isinstance(lo, (int, float)):
            raise fail(f"expected a number in [0, 1), got {_kind(lo)} {lo!r}", f"{where}.lower")
        lo = float(lo)
        if math.isnan(lo) or not 0.0 <= lo < 1.0:
            raise fail(f"expected a number in [0, 1), got {lo!r}", f"{where}.lower")
        return lo
    if required:
        raise fail("missing 'num_choices' or 'lower'", where)
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "a string"}.get(type(value), type(value).__name__)
