"""Good/bad threshold scoring and weighted roll-up (the ML-PEG scheme, seed 002).

Pure numpy functions, no I/O. Throughout, NaN means "no score" (a missing value, a NaN
value, or a node whose children all lack a score); callers keep the reason separately.

- :func:`threshold_score`: ``clip((value - bad) / (good - bad), 0, 1)``, linear between the
  thresholds; ``good < bad`` means lower is better. ``good == bad`` gives 1 where
  ``value == good`` and 0 elsewhere. NaN in → NaN out; ``-0.0`` is returned as ``0.0``.
- :func:`weighted_mean`: weighted mean over the entries that have a score and a positive
  weight, the weights renormalized over those entries. No such entry → NaN. With
  ``strict=True`` any positive-weight entry without a score makes the result NaN (ML-PEG's
  NaN propagation).
- :func:`roll_up`: metric scores → group scores through one level of the hierarchy
  (metrics → benchmarks, benchmarks → categories, categories → overall), vectorized over
  models (rows).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.typing import ArrayLike


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
    with np.errstate(divide="ignore", invalid="ignore"):
        linear = (v - b) / np.where(equal, 1.0, span)
    score = np.where(equal, (v == g).astype(float), np.clip(linear, 0.0, 1.0))
    score = np.where(np.isnan(v), np.nan, score) + 0.0
    if score.ndim == 0:
        return float(score)
    return score


def weighted_mean(
    scores: ArrayLike, weights: ArrayLike, *, axis: int = -1, strict: bool = False
) -> np.ndarray | float:
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
    total = np.where(counted, w, 0.0).sum(axis=axis)
    weighted = np.where(counted, w * np.nan_to_num(s), 0.0).sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(total > 0, weighted / np.where(total > 0, total, 1.0), np.nan)
    if strict:
        lacking = ((w > 0) & np.isnan(s)).any(axis=axis)
        mean = np.where(lacking, np.nan, mean)
    if mean.ndim == 0:
        return float(mean)
    return mean


def roll_up(
    scores: ArrayLike,
    groups: Sequence[Sequence[int]],
    weights: ArrayLike,
    *,
    strict: bool = False,
) -> np.ndarray:
    """One level of the hierarchy: ``scores`` (models × children) → (models × groups).

    ``groups[j]`` lists the child columns of group j; ``weights[i]`` is child i's weight.
    Each group score is :func:`weighted_mean` over its children (see there for NaN and
    renormalization). A group with no children has no score (NaN).
    """
    s = np.atleast_2d(np.asarray(scores, dtype=float))
    w = np.asarray(weights, dtype=float)
    if w.shape != (s.shape[1],):
        raise ValueError(f"expected {s.shape[1]} weights, got shape {w.shape}")
    out = np.full((s.shape[0], len(groups)), np.nan)
    for j, children in enumerate(groups):
        idx = np.asarray(children, dtype=int)
        if idx.size:
            out[:, j] = weighted_mean(s[:, idx], w[idx], axis=1, strict=strict)
    return out
