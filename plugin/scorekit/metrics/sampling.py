"""Metrics over n sampled answers per question: pass@k, G-Pass@k_tau, mG-Pass@k, avg@k, maj@k.

pass@k (Chen et al. 2021) and G-Pass@k / mG-Pass@k (Liu et al. 2024, arXiv:2412.13147) view the k
draws as X ~ Hypergeometric(population n, successes c, draws k). All three are computed exactly:
the tail sum_{i>=m} C(c,i) C(n-c,k-i) and C(n,k) are Python integers, and their quotient is one
correctly rounded float division. Each distinct (n, c) pair is evaluated once, so arrays of
100,000 questions with a common n cost a few dozen integer sums.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from scorekit.metrics._validation import int_array, is_unparsed, same_answer
from scorekit.metrics.specs import metric_spec

__all__ = ["pass_at_k", "g_pass_at_k", "mg_pass_at_k", "avg_at_k", "maj_at_k"]


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an int, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return int(k)


def _hypergeom_apply(n: Any, c: Any, k: int, value: Callable[[int, int], float]) -> float | np.ndarray:
    """Broadcast n and c, validate 0 <= c <= n and k <= n, apply ``value(n, c)`` per distinct pair."""
    n_arr, c_arr = int_array(n, "n"), int_array(c, "c")
    n_b, c_b = np.broadcast_arrays(n_arr, c_arr)
    if n_b.size:
        if np.any(c_b > n_b):
            raise ValueError(f"c must be <= n (got n={n!r}, c={c!r})")
        if np.any(n_b < k):
            raise ValueError(f"k={k} is larger than n (got n={n!r}); the metric is only defined for k <= n")
    width = int(c_b.max()) + 1 if c_b.size else 1
    keys = n_b.ravel() * width + c_b.ravel()
    uniq, inverse = np.unique(keys, return_inverse=True)
    vals = np.fromiter((value(int(u // width), int(u % width)) for u in uniq), dtype=np.float64, count=len(uniq))
    out = vals[inverse.ravel()].reshape(n_b.shape)
    return float(out) if out.ndim == 0 else out


def _tail_numerators(n: int, c: int, k: int) -> list[int]:
    """[N_0, ..., N_k] with N_m = sum_{i=m}^{min(c,k)} C(c,i) C(n-c,k-i) (so P[X >= m] = N_m / C(n,k))."""
    terms = [math.comb(c, i) * math.comb(n - c, k - i) for i in range(k, -1, -1)]
    return list(itertools.accumulate(terms))[::-1]


def _threshold(k: int, tau: float) -> int:
    if not 0.0 <= tau <= 1.0:
        raise ValueError(f"tau must be in [0, 1], got {tau!r}")
    # round first so that e.g. 0.7 * 10 = 7.000000000000001 still needs 7 successes, not 8
    return max(math.ceil(round(tau * k, 9)), 1)


@metric_spec(kind="generate", column="pass@{k}")
def pass_at_k(n: Any, c: Any, k: int) -> float | np.ndarray:
    """Unbiased pass@k = 1 - C(n-c, k) / C(n, k) (Chen et al. 2021): the probability that k of the
    n samples, drawn without replacement, include at least one of the c correct ones.

    ``n`` and ``c`` broadcast (ints or integer arrays); returns a float for scalars, else an array.
    Edge cases: 1 when n - c < k; 0 when c = 0. ValueError when k > n, c > n, or k < 1.

    >>> pass_at_k(10, 3, 2)  # 10 samples, 3 correct
    0.5333333333333333
    >>> pass_at_k([5, 5], [0, 5], 1)
    array([0., 1.])
    """
    k = _check_k(k)
    return _hypergeom_apply(n, c, k, lambda nn, cc: (math.comb(nn, k) - math.comb(nn - cc, k)) / math.comb(nn, k))


@metric_spec(kind="generate", column="g-pass@{k}_{tau}")
def g_pass_at_k(n: Any, c: Any, k: int, tau: float) -> float | np.ndarray:
    """G-Pass@k_tau = P[X >= m], X ~ Hypergeometric(n, c, k), m = max(ceil(tau * k), 1).

    The probability that at least a fraction tau of k samples drawn from the n are correct.
    tau = 0 gives pass@k exactly; tau = 1 gives C(c, k) / C(n, k). ``tau * k`` is rounded to 9
    decimals before the ceiling (0.7 * 10 counts as 7). Broadcasting and errors as
    :func:`pass_at_k`; ValueError for tau outside [0, 1].

    >>> g_pass_at_k(10, 3, 2, 1.0)  # both of 2 drawn samples correct: C(3,2)/C(10,2)
    0.06666666666666667
    >>> g_pass_at_k(10, 3, 2, 0.0) == pass_at_k(10, 3, 2)
    True
    """
    k = _check_k(k)
    m = _threshold(k, float(tau))
    return _hypergeom_apply(n, c, k, lambda nn, cc: _tail_numerators(nn, cc, k)[m] / math.comb(nn, k))


@metric_spec(kind="generate", column="mg-pass@{k}")
def mg_pass_at_k(n: Any, c: Any, k: int) -> float | np.ndarray:
    """mG-Pass@k = (2/k) * sum_{i = ceil(k/2)+1}^{k} P[X >= i], X ~ Hypergeometric(n, c, k).

    A discrete form of the integral of G-Pass@k_tau over tau in [0.5, 1]. With every sample
    correct it equals 2 * (k - ceil(k/2)) / k: 1 for even k but 2/3 for k = 3 and 0.8 for k = 5.
    k = 1 gives 0 (the sum is empty). Broadcasting and errors as :func:`pass_at_k`.

    >>> mg_pass_at_k(10, 8, 4)
    0.6
    """
    k = _check_k(k)
    lo = math.ceil(k / 2) + 1

    def value(nn: int, cc: int) -> float:
        tails = _tail_numerators(nn, cc, k)
        return (2 * sum(tails[lo:])) / (k * math.comb(nn, k))

    return _hypergeom_apply(n, c, k, value)


@metric_spec(kind="generate", column="avg@{k}")
def avg_at_k(scores: Any, k: int | None = None) -> float | np.ndarray:
    """avg@k = (1/k) * sum_{i=1}^{k} s_i: the mean score of the first k samples (sample order).

    ``scores`` has samples on the last axis (shape (n,) for one question, (Q, n) for Q questions;
    a float is returned for 1-D input, an array of Q values otherwise). k defaults to n.
    ValueError when k > n or k < 1, or when a score is NaN.

    >>> avg_at_k([1, 0, 1, 1], 2)
    0.5
    >>> avg_at_k([[1, 0, 1, 1], [0, 0, 1, 1]])
    array([0.75, 0.5 ])
    """
    arr = np.asarray(scores, dtype=np.float64)
    if arr.ndim == 0:
        raise ValueError("scores must have the samples on an axis, got a scalar")
    n = arr.shape[-1]
    k = n if k is None else _check_k(k)
    if k > n:
        raise ValueError(f"k={k} is larger than the number of samples ({n})")
    if np.isnan(arr[..., :k]).any():
        raise ValueError("scores contain NaN")
    out = arr[..., :k].mean(axis=-1)
    return float(out) if out.ndim == 0 else out


@metric_spec(kind="generate", column="maj@{k}")
def maj_at_k(answers: Sequence[Any], gold: Any, k: int | None = None, *,
             equal: Callable[[Any, Any], bool] | None = None) -> float:
    """maj@k = 1 if the majority answer among the first k answers equals ``gold``, else 0.

    Answers should already be normalized (e.g. extracted final answers). The support of an
    answer is the number of the first k answers equal to it (itself included); the majority
    answer has the highest support, and among ties the one that comes first wins. Unparsed
    answers (``None``, NaN) are never voted for and support nothing; if all k are unparsed the
    result is 0. ``equal(a, b)`` optionally defines answer equivalence (also used against
    ``gold``); every pair is compared, so the result does not depend on how the answers are
    ordered beyond the tie rule, even when ``equal`` is not transitive. Without ``equal``
    answers are compared as dictionary keys (``==``; ``numpy.array_equal`` for unhashable
    arrays). ValueError when k > len(answers) or k < 1.

    >>> maj_at_k(["7", "5", "7", None], "7")
    1.0
    >>> maj_at_k(["5", "7"], "7")  # a tie: the first answer wins
    0.0
    >>> maj_at_k([float("nan"), float("nan"), "7"], "7")  # NaN is never voted for
    1.0
    """
    answers = list(answers)
    k = len(answers) if k is None else _check_k(k)
    if k > len(answers) or k < 1:
        raise ValueError(f"k={k} needs at least k answers, got {len(answers)}")
    voted = [a for a in answers[:k] if not is_unparsed(a)]
    if not voted or is_unparsed(gold):
        return 0.0
    support = None
    if equal is None:
        try:
            counts = Counter(voted)
            support = [counts[a] for a in voted]
        except TypeError:  # unhashable answers: compare pairs
            pass
    eq = equal or same_answer
    if support is None:
        support = [sum(1 for j, b in enumerate(voted) if i == j or eq(a, b)) for i, a in enumerate(voted)]
    winner = voted[support.index(max(support))]  # list.index: the first answer with the highest support
    return 1.0 if eq(winner, gold) else 0.0
