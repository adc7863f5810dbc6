"""Consistency rate (CR) of SCORE (Zhao et al. 2024, arXiv:2403.14221).

For question k with answers Y_k, CR counts the unordered pairs {y_i, y_j} (i < j) of agreeing
answers: agree_k = sum_{i<j} sim(y_i, y_j) out of total_k = C(|Y_k|, 2) pairs.

Unparsed answers: ``None`` and NaN (any value that is not equal to itself: ``float("nan")``,
``numpy.nan``, a NaN of any numpy float type) agree with nothing, not even with themselves;
they still count in total_k. When no question has two parsed answers there is no pair that
could agree, and the rate says nothing about consistency: it is undefined (``nan`` with a
``RuntimeWarning``), never 0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from scorekit.metrics._validation import as_groups, is_unparsed, same_answer, warn_nan
# Fewest questions with pairs for which consistency_rate_interval gives an interval (the rule
# of every resampled interval): its simulated coverage is >= 93% from 10 questions up, and down
# to 91% at 5 (docs/metrics.md).
from scorekit.metrics.intervals import MIN_QUESTIONS
from scorekit.metrics.specs import metric_spec

__all__ = ["consistency_counts", "consistency_rate", "consistency_rate_interval", "consistency_summary",
           "korn_graubard_interval", "MIN_QUESTIONS"]

Equal = Callable[[Any, Any], bool]


def _agree_by_key(groups: list[Sequence[Any]]) -> tuple[np.ndarray, np.ndarray] | None:
    """(agreeing pairs, parsed answers) per question, answers compared as dictionary keys (hash
    and ``==``): sum_i C(m_i, 2) over the count m_i of each distinct parsed answer. None when
    some answer is unhashable."""
    agree, parsed = [], []
    try:
        for group in groups:
            counts = Counter(a for a in group if not is_unparsed(a))
            agree.append(sum(m * (m - 1) // 2 for m in counts.values()))
            parsed.append(sum(counts.values()))
    except TypeError:
        return None
    return np.array(agree, dtype=np.int64), np.array(parsed, dtype=np.int64)


def _agree_pairwise(group: Sequence[Any], equal: Equal) -> tuple[int, int]:
    """(sum_{i<j} equal(y_i, y_j), count) over the parsed answers of one question."""
    parsed = [a for a in group if not is_unparsed(a)]
    return sum(1 for a, b in combinations(parsed, 2) if equal(a, b)), len(parsed)


def _groups(answer_groups: Iterable[Sequence[Any]]) -> list[Sequence[Any]]:
    if isinstance(answer_groups, np.ndarray):
        answer_groups = answer_groups.tolist()  # a 2-D array: one row per question
    return as_groups(answer_groups)


def _counts(groups: list[Sequence[Any]], equal: Equal | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(agreeing pairs, total pairs, parsed answers) per question."""
    lengths = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    counted = _agree_by_key(groups) if equal is None else None
    if counted is None:
        pair_equal = equal or same_answer
        pairs = np.array([_agree_pairwise(g, pair_equal) for g in groups], dtype=np.int64).reshape(-1, 2)
        counted = pairs[:, 0], pairs[:, 1]
    agree, parsed = counted
    return agree, lengths * (lengths - 1) // 2, parsed


def consistency_counts(answer_groups: Iterable[Sequence[Any]], *, equal: Equal | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-question (agreeing pairs, total pairs) as two int64 arrays of length Q.

    total_k = C(|Y_k|, 2), unparsed answers included; agree_k = sum_{i<j} sim(y_i, y_j) over
    the parsed answers. Without ``equal``, sim is dictionary-key equality (hash and ``==``, so
    ``1 == 1.0``), counted as sum_i C(m_i, 2) over the distinct answers; unhashable answers
    (lists, dicts, numpy arrays) are compared pair by pair with ``==`` (``numpy.array_equal``
    for arrays). With ``equal(a, b) -> bool`` every pair is compared, so the count does not
    depend on the order of the answers even when ``equal`` is not transitive (math
    equivalence is not). A 2-D numpy array is read as one row per question. Questions with
    fewer than two answers give (0, 0).

    >>> agree, total = consistency_counts([["A", "A", "B"], ["C", None, None], ["D"]])
    >>> agree.tolist(), total.tolist()
    ([1, 0, 0], [3, 3, 0])
    """
    agree, total, _ = _counts(_groups(answer_groups), equal)
    return agree, total


@metric_spec(kind="corpus", aggregation="consistency_rate")
def consistency_rate(answer_groups: Iterable[Sequence[Any]], *, equal: Equal | None = None, pooled: bool = True) -> float:
    """Consistency rate in [0, 1] (counts as in :func:`consistency_counts`).

    pooled=True (lm-eval's SCORE): sum_k agree_k / sum_k total_k.
    pooled=False (the paper's formula): mean over the questions with at least one pair of
    agree_k / total_k. The two agree when every question has the same number of answers.
    Questions with fewer than two answers add no pairs (and are left out of the mean).
    Undefined (``nan`` with a ``RuntimeWarning``) when no question has a pair, or when no
    question has two parsed answers (every pair involves an unparsed answer).

    >>> consistency_rate([["A", "A"], ["A", "A", "B", "B"]])  # (1 + 2) / (1 + 6)
    0.42857142857142855
    >>> consistency_rate([["A", "A"], ["A", "A", "B", "B"]], pooled=False)  # (1 + 2/6) / 2
    0.6666666666666666
    >>> consistency_rate([["A", "A", None, float("nan")]])  # 1 agreeing pair of 6
    0.16666666666666666
    >>> from fractions import Fraction
    >>> consistency_rate([["0.5", "1/2", "2/4"]], equal=lambda a, b: Fraction(a) == Fraction(b))
    1.0
    """
    return _rate(*_counts(_groups(answer_groups), equal), pooled)


def _rate(agree: np.ndarray, total: np.ndarray, parsed: np.ndarray, pooled: bool) -> float:
    """:func:`consistency_rate` from the per-question counts."""
    has_pairs = total > 0
    if not has_pairs.any():
        return warn_nan("consistency_rate: no question has two or more answers; the rate is undefined (nan)", stacklevel=4)
    if not (parsed >= 2).any():
        return warn_nan("consistency_rate: no question has two parsed answers (all unparsed); "
                        "the rate is undefined (nan), not 0", stacklevel=4)
    if pooled:
        return float(agree.sum() / total.sum())
    return float(np.mean(agree[has_pairs] / total[has_pairs]))


def consistency_rate_interval(answer_groups: Iterable[Sequence[Any]], *, equal: Equal | None = None,
                              pooled: bool = True, confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of :func:`consistency_rate`, with questions as independent clusters.

    Method: the Korn-Graubard (1998) interval for a proportion estimated from a cluster sample
    (the NCHS standard for survey proportions): CR is a proportion of agreeing pairs, and the
    pairs of one question are a cluster. Over the Q' questions with a pair, with N = sum_k total_k:

    - p = the rate; its variance v = Q'/(Q'-1) * sum_k (agree_k - p*total_k)^2 / N^2 when
      pooled (ratio estimator), or var(agree_k/total_k, ddof=1) / Q' when not;
    - effective sample size n = min(p(1-p)/v, N); when the questions show no variation at all
      (every question has the same rate, e.g. all 1) v is 0 and says nothing, so n = Q'
      (for all-1 this bounds the share of fully consistent questions, which never exceeds CR);
    - degrees of freedom: n *= (t_{N-1} / t_{Q'-1})^2 at quantile (1 + confidence)/2;
    - Clopper-Pearson bounds of x = p*n successes in n trials (beta quantiles, real x and n).

    Coverage (simulated, docs/metrics.md): at least 93% at 95% confidence from 10 questions up
    on realistic answer distributions (CR 0.37-0.91, 5 or 10 answers per question); the
    percentile bootstrap used before covered 70-87% at 5 and 87-91% at 10 questions on the same
    distributions. Deterministic:
    no resampling. Fewer than :data:`MIN_QUESTIONS` questions with a pair, or an undefined rate:
    (nan, nan) with a ``RuntimeWarning``, never a zero-width interval.

    >>> groups = [["A", "A", "A", "B", "A"]] * 12 + [["A", "B", "C", "D", "A"]] * 8
    >>> consistency_rate(groups)  # (12 * 6 + 8 * 1) / (20 * 10)
    0.4
    >>> [round(x, 4) for x in consistency_rate_interval(groups)]
    [0.2826, 0.5265]
    >>> consistency_rate_interval([["A", "A", "B"]] * 3)  # 3 questions: a RuntimeWarning
    (nan, nan)
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return _interval(*_counts(_groups(answer_groups), equal), pooled, confidence)


def consistency_summary(answer_groups: Iterable[Sequence[Any]], *, equal: Equal | None = None, pooled: bool = True,
                        confidence: float = 0.95) -> tuple[int, int, float, tuple[float, float]]:
    """(agreeing pairs, total pairs, :func:`consistency_rate`, :func:`consistency_rate_interval`)
    from one count of the answers; the interval of an undefined rate is (nan, nan) with only the
    rate's warning.

    >>> consistency_summary([["A", "A", "B"], ["C", None, None], ["D"]])[:3]
    (1, 6, 0.16666666666666666)
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    agree, total, parsed = _counts(_groups(answer_groups), equal)
    rate = _rate(agree, total, parsed, pooled)
    interval = (rate, rate) if math.isnan(rate) else _interval(agree, total, parsed, pooled, confidence)
    return int(agree.sum()), int(total.sum()), rate, interval


def _interval(agree: np.ndarray, total: np.ndarray, parsed: np.ndarray, pooled: bool,
              confidence: float) -> tuple[float, float]:
    """:func:`consistency_rate_interval` from the per-question counts."""
    has_pairs = total > 0
    n_questions = int(has_pairs.sum())
    if not (parsed >= 2).any():
        nan = warn_nan("consistency_rate_interval: the rate is undefined (no question has two parsed answers); no interval",
                       stacklevel=4)
        return nan, nan
    if n_questions < MIN_QUESTIONS:
        nan = warn_nan(f"consistency_rate_interval: {n_questions} question(s) with pairs; an interval needs at least "
                       f"{MIN_QUESTIONS} (with fewer its coverage drops below 93%); no interval", stacklevel=4)
        return nan, nan
    return _korn_graubard(agree[has_pairs], total[has_pairs], pooled, confidence)


def korn_graubard_interval(agree: Any, total: Any, *, confidence: float = 0.95) -> tuple[float, float]:
    """The pooled rate's interval of :func:`consistency_rate_interval` from per-question counts
    (agreeing pairs, pairs), with no minimum of questions: the caller applies the rule of
    :func:`scorekit.metrics.intervals.unreported`. Questions without pairs are left out;
    none left: (nan, nan).

    >>> [round(x, 4) for x in korn_graubard_interval([6] * 12 + [1] * 8, [10] * 20)]
    [0.2826, 0.5265]
    """
    a, t = np.asarray(agree, dtype=np.int64), np.asarray(total, dtype=np.int64)
    keep = t > 0
    if keep.sum() < 2:
        return math.nan, math.nan
    return _korn_graubard(a[keep], t[keep], True, confidence)


def _korn_graubard(agree: np.ndarray, total: np.ndarray, pooled: bool, confidence: float) -> tuple[float, float]:
    """The interval of :func:`consistency_rate_interval` from the counts of questions with pairs."""
    from scipy.special import betaincinv, stdtrit

    q, n_pairs = len(total), float(total.sum())
    a, t = agree.astype(np.float64), total.astype(np.float64)
    if pooled:
        p = a.sum() / n_pairs
        variance = q / (q - 1) * float(np.sum((a - p * t) ** 2)) / n_pairs**2
    else:
        p = float(np.mean(a / t))
        variance = float(np.var(a / t, ddof=1)) / q
    # exact test (integer cross-products) that every question has the same rate
    same_rate = bool(np.all(agree * total[0] == agree[0] * total))
    n = q if same_rate or variance <= 0 else min(p * (1 - p) / variance, n_pairs)
    upper = (1 + confidence) / 2
    n *= (stdtrit(n_pairs - 1, upper) / stdtrit(q - 1, upper)) ** 2
    x = p * n
    lo = float(betaincinv(x, n - x + 1, 1 - upper)) if x > 0 else 0.0
    hi = float(betaincinv(x + 1, n - x, upper)) if x < n else 1.0
    return lo, hi
