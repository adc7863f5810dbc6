"""Good/bad threshold scoring and weighted roll-up (ML-PEG's scheme).

Pure numpy functions, no I/O. Throughout, NaN means "no score" (a missing value, a NaN
value, or a node whose children all lack a score); callers keep the reason separately.

- :func:`threshold_score`: ``clip((value - bad) / (good - bad), 0, 1)``, linear between the
  thresholds; ``good < bad`` means lower is better (edge cases: its docstring).
- :func:`weighted_mean`: weighted mean over the entries that have a score and a positive
  weight, renormalized over them (``strict``: ML-PEG's NaN propagation; its docstring).
- :func:`roll_up`: metric scores → group scores through one level of the hierarchy
  (metrics → benchmarks, benchmarks → categories, categories → overall), vectorized over
  models (rows).
- :func:`scorecard_values`: a whole scoring config applied to many models, with the
  missing-value policy and the flags saying what each score was computed without.
- Uncertainty: each metric's stderr from its results entry (``<name>_stderr,<filter>``)
  scaled by 1 / |good - bad| (the clamp keeps it: :func:`scorekit.metrics.intervals.threshold_stderr`),
  rolled up by :func:`roll_up_stderr`; every node carries ``stderr``, ``ci_low``, ``ci_high``
  (95%, cut to [0, scale]) and the model ``overall_stderr`` / ``overall_ci_low`` / ``overall_ci_high``;
  None where a counted stderr is unknown or a custom normalizer scored the metric.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from scorekit.leaderboards.results_files import stderr_key, stderr_value
from scorekit.harness_outputs.keys import find_task_key

if TYPE_CHECKING:
    from scorekit.leaderboards.scorecard_config import ConfigMetric, ScorecardConfig


def threshold_score(value: ArrayLike, good: ArrayLike, bad: ArrayLike) -> np.ndarray | float:
    """Unitless score in [0, 1]: 1 at or beyond ``good``, 0 at or beyond ``bad``.

    score = clip((value - bad) / (good - bad), 0, 1) + 0.0 (the ``+ 0.0`` turns -0.0 into 0.0).
    Inputs broadcast against each other. Where ``good == bad`` the score is 1.0 if
    ``value == good`` else 0.0. NaN values give NaN; ±inf values clip to 0 or 1.
    Returns a Python float when all inputs are scalars, else an array.
    """
    v = np.asarray(value, dtype=float)
    g = np.asarray(good, dtype=float)
    b = np.asarray(bad, dtype=float)
    if np.isnan(g).any() or np.isnan(b).any():
        raise ValueError("thresholds must not be NaN")
    span = g - b
    equal = span == 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # ±inf clips to 0/1
        linear = (v - b) / np.where(equal, 1.0, span)
    score = np.where(equal, (v == g).astype(float), np.clip(linear, 0.0, 1.0))
    score = np.where(np.isnan(v), np.nan, score) + 0.0
    if score.ndim == 0:
        return float(score)
    return score


def weighted_mean(scores: ArrayLike, weights: ArrayLike, *, axis: int = -1,
                  strict: bool = False) -> np.ndarray | float:
    """Weighted mean along ``axis`` ignoring entries without a score (NaN) or with weight 0.

    mean = Σ wᵢ sᵢ / Σ wᵢ over i with wᵢ > 0 and sᵢ not NaN (weights renormalized over the
    entries present). If that set is empty (all weights zero, or nothing scored) → NaN.
    ``strict=True``: an entry with wᵢ > 0 and no score makes the mean NaN.
    ``weights`` broadcasts against ``scores`` (typically one weight per column).
    Returns a Python float for a 1-d input, else an array with ``axis`` removed.
    """
    s = np.asarray(scores, dtype=float)
    w = np.broadcast_to(np.asarray(weights, dtype=float), s.shape)
    if (w < 0).any() or np.isnan(w).any():
        raise ValueError("weights must be non-negative numbers")
    counted = (w > 0) & ~np.isnan(s)
    # Scale weights by their largest counted value first: the mean is scale-invariant, and a
    # tiny (even subnormal) weight must not underflow w*s to 0.
    top = np.where(counted, w, 0.0).max(axis=axis, keepdims=True, initial=0.0)
    scaled = np.where(counted, w / np.where(top > 0, top, 1.0), 0.0)
    total = scaled.sum(axis=axis)
    weighted = np.where(counted, scaled * np.nan_to_num(s), 0.0).sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(total > 0, weighted / np.where(total > 0, total, 1.0), np.nan)
    if strict:
        lacking = ((w > 0) & np.isnan(s)).any(axis=axis)
        mean = np.where(lacking, np.nan, mean)
    if mean.ndim == 0:
        return float(mean)
    return mean


def roll_up(scores: ArrayLike, groups: Sequence[Sequence[int]], weights: ArrayLike, *,
            strict: bool = False) -> np.ndarray:
    """One level of the hierarchy: ``scores`` (models × children) → (models × groups).

    ``groups[j]`` lists the child columns of group j; ``weights[i]`` is child i's weight, or
    ``weights[m, i]`` child i's weight for model m (models × children).
    Each group score is :func:`weighted_mean` over its children (see there for NaN and
    renormalization). A group with no children has no score (NaN).
    """
    s = np.atleast_2d(np.asarray(scores, dtype=float))
    w = _child_weights(weights, s)
    out = np.full((s.shape[0], len(groups)), np.nan)
    for j, children in enumerate(groups):
        idx = np.asarray(children, dtype=int)
        if idx.size:
            out[:, j] = weighted_mean(s[:, idx], w[:, idx], axis=1, strict=strict)
    return out


def _child_weights(weights: ArrayLike, scores: np.ndarray) -> np.ndarray:
    """``weights`` (children,) or (models, children) as a (models, children) array."""
    w = np.asarray(weights, dtype=float)
    if w.shape not in ((scores.shape[1],), scores.shape):
        raise ValueError(f"expected {scores.shape[1]} weights, got shape {w.shape}")
    return np.broadcast_to(w, scores.shape)


def roll_up_stderr(scores: ArrayLike, stderrs: ArrayLike, groups: Sequence[Sequence[int]],
                   weights: ArrayLike) -> np.ndarray:
    """Stderr of each group score of :func:`roll_up` (children independent: different metrics
    and benchmarks): sqrt(sum_i (w_i se_i)^2) / sum_i w_i over the counted children (w_i > 0,
    a score present), the same renormalized weights as :func:`weighted_mean`. NaN when a
    counted child's stderr is unknown, or nothing is counted.
    """
    s = np.atleast_2d(np.asarray(scores, dtype=float))
    se = np.atleast_2d(np.asarray(stderrs, dtype=float))
    w = _child_weights(weights, s)
    out = np.full((s.shape[0], len(groups)), np.nan)
    for j, children in enumerate(groups):
        idx = np.asarray(children, dtype=int)
        if not idx.size:
            continue
        counted = (w[:, idx] > 0) & ~np.isnan(s[:, idx])
        ww = np.where(counted, w[:, idx], 0.0)
        total = ww.sum(axis=1)
        unknown = (counted & np.isnan(se[:, idx])).any(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.sqrt(np.where(counted, (ww * np.nan_to_num(se[:, idx])) ** 2, 0.0).sum(axis=1)) / total
        out[:, j] = np.where(unknown | (total <= 0), np.nan, value)
    return out


# --- scoring models against a config -------------------------------------------------------

MISSING_POLICIES = ("partial", "strict")

# Why a metric has no score (the value of each ``missing`` entry in the output).
NOT_FOUND = "not in results"
NAN_VALUE = "value is NaN"
NO_SCORE = "normalizer gave no score"
NOT_ASKED = "not asked (budgeted run)"


class BadValue(ValueError):
    """A results value that cannot be scored; ``task`` is the results key it was read from."""

    def __init__(self, message: str, model: str, task: str | None = None):
        super().__init__(message)
        self.model = model
        self.task = task


class NormalizerError(ValueError):
    """A custom normalizer raised, or returned something other than a number in [0, 1]."""


def lookup_value(tasks: Mapping[str, Mapping[str, Any]], keys: Sequence[tuple[str, str]],
                 newest: Callable[[str], Any] | None = None) -> tuple[Any, str | None, str | None]:
    """First present ``(task, metric)`` of ``keys`` in one model's ``{task: {metric: value}}``.

    A task is found by :func:`scorekit.harness_outputs.find_task_key`: its exact key, else a
    key that matches it (``gsm8k``, ``lighteval|gsm8k`` and ``lighteval|gsm8k|5`` all match
    ``lighteval|gsm8k|5`` and ``gsm8k|5``); of several matching keys the one with the largest
    ``newest(key)`` (the run time of its file; default: the largest key) is used.
    Returns ``(value, task key, metric key)``, or ``(None, None, None)`` when nothing is found.
    """
    for task, metric in keys:
        found = find_task_key(tasks, task, newest or (lambda k: 0))
        key = found[0] if found else None
        if key is not None and isinstance(tasks[key], (dict, Mapping)) and metric in tasks[key]:
            return tasks[key][metric], key, metric
    return None, None, None


def scorecard_values(config: "ScorecardConfig", models: Mapping[str, Mapping[str, Mapping[str, Any]]], *,
                 missing: str = "partial",
                 newest: Mapping[str, Callable[[str], Any]] | None = None,
                 unasked: Mapping[str, Collection[str]] | None = None) -> list[dict[str, Any]]:
    """Score every model of ``models`` (``{model: {task: {metric: value}}}``) with ``config``.

    Metric score: ``threshold_score(value, good, bad)``, or the metric's custom normalizer,
    times ``config.scale``. Roll-up metric → benchmark → category → overall with :func:`roll_up`;
    a benchmark with ``aggregation: mean_value`` instead scores the weighted mean of its metric
    values once (its metrics share good and bad), its stderr the weighted mean of theirs (the
    metrics are read on the same questions: fully correlated, an upper bound).
    Missing-value policy (``missing``):

    - ``"partial"`` (default): a metric without a score (absent from the results, NaN value, or
      no score from a normalizer) is left out and the remaining weights renormalized; every
      node above it lists it under ``missing`` (so a score computed without it is visibly
      partial). A node whose counted children all lack a score has no score (None).
    - ``"strict"``: a metric without a score gives its benchmark, category and the overall
      no score (None), like NaN propagation in ML-PEG; ``missing`` lists the cause.

    Only metrics that count (positive weights all the way up) are listed in a node's
    ``missing``. Raises :class:`BadValue` for a non-numeric value (the caller names the file)
    and :class:`NormalizerError` for a normalizer that fails or returns something outside [0, 1].
    ``newest`` maps a model to the run time of each of its keys (see :func:`lookup_value`).
    ``unasked`` maps a model to the metric paths whose NaN is a variant its budgeted run asked
    no question (:mod:`scorekit.leaderboards.scorecard`): under either policy such a metric weighs
    0 for that model (its benchmark is the mean of the others), and it is not listed as missing.
    Returns one dict per model, in the order of ``models`` (JSON-ready, None for no score).
    """
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing policy must be one of {MISSING_POLICIES}, got {missing!r}")
    strict = missing == "strict"
    metrics = config.metrics
    names = list(models)
    n, m = len(names), len(metrics)
    values = np.full((n, m), np.nan)
    reasons: list[list[str | None]] = [[None] * m for _ in range(n)]
    sources: list[list[str | None]] = [[None] * m for _ in range(n)]
    raw: list[list[Any]] = [[None] * m for _ in range(n)]
    value_se = np.full((n, m), np.nan)
    metric_w = np.tile(np.array([s.weight for s in metrics], dtype=float), (n, 1))
    for i, name in enumerate(names):
        for j, spec in enumerate(metrics):
            value, task, metric = lookup_value(models[name], spec.keys, (newest or {}).get(name))
            if spec.path in (unasked or {}).get(name, ()):
                reasons[i][j], metric_w[i, j] = NOT_ASKED, 0.0
                sources[i][j] = f"{task} -> {metric}"
                continue
            if task is None:
                reasons[i][j] = NOT_FOUND
                continue
            sources[i][j] = f"{task} -> {metric}"
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise BadValue(
                    f"model {name!r}, metric {spec.path}: results[{task!r}][{metric!r}] is not a number: {value!r}",
                    name, task,
                )
            raw[i][j] = None if math.isnan(value) else float(value)
            if math.isnan(value):
                reasons[i][j] = NAN_VALUE
            else:
                values[i, j] = float(value)
                value_se[i, j] = stderr_value(models[name][task].get(stderr_key(metric)))

    good = np.array([s.good for s in metrics], dtype=float)
    bad = np.array([s.bad for s in metrics], dtype=float)
    scale = config.scale
    scores = np.atleast_2d(threshold_score(values, good, bad)).reshape(n, m) * scale
    for j, spec in enumerate(metrics):
        if spec.normalizer is not None:
            for i in range(n):
                if reasons[i][j] is None:
                    scores[i, j] = _custom_score(spec, names[i], values[i, j]) * scale
                    if math.isnan(scores[i, j]):
                        reasons[i][j] = NO_SCORE

    benches = config.benchmarks
    bench_of_metric = {id(s): k for k, b in enumerate(benches) for s in b.metrics}
    metric_groups = [[j for j, s in enumerate(metrics) if bench_of_metric[id(s)] == k] for k in range(len(benches))]
    bench_groups: list[list[int]] = []
    start = 0
    for cat in config.categories:
        bench_groups.append(list(range(start, start + len(cat.benchmarks))))
        start += len(cat.benchmarks)
    bench_w = np.array([b.weight for b in benches], dtype=float)
    cat_w = np.array([c.weight for c in config.categories], dtype=float)
    bench_scores = roll_up(scores, metric_groups, metric_w, strict=strict)
    # stderr: se / |good - bad| per metric (unknown for custom normalizers), then the same roll-up
    span = np.abs(good - bad)
    with np.errstate(invalid="ignore", divide="ignore"):
        score_se = np.where(span > 0, value_se * scale / np.where(span > 0, span, 1.0), np.nan)
    for j, spec in enumerate(metrics):
        if spec.normalizer is not None:
            score_se[:, j] = np.nan
    bench_se = roll_up_stderr(scores, score_se, metric_groups, metric_w)
    for k, bench in enumerate(benches):
        if bench.aggregation == "mean_value":  # one score of the mean value; stderrs taken as fully correlated
            idx, first = metric_groups[k], bench.metrics[0]
            mean = roll_up(values, [idx], metric_w, strict=strict)[:, 0]
            bench_scores[:, k] = threshold_score(mean, first.good, first.bad) * scale
            counted = (metric_w[:, idx] > 0) & ~np.isnan(values[:, idx])
            se = roll_up(np.where(counted, np.nan_to_num(value_se[:, idx]), np.nan), [list(range(len(idx)))],
                         metric_w[:, idx])[:, 0]
            unknown = (counted & np.isnan(value_se[:, idx])).any(axis=1) | np.isnan(mean) | (span[idx[0]] == 0)
            bench_se[:, k] = np.where(unknown, np.nan, se * scale / np.where(span[idx[0]] > 0, span[idx[0]], 1.0))
    cat_scores = roll_up(bench_scores, bench_groups, bench_w, strict=strict)
    overall = roll_up(cat_scores, [list(range(len(config.categories)))], cat_w, strict=strict)[:, 0]
    cat_se = roll_up_stderr(bench_scores, bench_se, bench_groups, bench_w)
    overall_se = roll_up_stderr(cat_scores, cat_se, [list(range(len(config.categories)))], cat_w)[:, 0]

    from scorekit.metrics.intervals import z_value

    z = z_value(0.95)
    out = []
    for i, name in enumerate(names):
        model_missing: dict[str, str] = {}
        categories: dict[str, Any] = {}
        k = j = 0  # running benchmark / metric column (same order as config.metrics)
        for c_idx, cat in enumerate(config.categories):
            cat_missing: dict[str, str] = {}
            bench_out: dict[str, Any] = {}
            for bench in cat.benchmarks:
                bench_missing: dict[str, str] = {}
                metric_out: dict[str, Any] = {}
                for spec in bench.metrics:
                    reason = reasons[i][j]
                    if reason not in (None, NOT_ASKED) and spec.weight > 0:
                        bench_missing[spec.path] = reason
                    metric_out[spec.name] = _scored(scores[i, j], score_se[i, j], scale, z, value=raw[i][j],
                                                    source=sources[i][j], missing=reason, good=spec.good,
                                                    bad=spec.bad, weight=spec.weight, unit=spec.unit)
                    j += 1
                if bench.weight > 0:
                    cat_missing.update(bench_missing)
                bench_out[bench.name] = _scored(bench_scores[i, k], bench_se[i, k], scale, z, weight=bench.weight,
                                                missing=bench_missing, metrics=metric_out)
                k += 1
            if cat.weight > 0:
                model_missing.update(cat_missing)
            categories[cat.name] = _scored(cat_scores[i, c_idx], cat_se[i, c_idx], scale, z, weight=cat.weight,
                                           missing=cat_missing, benchmarks=bench_out)
        out.append({"model": name, "overall": _opt(overall[i]),
                    **{f"overall_{k}": v for k, v in _uncertainty(overall[i], overall_se[i], scale, z).items()},
                    "partial": bool(model_missing) and not math.isnan(overall[i]), "missing": model_missing,
                    "categories": categories})
    return out


def _custom_score(spec: "ConfigMetric", model: str, value: float) -> float:
    try:
        result = spec.normalizer(float(value), spec.good, spec.bad)
    except (Exception, SystemExit) as exc:  # user code; SystemExit must not end the run silently
        raise NormalizerError(
            f"normalizer {spec.normalizer_name} raised {type(exc).__name__}: {exc} "
            f"(model {model!r}, metric {spec.path}, value {value!r})"
        ) from None
    if result is None:
        return math.nan
    if isinstance(result, bool) or not isinstance(result, (int, float, np.integer, np.floating)):
        raise NormalizerError(
            f"normalizer {spec.normalizer_name} returned {type(result).__name__} {result!r}, expected a number "
            f"in [0, 1] (model {model!r}, metric {spec.path})"
        )
    result = float(result)
    if not math.isnan(result) and not 0.0 <= result <= 1.0:
        raise NormalizerError(
            f"normalizer {spec.normalizer_name} returned {result!r}, outside [0, 1] "
            f"(model {model!r}, metric {spec.path}, value {value!r})"
        )
    return result + 0.0


def _uncertainty(score: float, se: float, scale: float, z: float) -> dict[str, float | None]:
    """``stderr``, ``ci_low``, ``ci_high`` (score -/+ z se, cut to [0, scale]); None when unknown."""
    if math.isnan(score) or math.isnan(se):
        return {"stderr": None, "ci_low": None, "ci_high": None}
    return {"stderr": float(se), "ci_low": float(max(0.0, score - z * se)), "ci_high": float(min(scale, score + z * se))}


def _scored(score: float, se: float, scale: float, z: float, **rest: Any) -> dict[str, Any]:
    """One node of the output: ``scorecard``, its :func:`_uncertainty`, then ``rest`` in order."""
    return {"score": _opt(score), **_uncertainty(score, se, scale, z), **rest}


def _opt(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


score_models = scorecard_values  # the old name, kept for one release
