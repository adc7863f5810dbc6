"""Metrics over the log-probabilities l_1..l_C of the C choices of one question and its gold set G.

``gold`` is one choice index or a non-empty collection of them. ``-inf`` log-probs (probability 0)
are allowed; NaN and +inf are not. Rank ties are broken by choice order (the earlier choice
ranks higher), the same rule as ``numpy.argmax`` and lm-eval's ``acc``.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from scorekit.metrics.specs import metric_spec

__all__ = [
    "normalized_mc_probability", "gold_probability", "loglikelihood_accuracy", "recall_at_k", "reciprocal_rank",
    "gold_ranks",
]


def _inputs(logprobs: Any, gold: int | Collection[int]) -> tuple[np.ndarray, np.ndarray]:
    lp = np.asarray(logprobs, dtype=np.float64)
    if lp.ndim != 1 or lp.size == 0:
        raise ValueError(f"logprobs must be a non-empty 1-D sequence, got shape {lp.shape}")
    if np.isnan(lp).any() or np.isposinf(lp).any():
        raise ValueError("logprobs contain NaN or +inf")
    if isinstance(gold, (bool, np.bool_)):
        raise TypeError("gold must be an int or a collection of ints, not a bool")
    golds = np.atleast_1d(np.asarray(gold))
    if golds.size == 0:
        raise ValueError("gold is empty")
    if golds.ndim != 1 or not np.issubdtype(golds.dtype, np.integer):
        raise TypeError(f"gold must be an int or a collection of ints, got {gold!r}")
    if golds.min() < 0 or golds.max() >= lp.size:
        raise ValueError(f"gold index {gold!r} out of range for {lp.size} choices")
    return lp, np.unique(golds)


@metric_spec(kind="multiple_choice")
def normalized_mc_probability(logprobs: Any, gold: int | Collection[int]) -> float:
    """max_{g in G} exp(l_g) / sum_j exp(l_j), computed as e_g / sum_j e_j with e_j = exp(l_j - max l).

    The shift keeps every e_j in [0, 1] with the largest exactly 1, so nothing underflows at
    log-probs such as -1000 or -1e6, and the relative error is a few units in the last place
    (<= 1e-15), not the ~1e-13 of exp(l_g - logsumexp(l)). Over all choices these probabilities
    sum to 1. All choices at -inf: ValueError.

    >>> normalized_mc_probability([-1000.0, -1000.0, -1000.0, -1000.0], 2)
    0.25
    >>> normalized_mc_probability([-1e6, -1e6 - 1.0], [0, 1])  # several golds: the best one
    0.7310585786300049
    """
    lp, golds = _inputs(logprobs, gold)
    top = lp.max()
    if np.isneginf(top):
        raise ValueError("every choice has log-probability -inf; the normalized probability is undefined")
    shifted = np.exp(lp - top)
    return float(shifted[golds].max() / shifted.sum())


@metric_spec(kind="multiple_choice")
def gold_probability(logprobs: Any, gold: int | Collection[int]) -> float:
    """max_{g in G} exp(l_g): the unnormalized probability of the best gold continuation.

    >>> gold_probability([-1.2, -0.4, -2.5], 1)  # exp(-0.4)
    0.6703200460356393
    """
    lp, golds = _inputs(logprobs, gold)
    return float(np.exp(lp[golds].max()))


def gold_ranks(logprobs: Any, gold: int | Collection[int]) -> np.ndarray:
    """1-based rank of each gold index (sorted): 1 + #{j : l_j > l_g} + #{j < g : l_j = l_g}.

    >>> gold_ranks([-1.2, -0.4, -2.5], [0, 2])
    array([2, 3])
    """
    lp, golds = _inputs(logprobs, gold)
    lg = lp[golds][:, None]
    idx = np.arange(lp.size)[None, :]
    return 1 + ((lp[None, :] > lg) | ((lp[None, :] == lg) & (idx < golds[:, None]))).sum(axis=1)


@metric_spec(kind="multiple_choice")
def loglikelihood_accuracy(logprobs: Any, gold: int | Collection[int]) -> float:
    """1[argmax_i l_i in G], the first maximal choice winning ties (numpy.argmax).

    >>> loglikelihood_accuracy([-1.2, -0.4, -2.5], 1), loglikelihood_accuracy([-1.2, -0.4, -2.5], [0, 2])
    (1.0, 0.0)
    """
    return 1.0 if gold_ranks(logprobs, gold).min() == 1 else 0.0


@metric_spec(kind="multiple_choice", column="recall@{k}")
def recall_at_k(logprobs: Any, gold: int | Collection[int], k: int) -> float:
    """1[G intersects the top-k choices], the top-k taken by l with ties broken by choice order.

    k >= number of choices gives 1. k < 1: ValueError. k = 1 equals loglikelihood_accuracy.

    >>> recall_at_k([-1.2, -0.4, -2.5], 0, 1), recall_at_k([-1.2, -0.4, -2.5], 0, 2)
    (0.0, 1.0)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}")
    return 1.0 if gold_ranks(logprobs, gold).min() <= k else 0.0


@metric_spec("mrr", kind="multiple_choice")
def reciprocal_rank(logprobs: Any, gold: int | Collection[int]) -> float:
    """1 / r with r the 1-based rank of the best-ranked gold (ties broken by choice order).

    The mean of this over questions is MRR. (lighteval's MRR gives tied choices the best rank.)

    >>> reciprocal_rank([-1.2, -0.4, -2.5], 2)
    0.3333333333333333
    """
    return 1.0 / float(gold_ranks(logprobs, gold).min())
