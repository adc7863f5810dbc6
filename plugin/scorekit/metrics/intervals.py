"""Uncertainty of evaluation numbers: intervals, paired tests, stderr propagation (numpy/scipy).

Questions are the unit of resampling everywhere: a benchmark is taken as a sample of questions
from a larger population of possible questions, and the answers to one question (its prompts,
answer positions, samples) are one cluster. Defaults: 95% confidence, 2000 bootstrap draws,
seed 0 (results are reproducible; pass ``seed=None`` for fresh randomness).

Methods (``docs/uncertainty.md`` gives the measured coverage of each):

- :func:`wilson_interval` — one accuracy (0/1 per question);
- :func:`boundary_safe` — a bootstrap interval of an accuracy of 0 or 1 (zero width) replaced
  by Wilson's over the questions;
- :func:`bootstrap_interval` — any statistic of per-question values (corpus pass@k,
  G-Pass@k, mG-Pass@k, macro accuracies) by the percentile bootstrap;
- :func:`paired_bootstrap` — the difference of one statistic between two runs on the same
  questions, resampling questions jointly;
- :func:`spread_bounds` — the range or std of per-variant accuracies, from their intervals;
- :func:`mcnemar_p` — exact McNemar test of two paired 0/1 runs;
- :func:`holm` — Holm's step-down adjustment of several p-values;
- :func:`clustered_stderr` — the stderr of a per-document mean (or of an accuracy over items
  grouped in documents: IFEval's instructions) from a samples log, where the results file has
  none;
- :func:`threshold_stderr` — a results file's stderr carried through a threshold score (the
  leaderboard's normalization is one; first-order, i.e. delta method);
- :func:`unreported` — the one rule for when an interval is reported at all (every command
  asks it before showing or exporting an interval).

The consistency-rate interval lives with the rate (Korn-Graubard,
:func:`scorekit.metrics.consistency_rate_interval`).

Written here although libraries have them, with tests that pin the same numbers
(tests/metrics/test_intervals.py): Wilson equals scipy's
``binomtest(k, n).proportion_ci(method="wilson")`` (within 1e-15 on every count up to 40
questions), Holm equals statsmodels' ``multipletests(method="holm")`` exactly. The libraries'
forms do not fit the calls: scipy's Wilson takes one integer count at a time (scorekit passes
arrays of per-option counts, and fractional counts), and scipy has no Holm. Importing
``scipy.stats`` would also cost ``scorekit robustness`` and ``scorekit rank``, which need only
``scipy.special`` (the quantiles used here: ``ndtri``, ``stdtrit``), 2.7x its import time (6.9 s
against 2.6 s median on a 2-core x86 machine at load ~10), and statsmodels pulls in pandas.
(The t and chi-square intervals of ``scorekit rank`` are :mod:`scorekit.leaderboards.rank`'s.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple

import numpy as np

__all__ = [
    "BootstrapResult", "bisect_smallest", "bootstrap_interval", "bootstrap_intervals", "boundary_safe", "holm",
    "indistinguishable", "inverted_p", "mcnemar_interval", "mcnemar_p", "paired_bootstrap", "spread_bounds",
    "spread_statistic", "threshold_stderr", "unreported", "wilson_interval", "z_value", "MIN_QUESTIONS",
]

Statistic = Callable[[np.ndarray], np.ndarray]
Spread = Literal["range", "std"]  # a spread of accuracies across variants: max - min, or the population std

# Fewest questions for an interval from resampling or a large-sample approximation (the
# bootstrap, the Korn-Graubard interval of a consistency rate). Simulated coverage at 95%
# (bench/sim_intervals.py --only small, 2000 runs): the expanded percentile bootstrap of a
# per-question mean covers 94-95% at 10 questions, 92-95% at 7, 91-92% at 5, 71-75% at 3; the
# consistency-rate interval >= 93% from 10 up and 91% at 5 (docs/metrics.md).
MIN_QUESTIONS = 10

# Draw at most this many multinomial counts at once (draws x distinct rows): 8 MB, and as much
# again for their float copy in the product (chunks draw the same numbers as one call).
_CHUNK_CELLS = 1_000_000


class BootstrapResult(NamedTuple):
    """A point estimate with its percentile-bootstrap interval (``n`` = questions resampled).

    ``p_value`` (paired only): the smallest two-sided level alpha at which the interval
    reported (the expanded percentile one, or the basic one) at confidence 1 - alpha excludes
    0 (:func:`inverted_p`), so p <= 1 - confidence exactly when the interval excludes 0; a
    coarse test (resolution about 1/n_boot, and as weak as the interval with few questions).
    """

    estimate: float
    ci_low: float
    ci_high: float
    n: int
    p_value: float = math.nan


def unreported(ci_low: float, ci_high: float, n: int, *, resampled: bool) -> str | None:
    """Why the interval [ci_low, ci_high] over ``n`` questions is not reported; None when it is.

    The one rule of every command (compare, its values, export, robustness):

    - no bounds (nan): "fewer than 2 questions" when n < 2, else "no interval could be computed";
    - ``resampled`` (a bootstrap, or a large-sample approximation such as the consistency-rate
      interval) with n < :data:`MIN_QUESTIONS`: too few questions for its coverage;
    - zero width (ci_high <= ci_low): every question gave the same value (in both runs, for a
      paired difference), so there is no variation to measure. That is not a certainty, so
      no interval (and no p-value or detectable difference read from it).

    Exact and score intervals (Wilson, the McNemar interval, the spread of Wilson intervals)
    have width and coverage at any n and pass ``resampled=False``; an accuracy of exactly 0 or 1
    gets Wilson's interval instead of its zero-width bootstrap (:func:`boundary_safe`) before
    this rule is asked.

    >>> unreported(0.25, 0.25, 12, resampled=True)
    'zero width: every question gave the same value (or difference), so there is no variation to measure; not a certainty'
    >>> unreported(0.1, 0.4, 5, resampled=True)
    '5 questions: a resampled interval needs at least 10 (below that its coverage drops, to ~75% at 3 questions)'
    >>> unreported(0.1, 0.4, 5, resampled=False) is None
    True
    """
    if math.isnan(ci_low) or math.isnan(ci_high):
        return "fewer than 2 questions" if n < 2 else "no interval could be computed"
    if resampled and n < MIN_QUESTIONS:
        return (f"{n} questions: a resampled interval needs at least {MIN_QUESTIONS} (below that its coverage drops, "
                "to ~75% at 3 questions)")
    if ci_high <= ci_low:
        return ("zero width: every question gave the same value (or difference), so there is no variation to measure; "
                "not a certainty")
    return None


def z_value(confidence: float = 0.95) -> float:
    """Two-sided normal quantile: z such that P(|Z| <= z) = confidence (1.959964 at 0.95).

    >>> round(z_value(0.95), 4)
    1.96
    """
    _check_confidence(confidence)
    from scipy.special import ndtri

    return float(ndtri((1 + confidence) / 2))


def _check_method(method: str) -> None:
    if method not in ("percentile", "basic"):
        raise ValueError(f"method must be 'percentile' or 'basic', got {method!r}")


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def wilson_interval(successes: Any, n: Any, confidence: float = 0.95) -> tuple[Any, Any]:
    """Wilson score interval of a proportion p = successes / n.

    (p + z^2/2n -/+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), z = :func:`z_value`.

    Arrays broadcast (returns two arrays), scalars give two floats. n = 0 gives (nan, nan).
    Weak where the questions are not independent draws of one proportion: a macro average
    over categories, or several answers of one question pooled (use :func:`bootstrap_interval`
    over questions then). Its coverage dips a little below nominal for some p near 0 or 1 at
    small n (the oscillation of every binomial interval), never far.

    >>> [round(x, 4) for x in wilson_interval(8, 10)]
    [0.4902, 0.9433]
    >>> wilson_interval(0, 0)
    (nan, nan)
    """
    return _wilson_z(successes, n, z_value(confidence))


def _wilson_z(successes: Any, n: Any, z: float) -> tuple[Any, Any]:
    """:func:`wilson_interval` at a given z (not a confidence level: z may be 0)."""
    s, m = np.asarray(successes, dtype=np.float64), np.asarray(n, dtype=np.float64)
    if np.any(s < 0) or np.any(s > m):
        raise ValueError("successes must be between 0 and n")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = s / m
        centre = (p + z * z / (2 * m)) / (1 + z * z / m)
        half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    lo, hi = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
    lo, hi = np.where(s == 0, 0.0, lo), np.where(s == m, 1.0, hi)  # exact at the ends (no rounding)
    lo, hi = np.where(m > 0, lo, np.nan), np.where(m > 0, hi, np.nan)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def boundary_safe(estimate: float, interval: tuple[float, float], n: float,
                  confidence: float = 0.95) -> tuple[float, float]:
    """A resampling interval of an accuracy, made honest where every answer is wrong or right.

    At ``estimate`` 0 (or 1) every bootstrap draw gives 0 (or 1), so the bootstrap interval
    has zero width: a certainty that ``n`` questions cannot give. There the Wilson interval of
    0 of ``n`` (or ``n`` of ``n``) questions is used, the question being the unit (conservative
    when a question has several answers). Any other estimate keeps ``interval``.

    >>> boundary_safe(0.0, (0.0, 0.0), 10)[1] == wilson_interval(0, 10)[1]
    True
    >>> boundary_safe(0.4, (0.1, 0.7), 10)
    (0.1, 0.7)
    """
    if n > 0 and estimate == 0.0:
        return 0.0, float(wilson_interval(0, n, confidence)[1])
    if n > 0 and estimate == 1.0:
        return float(wilson_interval(n, n, confidence)[0]), 1.0
    return interval


def _as_matrix(values: Any, name: str) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2:
        raise ValueError(f"{name} must be 1-D (one value per question) or 2-D (questions x columns)")
    if np.isnan(x).any():
        raise ValueError(f"{name} contains NaN")
    return x


def _identity(means: np.ndarray) -> np.ndarray:
    return means[..., 0]


def _distinct_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows, their counts); rows of at most 16 0/1 values are counted as bit codes
    (np.bincount), much cheaper than the lexicographic sort of ``np.unique(axis=0)``."""
    d = x.shape[1]
    binary = np.isin(x, (0.0, 1.0)).all()
    if d <= 16 and binary:
        codes = (x.astype(np.int64) << np.arange(d, dtype=np.int64)).sum(axis=1)
        counts = np.bincount(codes)
        present = np.flatnonzero(counts)
        rows = ((present[:, None] >> np.arange(d)) & 1).astype(np.float64)
        return rows, counts[present]
    if binary:  # wider 0/1 rows (macro accuracy: variants x categories): packed 64 columns to a
        # code, first column most significant, so the codes sort as the rows do (np.unique's
        # order); sorting 3 codes a row instead of 154 values took the MMLU-Pro family's 0.5 s
        # to ~0.01 s, and the packed bits take 1/64 of the rows' memory
        packed = np.packbits(x.astype(bool), axis=1)
        packed = np.pad(packed, ((0, 0), (0, -packed.shape[1] % 8)))
        codes = packed.view(">u8").astype(np.uint64)
        _, first, counts = np.unique(codes, axis=0, return_index=True, return_counts=True)
        return x[first], counts
    return np.unique(x, axis=0, return_counts=True)


def _resampled_means(x: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Column means of ``x`` over ``n_boot`` resamples of its rows (with replacement): (n_boot, d).

    Drawing Q rows with replacement gives each distinct row a Multinomial(Q, share) count, so
    the draws are made on the distinct rows only: a 0/1 run or a pair of 0/1 runs has at most
    4 distinct rows, which makes a draw O(1) instead of O(Q): the 10 per-prompt comparisons of
    two MMLU-Pro runs took 6.9 s by index resampling and 0.03 s so (bench/bench_intervals.py).
    """
    q = x.shape[0]
    rows, counts = _distinct_rows(x)
    share = counts / q
    per_chunk = max(1, _CHUNK_CELLS // max(len(rows), 1))
    out = []
    for start in range(0, n_boot, per_chunk):
        drawn = rng.multinomial(q, share, size=min(per_chunk, n_boot - start))
        out.append(drawn @ rows / q)
    return np.concatenate(out)


def _percentiles(draws: np.ndarray, confidence: float, n: int) -> tuple[float, float]:
    """Expanded percentile interval (Hesterberg 2015): the bootstrap distribution is too narrow
    by sqrt((n-1)/n) and normal rather than t, so the tail level alpha/2 is replaced by
    Phi(-sqrt(n/(n-1)) * t_{n-1}(1 - alpha/2)) (0.0230 instead of 0.025 at n = 100)."""
    from scipy.special import ndtr, stdtrit

    alpha = ndtr(-math.sqrt(n / (n - 1)) * stdtrit(n - 1, (1 + confidence) / 2))
    lo, hi = np.quantile(draws, [alpha, 1 - alpha])
    return float(lo), float(hi)


def bootstrap_interval(values: Any, statistic: Statistic | None = None, *, n_boot: int = 2000, confidence: float = 0.95,
                       seed: int | None = 0, method: str = "percentile") -> BootstrapResult:
    """Percentile bootstrap over questions of ``statistic(column means)``.

    ``values``: one value per question (shape (Q,)), or a row per question (Q, d).
    ``statistic`` maps column means (shape (..., d)) to the statistic (shape (...)), and is
    called on a batch of resampled means at once; default: the mean of a 1-D input. The
    estimate is the statistic of the full data. Corpus pass@k, G-Pass@k and mG-Pass@k are
    means of per-question values (:mod:`scorekit.metrics.sampling`), so their interval is
    ``bootstrap_interval(per_question_values)``. The interval is the expanded percentile one
    (tail levels widened for Q: Hesterberg 2015).

    ``method="basic"`` gives the basic (reverse-percentile) interval [2θ - q_hi, 2θ - q_lo],
    which corrects a statistic's first-order bias (``compare`` used it for the paired
    difference of two runs' spreads, before the box of ``spread_bounds``: docs/uncertainty.md).
    Neither covers a spread itself honestly (the range ~90%;
    the std of equally accurate prompts 50-58%: docs/uncertainty.md): use
    :func:`spread_bounds` for that.

    Weak: the percentile bootstrap undercovers with few questions (below ~30), for biased
    statistics, and when every question has the same value (the interval collapses to a point:
    :func:`boundary_safe` for an accuracy). Fewer than 2 questions: (estimate, nan, nan).

    >>> r = bootstrap_interval([1, 0, 1, 1, 0, 1, 1, 1, 0, 1] * 10)
    >>> r.estimate, r.n, r.ci_low < 0.7 < r.ci_high
    (0.7, 100, True)
    """
    return bootstrap_intervals(values, [statistic or _identity], n_boot=n_boot, confidence=confidence, seed=seed,
                               method=method)[0]


def bootstrap_intervals(values: Any, statistics: Sequence[Statistic], *, n_boot: int = 2000, confidence: float = 0.95,
                        seed: int | None = 0, method: str | Sequence[str] = "percentile") -> list[BootstrapResult]:
    """:func:`bootstrap_interval` of several statistics of the same rows, on one set of draws
    (one resampling pass however many statistics). ``method``: one for all statistics, or one
    per statistic (``"percentile"`` and ``"basic"`` intervals from the same draws).

    >>> [r.estimate for r in bootstrap_intervals([[1, 0], [1, 1], [0, 0]], [spread_statistic("range"), lambda m: m[..., 0]])]
    [0.3333333333333333, 0.6666666666666666]
    """
    _check_confidence(confidence)
    methods = [method] * len(statistics) if isinstance(method, str) else list(method)
    if len(methods) != len(statistics):
        raise ValueError(f"give one method, or one per statistic ({len(statistics)}), got {len(methods)}")
    for m in methods:
        _check_method(m)
    x = _as_matrix(values, "values")
    if len(x) == 0:
        return [BootstrapResult(math.nan, math.nan, math.nan, 0) for _ in statistics]
    full = x.mean(axis=0)[None, :]
    estimates = [float(stat(full)[0]) for stat in statistics]
    if len(x) < 2:
        return [BootstrapResult(e, math.nan, math.nan, len(x)) for e in estimates]
    means = _resampled_means(x, n_boot, np.random.default_rng(seed))
    out = []
    for stat, estimate, m in zip(statistics, estimates, methods):
        draws = stat(means)
        draws = draws[~np.isnan(draws)]
        lo, hi = _percentiles(draws, confidence, len(x)) if draws.size else (math.nan, math.nan)
        if m == "basic":
            lo, hi = 2 * estimate - hi, 2 * estimate - lo
        out.append(BootstrapResult(estimate, lo, hi, len(x)))
    return out


def paired_bootstrap(a: Any, b: Any, statistic: Statistic | None = None, *, n_boot: int = 2000,
                     confidence: float = 0.95, seed: int | None = 0, method: str = "percentile") -> BootstrapResult:
    """Difference statistic(a) - statistic(b) with a paired percentile-bootstrap interval
    (``method="basic"``: the reverse-percentile one, for biased statistics such as spreads).

    Row i of ``a`` and of ``b`` belong to the same question; each draw resamples question
    indices once and applies them to both runs, so what the runs share (easy and hard
    questions) cancels. Shapes and ``statistic`` as in :func:`bootstrap_interval`.

    Weak: with few questions (below ~30), or when the runs disagree on very few questions,
    the percentile interval is too narrow (it can be [0, 0] when they never disagree, which
    says only that this sample shows no difference). Fewer than 2 questions: (difference,
    nan, nan).

    >>> a = [1, 1, 0, 1, 1, 0, 1, 1, 1, 0] * 20
    >>> b = [1, 0, 0, 1, 0, 0, 1, 1, 0, 0] * 20
    >>> r = paired_bootstrap(a, b)
    >>> round(r.estimate, 2), r.n, 0 < r.ci_low < 0.3 < r.ci_high
    (0.3, 200, True)
    """
    _check_confidence(confidence)
    _check_method(method)
    xa, xb = _as_matrix(a, "a"), _as_matrix(b, "b")
    if xa.shape[0] != xb.shape[0]:
        raise ValueError(f"a and b must have one row per shared question (got {xa.shape[0]} and {xb.shape[0]} rows)")
    stat = statistic or _identity
    q = xa.shape[0]
    if q == 0:
        return BootstrapResult(math.nan, math.nan, math.nan, 0)
    estimate = float(stat(xa.mean(axis=0)[None, :])[0] - stat(xb.mean(axis=0)[None, :])[0])
    if q < 2:
        return BootstrapResult(estimate, math.nan, math.nan, q)
    # one resample of the questions serves both runs: resample the joined rows
    means = _resampled_means(np.hstack([xa, xb]), n_boot, np.random.default_rng(seed))
    draws = stat(means[:, : xa.shape[1]]) - stat(means[:, xa.shape[1]:])
    draws = draws[~np.isnan(draws)]  # a ratio whose resampled denominator is 0
    if draws.size == 0:
        return BootstrapResult(estimate, math.nan, math.nan, q)
    if method == "basic":
        draws = 2 * estimate - draws  # the reflected distribution: its percentiles are the basic interval
    p = inverted_p(lambda conf: _percentiles(draws, conf, q))
    return BootstrapResult(estimate, *_percentiles(draws, confidence, q), q, p)


def inverted_p(interval: Callable[[float], tuple[float, float]], null: float = 0.0, tol: float = 1e-7) -> float:
    """The p-value of "the quantity is ``null``" by inverting a family of intervals: the
    smallest alpha at which ``interval(1 - alpha)`` excludes ``null`` (bisection to ``tol``).

    So p <= alpha exactly when the (1 - alpha) interval excludes ``null``: the p-value and the
    interval never contradict each other. Assumes the intervals shrink as the confidence falls
    (nested), as percentile, Wilson and box intervals do. 1.0 when even the zero-confidence
    interval holds ``null``; nan when the intervals are nan.

    >>> round(inverted_p(lambda c: (0.5 - c, 2)), 6)  # [0.5 - c, 2] excludes 0 once c < 0.5
    0.5
    """
    def excludes(alpha: float) -> bool:
        lo, hi = interval(1 - alpha)
        return lo > null or hi < null

    lo0, hi0 = interval(0.5)
    if math.isnan(lo0) or math.isnan(hi0):
        return math.nan
    if not excludes(1 - 1e-9):
        return 1.0
    return bisect_smallest(excludes, 0.0, 1 - 1e-9, tol)


def bisect_smallest(holds: Callable[[float], bool], lo: float, hi: float, tol: float) -> float:
    """Bisection: the smallest x in [lo, hi] (to ``tol``, from above) where ``holds(x)``, for a
    ``holds`` false below some point and true from it on; ``holds(hi)`` is assumed true."""
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return hi


def spread_statistic(kind: Spread) -> Statistic:
    """Statistic for :func:`bootstrap_interval` / :func:`paired_bootstrap` on a (Q, V) matrix
    of 0/1 (question x prompt or answer position): the column means are the per-variant
    accuracies, and ``kind`` is ``"range"`` (max - min) or ``"std"`` (population, ddof=0), as
    in :mod:`scorekit.robustness.analysis`.

    >>> import numpy as np
    >>> spread_statistic("range")(np.array([[0.5, 0.75, 0.25]]))
    array([0.5])
    """
    if kind == "range":
        return lambda m: m.max(axis=-1) - m.min(axis=-1)
    if kind == "std":
        return lambda m: m.std(axis=-1)
    raise ValueError(f"kind must be 'range' or 'std', got {kind!r}")


def spread_bounds(kind: Spread, lows: Any, highs: Any) -> tuple[float, float]:
    """Interval of the spread (``"range"`` or population ``"std"``) of V accuracies from their
    own intervals ``[lows[v], highs[v]]``: the smallest and the largest spread of any V values
    inside those intervals.

    range: [max(0, max lows - min highs), max highs - min lows]. std: the smallest is reached at
    p_v = clip(m, low_v, high_v) with m = mean(p) (found by bisection: the mean of the clipped
    values minus m only falls as m grows); the largest at a corner of the box (every corner
    tried up to V = 16; above, the bound range_max / 2, which no V values exceed).

    Why not the bootstrap of the spread: a spread is the extreme of V noisy estimates, biased
    upwards, and its bootstrap covered ~90% (range) and, for a model whose variants are equally
    accurate (true spread 0), only 50-68% (docs/uncertainty.md). This box is conservative: the
    true spread lies in it whenever every accuracy lies in its interval, and mostly beyond
    (measured 95.5-100% for 95% Wilson intervals, 10 prompts, 50-1000 questions).

    >>> [round(x, 4) for x in spread_bounds("range", [0.4, 0.5, 0.6], [0.5, 0.6, 0.7])]
    [0.1, 0.3]
    >>> [round(x, 4) for x in spread_bounds("std", [0.1, 0.5], [0.2, 0.6])]
    [0.15, 0.25]
    """
    lo, hi = np.asarray(lows, dtype=float), np.asarray(highs, dtype=float)
    if lo.size == 0 or np.isnan(lo).any() or np.isnan(hi).any():
        return math.nan, math.nan
    range_max = float(hi.max() - lo.min())
    if kind == "range":
        return max(0.0, float(lo.max() - hi.min())), range_max
    if kind != "std":
        raise ValueError(f"kind must be 'range' or 'std', got {kind!r}")
    a, b = float(lo.min()), float(hi.max())
    for _ in range(60):
        m = (a + b) / 2
        if np.clip(m, lo, hi).mean() > m:
            a = m
        else:
            b = m
    smallest = float(np.clip((a + b) / 2, lo, hi).std())
    if lo.size <= 16:
        corners = (np.arange(2 ** lo.size)[:, None] >> np.arange(lo.size)) & 1
        largest = float(np.where(corners == 1, hi, lo).std(axis=1).max())
    else:
        largest = range_max / 2
    return smallest, largest


def _discordant(a: Any, b: Any, check_binary: bool = False) -> tuple[int, int, int]:
    """(n10, n01, N) of two paired runs: questions only a gets right, only b, and all shared."""
    xa, xb = np.asarray(a), np.asarray(b)
    if xa.shape != xb.shape or xa.ndim != 1:
        raise ValueError("a and b must be 1-D of the same length (one 0/1 value per shared question)")
    for x, name in ((xa, "a"), (xb, "b")) if check_binary else ():
        if not np.isin(x, (0, 1)).all():
            raise ValueError(f"{name} must hold only 0 and 1")
    return int(np.sum((xa == 1) & (xb == 0))), int(np.sum((xa == 0) & (xb == 1))), len(xa)


def mcnemar_p(a: Any, b: Any) -> float:
    """Exact two-sided McNemar p-value of two paired 0/1 runs.

    With n10 = questions a gets right and b wrong, n01 the reverse: under "no difference"
    n10 ~ Binomial(n10 + n01, 1/2); p = scipy's exact two-sided binomial test (1.0 when
    the runs never disagree). Weak: it tests only whether the discordant questions split
    evenly; with macro-averaged or weighted metrics the difference may point elsewhere.

    >>> mcnemar_p([1, 1, 1, 1, 1, 1, 0], [0, 0, 0, 0, 0, 0, 0])  # 6 discordant, all one way
    0.03125
    >>> mcnemar_p([1, 0], [1, 0])
    1.0
    """
    ab, ba, _ = _discordant(a, b, check_binary=True)
    if ab + ba == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(min(1.0, binomtest(ab, ab + ba, 0.5).pvalue))


def mcnemar_interval(a: Any, b: Any, confidence: float = 0.95) -> tuple[float, float]:
    """Interval of the paired difference of two 0/1 runs, delta = p10 - p01, that agrees with the
    exact McNemar test (:func:`mcnemar_p`): it excludes 0 exactly when p < 1 - confidence.

    With N shared questions, n10 / n01 the discordant ones each way and nd = n10 + n01:
    delta = d (2 pi - 1), d = P(discordant), pi = P(a right | discordant). pi gets the
    Clopper-Pearson interval [pi_L, pi_U] of n10 of nd (the inversion of the exact conditional
    binomial test, whose value at pi = 1/2 is McNemar's p); each bound B = 2 pi_B - 1 is then
    scaled by an end of the Wilson interval of d (nd of N) at z * |B|, the end that widens the
    interval (d_high for a negative bound of the low end, ...). Scaling by a positive number
    keeps each bound's sign, hence the agreement with the test. The z * |B| weighting
    reflects that d's noise moves delta by (2 pi - 1) * (d - d_hat): nothing near pi = 1/2,
    everything when the discordance is all one way. No discordant question gives
    [-d_high, d_high] at z (p = 1).

    Conservative where the bootstrap was short: 96-99% coverage measured at 50-1000 questions
    (bench/sim_intervals.py, docs/uncertainty.md), about 1.5x the bootstrap's width at 50
    questions and 1.05x at 1000.

    >>> lo, hi = mcnemar_interval([1] * 5 + [0] * 45, [0] * 50)  # 5 of 5 one way: p = 0.0625
    >>> lo < 0 < hi
    True
    """
    _check_confidence(confidence)
    n10, n01, n = _discordant(a, b)
    if n == 0:
        return math.nan, math.nan
    nd = n10 + n01
    alpha = 1 - confidence
    from scipy.special import betaincinv

    pi_lo = 0.0 if n10 == 0 else float(betaincinv(n10, nd - n10 + 1, alpha / 2))
    pi_hi = 1.0 if n10 == nd else float(betaincinv(n10 + 1, nd - n10, 1 - alpha / 2))
    z = z_value(confidence)
    out = []
    for bound, widen_down in ((2 * pi_lo - 1, True), (2 * pi_hi - 1, False)):
        d_lo, d_hi = _wilson_z(nd, n, z * abs(bound))
        # the low end moves down with a larger d when negative, a smaller d when positive
        scale = (d_hi if bound < 0 else d_lo) if widen_down else (d_hi if bound > 0 else d_lo)
        out.append(bound * scale)
    return out[0], out[1]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm (1979) step-down adjusted p-values, in the input order.

    Sort the m p-values p_(1) <= ... <= p_(m); adjusted p_(i) = max_{j<=i} min(1, (m-j+1) p_(j)).
    Rejecting where the adjusted value is <= alpha controls the family-wise error at alpha
    under any dependence. NaN stays NaN and does not count in m.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = len(ok)
    order = ok[np.argsort(p[ok], kind="stable")]
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p[i])))
        out[i] = running
    return [float(v) for v in out]


def clustered_stderr(values: Sequence[Any]) -> tuple[float, float]:
    """``(value, stderr)`` of a metric from its per-document values, documents as the unit.

    A document's value is a number (0/1 or a score) or a list of 0/1 items (IFEval's
    ``inst_level_*``: one per instruction of the prompt). With ``c_i`` the document's sum and
    ``k_i`` its item count (1 for a number), the value is the pooled ratio R = sum c / sum k
    (lm-eval's ``agg_inst_level_acc`` for lists, the mean for numbers) and its stderr the
    ratio estimator's, over n documents: sqrt(n / (n - 1) * sum (c_i - R k_i)^2) / sum k.
    For numbers this is lm-eval's ``mean_stderr`` (sample std with n - 1, over sqrt n). The
    items of one document are not taken as independent: a model that fails one instruction of a
    prompt tends to fail others. Documents with no items are left out; stderr is nan below two
    documents. Booleans count as 0/1.

    >>> clustered_stderr([1, 0, 1, 1])  # the mean and lm-eval's stderr of it
    (0.75, 0.25)
    >>> value, se = clustered_stderr([[True, False], [True], [False, False, True]])
    >>> round(value, 4), round(se, 4)
    (0.5, 0.1443)
    """
    sums: list[float] = []
    counts: list[int] = []
    for v in values:
        if isinstance(v, (list, tuple)):
            if not v:
                continue
            sums.append(float(sum(float(x) for x in v)))
            counts.append(len(v))
        else:
            sums.append(float(v))
            counts.append(1)
    n = len(sums)
    if n == 0:
        return math.nan, math.nan
    c, k = np.asarray(sums), np.asarray(counts, dtype=float)
    ratio = float(c.sum() / k.sum())
    if n < 2:
        return ratio, math.nan
    residual = c - ratio * k
    return ratio, float(math.sqrt(n / (n - 1) * float(residual @ residual)) / k.sum())


def indistinguishable(best: float, best_se: float | None, value: float, se: float | None,
                      confidence: float = 0.95) -> bool | None:
    """Whether ``value`` is statistically indistinguishable from ``best`` (two independent
    estimates): best - value <= z * sqrt(best_se^2 + se^2). None when a stderr is unknown
    (None or nan). Weak: results files carry no per-question data, so runs on the same
    questions are treated as independent, which overstates the noise of their difference
    (use ``scorekit compare`` on the samples logs for the paired test).

    >>> indistinguishable(60.0, 1.0, 58.0, 1.0), indistinguishable(60.0, 1.0, 55.0, 1.0)
    (True, False)
    """
    if best_se is None or se is None or math.isnan(best_se) or math.isnan(se):
        return None
    return bool(best - value <= z_value(confidence) * math.sqrt(best_se**2 + se**2))


def threshold_stderr(value: float, stderr: float, good: float, bad: float) -> float:
    """Stderr of ``clip((value - bad) / (good - bad), 0, 1)``: se / |good - bad|.

    Below ``bad`` (or beyond ``good``) the clamp makes the score 0 (or 1), but the true value
    may still lie inside, so the scaled stderr is kept there too (the first-order derivative, 0,
    would claim a certainty no sample gives); the interval is cut to [0, 1] instead. good == bad
    (a step) gives nan.

    >>> threshold_stderr(0.5, 0.02, good=0.9, bad=0.4)
    0.04
    """
    span = abs(float(good) - float(bad))
    if span == 0:
        return math.nan
    return float(stderr) / span
