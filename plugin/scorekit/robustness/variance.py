"""Where the spread of correctness comes from: questions, variants, or within (numpy only).

A robustness family with V variants per question (prompts, answer positions, non-greedy runs)
is a crossed design: every question q meets every variant v, n times (n samples per variant;
n = 1 for SCORE's families). y_qvs in {0, 1}. The variance of correctness of one answer (a
random question, one of these V variants at random, a random sample) splits exactly into

- **question**: Var_q(m_q), m_q = the question's mean over variants (how hard questions are);
- **variant**: (1/V) sum_v (m_v - m)^2, m_v = the variant's mean over questions (these V
  prompts or positions are the variants of interest: a fixed factor, hence 1/V);
- **within**: the rest, E[p_qv (1 - p_qv)] (sampling: a model that is not sure) plus the
  question x variant interaction (a prompt that helps on some questions, hurts on others).

Estimates: the two-way ANOVA of the balanced Q x V table with n replicates (mean squares MS_Q,
MS_V, MS_QV on the cell means x n, MS_W of the replicates; Searle, Casella & McCulloch 1992,
ch. 4), by the method of moments for questions random and variants fixed:

- n >= 2: question = (MS_Q - MS_W) / (V n); variant = (V - 1)/V (MS_V - MS_QV) / (Q n);
  within = MS_W + (V - 1)/V (MS_QV - MS_W) / n;
- n = 1 (sampling and interaction cannot be told apart): question = (MS_Q - MS_QV) / V;
  variant = (V - 1)/V (MS_V - MS_QV) / Q; within = MS_QV (biased up, and question down, by
  interaction / (V - 1): small when a prompt's effect is much the same on every question).

Negative estimates are set to 0; the shares are the three divided by their sum (so they sum
to 1). Intervals: the expanded-percentile bootstrap over questions (variants fixed, questions
the sample), on per-question sufficient statistics, so a draw costs O(Q V) once and O(V) after
(:func:`scorekit.metrics.intervals.bootstrap_intervals`). Coverage measured by simulation with
known components in docs/uncertainty.md (bench/sim_variance.py). Fewer than 2 questions or
variants, or no variation at all: nan.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["COMPONENTS", "anova_components", "variance_shares", "family_variance_shares"]

COMPONENTS = ("question", "variant", "within")


def _per_question(y: np.ndarray) -> np.ndarray:
    """Rows [ybar_q, ybar_q^2, sum_v (c_qv - ybar_q)^2, within-cell SS, c_q1 .. c_qV] (c: cell means)."""
    cells = y.mean(axis=2)
    ybar = cells.mean(axis=1)
    s1 = ((cells - ybar[:, None]) ** 2).sum(axis=1)
    ssw = ((y - cells[:, :, None]) ** 2).sum(axis=(1, 2))
    return np.column_stack([ybar, ybar**2, s1, ssw, cells])


def _components(means: np.ndarray, q: int, v: int, n: int) -> np.ndarray:
    """(..., 3) components from column means of :func:`_per_question` rows over q questions."""
    m1, m2, ms1, mw, cbar = means[..., 0], means[..., 1], means[..., 2], means[..., 3], means[..., 4:]
    col = ((cbar - m1[..., None]) ** 2).sum(axis=-1)
    ms_q = v * n * q * (m2 - m1**2) / (q - 1)
    ms_v = q * n * col / (v - 1)
    ms_qv = n * (q * ms1 - q * col) / ((q - 1) * (v - 1))
    shrink = (v - 1) / v
    variant = shrink * (ms_v - ms_qv) / (q * n)
    if n >= 2:
        ms_w = q * mw / (q * v * (n - 1))
        question = (ms_q - ms_w) / (v * n)
        within = ms_w + shrink * (ms_qv - ms_w) / n
    else:
        question = (ms_q - ms_qv) / v
        within = ms_qv
    return np.maximum(np.stack([question, variant, within], axis=-1), 0.0)


def anova_components(y: Any) -> dict[str, float]:
    """Variance components (not shares) of a (Q, V) or (Q, V, n) array, as in the module docstring.

    >>> a, b = np.array([0.1, 0.5, 0.9]), np.array([0.0, 0.2])   # y = a_q + b_v, nothing within
    >>> {k: round(x, 6) for k, x in anova_components(a[:, None] + b[None, :]).items()}
    {'question': 0.16, 'variant': 0.01, 'within': 0.0}
    """
    x = _as_design(y)
    q, v, n = x.shape
    if q < 2 or v < 2:
        return {k: math.nan for k in COMPONENTS}
    means = _per_question(x).mean(axis=0)[None, :]
    return dict(zip(COMPONENTS, (float(c) for c in _components(means, q, v, n)[0])))


def _as_design(y: Any) -> np.ndarray:
    x = np.asarray(y, dtype=np.float64)
    if x.ndim == 2:
        x = x[:, :, None]
    if x.ndim != 3:
        raise ValueError("y must be (questions, variants) or (questions, variants, samples)")
    return x


def variance_shares(y: Any, *, confidence: float = 0.95, n_boot: int = 2000,
                    seed: int | None = 0) -> dict[str, dict[str, float]]:
    """``{"question"|"variant"|"within": {"value", "ci_low", "ci_high"}}``: shares of the variance
    of correctness (values sum to 1), intervals by the bootstrap over questions."""
    from scorekit.metrics.intervals import bootstrap_intervals

    x = _as_design(y)
    q, v, n = x.shape
    nan = {k: {"value": math.nan, "ci_low": math.nan, "ci_high": math.nan} for k in COMPONENTS}
    if q < 2 or v < 2:
        return nan

    def share(i: int):
        def stat(means: np.ndarray) -> np.ndarray:
            c = _components(means, q, v, n)
            total = c.sum(axis=-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(total > 0, c[..., i] / total, np.nan)
        return stat

    results = bootstrap_intervals(_per_question(x), [share(i) for i in range(3)], n_boot=n_boot,
                                  confidence=confidence, seed=seed)
    out = {name: {"value": r.estimate, "ci_low": r.ci_low, "ci_high": r.ci_high} for name, r in zip(COMPONENTS, results)}
    if any(math.isnan(out[k]["value"]) for k in COMPONENTS):
        return nan
    return out


def family_variance_shares(records: Sequence[Any], *, samples: int = 1, confidence: float = 0.95,
                           seed: int | None = 0) -> tuple[dict[str, dict[str, float]] | None, int, int]:
    """(:func:`variance_shares` of a family's records, questions used, complete questions left out).

    ``variant = t * samples + s``. The design must be balanced, so only the complete questions
    with the most common variant count are used (MMLU-Pro's option-order family has 10
    positions for most questions, fewer for some: those are left out, and counted). None when
    questions have a single variant (or template)."""
    by_q: dict[str, dict[int, float]] = {}
    n_var: dict[str, int] = {}
    for r in records:
        by_q.setdefault(r.question_id, {})[r.variant] = float(r.correct)
        n_var[r.question_id] = r.n_variants
    complete = [qid for qid, cells in by_q.items() if len(cells) == n_var[qid]]
    if not complete:
        return None, 0, 0
    sizes = [n_var[qid] for qid in complete]
    size = max(sorted(set(sizes)), key=sizes.count)
    per = max(samples, 1)
    if size // per < 2 or size % per:
        return None, 0, 0
    kept = [qid for qid in complete if n_var[qid] == size]
    y = np.array([[by_q[qid][i] for i in range(size)] for qid in kept]).reshape(len(kept), size // per, per)
    return variance_shares(y, confidence=confidence, seed=seed), len(kept), len(complete) - len(kept)
