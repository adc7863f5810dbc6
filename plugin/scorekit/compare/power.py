"""Power and sample size of paired comparisons (pure numpy/scipy; ``scorekit plan`` and the
``min_detectable_difference`` of ``scorekit compare``).

0/1 metrics: the exact McNemar test (:func:`scorekit.metrics.intervals.mcnemar_p`). With N
questions, p10 = P(a right, b wrong), p01 = P(a wrong, b right), the discordance
psi = p10 + p01 and the difference delta = p10 - p01:

- exact power (:func:`mcnemar_power`): the number of discordant questions nd is
  Binomial(N, psi); given nd, n10 is Binomial(nd, pi), pi = p10 / psi, and the two-sided exact
  test at level alpha rejects when 2 * P(X <= min(n10, nd - n10) | nd, 1/2) <= alpha. Power =
  sum over nd of P(nd) * P(reject | nd), computed exactly (no simulation);
- the approximation that sizes it (Connor 1987, "Sample size for testing differences in
  proportions for the paired-sample design", Biometrics 43:207-211, eq. 3):
  N = (z_{1-alpha/2} sqrt(psi) + z_{1-beta} sqrt(psi - delta^2))^2 / delta^2;
  the planned size is then the smallest N, searched from Connor's, whose *exact* power reaches
  the target (Connor's normal approximation is a little optimistic for few discordant pairs);
- minimum detectable difference (:func:`mcnemar_mdd`): the smallest delta <= psi whose exact
  power at N reaches the target (bisection; power grows with |delta| at fixed psi); nan when
  even delta = psi (every discordant question one way) does not reach it.

Per-question means (a score, pass@k per question): the paired t test on the per-question
differences, sd sigma: power = P(|T| > t_{N-1, 1-alpha/2}), T noncentral t with N - 1 degrees of
freedom and noncentrality delta sqrt(N) / sigma (:func:`paired_t_power`); the first guess is
the normal one, N = ((z_{1-alpha/2} + z_{1-beta}) sigma / delta)^2.
"""

from __future__ import annotations

import math

import numpy as np

from scorekit.metrics.intervals import bisect_smallest

__all__ = ["connor_sample_size", "mcnemar_mdd", "mcnemar_power", "mcnemar_sample_size", "interval_mdd",
           "paired_t_mdd", "paired_t_power", "paired_t_sample_size"]

_MAX_QUESTIONS = 10_000_000


def _check(alpha: float, power: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power!r}")


def _z(q: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(q))


def _check_pair(delta: float, discordance: float) -> None:
    if not 0 < discordance <= 1:
        raise ValueError(f"the discordance must be in (0, 1], got {discordance!r}")
    if not 0 < abs(delta) <= discordance:
        raise ValueError(f"the difference must be non-zero and at most the discordance ({discordance!r}), "
                         f"got {delta!r}: a difference needs questions on which the models disagree")


def mcnemar_power(n: int, delta: float, discordance: float, alpha: float = 0.05) -> float:
    """Exact power of the two-sided exact McNemar test with ``n`` questions (module docstring).

    >>> round(mcnemar_power(100, 0.0, 0.2), 4) <= 0.05  # the size of the test: at most alpha
    True
    """
    if not 0 < discordance <= 1 or abs(delta) > discordance:
        raise ValueError("need 0 < discordance <= 1 and |delta| <= discordance")
    from scipy.stats import binom

    nd = np.arange(n + 1)
    weight = binom.pmf(nd, n, discordance)
    pi = (discordance + delta) / 2 / discordance
    # largest k with 2 * P(X <= k | nd, 1/2) <= alpha (-1 when none): the test rejects k <= c or k >= nd - c
    c = binom.ppf(alpha / 2, nd, 0.5).astype(int)
    c = np.where(binom.cdf(c, nd, 0.5) <= alpha / 2 * (1 + 1e-9), c, c - 1)
    reject = np.where(c >= 0, binom.cdf(c, nd, pi) + binom.sf(nd - c - 1, nd, pi), 0.0)
    return float(np.clip(weight @ reject, 0.0, 1.0))


def connor_sample_size(delta: float, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Connor's (1987) approximate number of questions (not rounded).

    >>> round(connor_sample_size(0.05, 0.2), 1)  # (1.96 * sqrt(.2) + .8416 * sqrt(.1975))**2 / .05**2
    625.5
    """
    _check(alpha, power)
    _check_pair(delta, discordance)
    za, zb = _z(1 - alpha / 2), _z(power)
    return (za * math.sqrt(discordance) + zb * math.sqrt(discordance - delta * delta)) ** 2 / (delta * delta)


def mcnemar_sample_size(delta: float, discordance: float, alpha: float = 0.05,
                        power: float = 0.8) -> tuple[int, float, float]:
    """(N, exact power at N, Connor's N): the smallest N whose exact power reaches ``power``,
    searched downward and upward from Connor's approximation."""
    n_c = connor_sample_size(delta, discordance, alpha, power)
    n = max(1, math.ceil(n_c))
    step = max(1, n // 50)
    while mcnemar_power(n, delta, discordance, alpha) < power:
        n += step
        if n > _MAX_QUESTIONS:
            raise ValueError("more than 10,000,000 questions would be needed")
    while n > 1 and mcnemar_power(n - 1, delta, discordance, alpha) >= power:
        n -= 1
    return n, mcnemar_power(n, delta, discordance, alpha), n_c


def mcnemar_mdd(n: int, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest |delta| the exact McNemar test detects with ``power`` at ``n`` questions and this
    discordance; nan when none can (too few questions or discordant ones).

    >>> d = mcnemar_mdd(600, 0.2)
    >>> mcnemar_power(600, d, 0.2) >= 0.8 > mcnemar_power(600, d - 0.002, 0.2)
    True
    """
    _check(alpha, power)
    if n < 1 or not 0 < discordance <= 1:
        return math.nan
    if mcnemar_power(n, discordance, discordance, alpha) < power:
        return math.nan
    return bisect_smallest(lambda d: mcnemar_power(n, d, discordance, alpha) >= power, 0.0, discordance, 1e-6)


def paired_t_power(n: int, delta: float, sd: float, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t test (noncentral t; module docstring)."""
    if n < 2:
        return math.nan
    from scipy.stats import nct, t

    crit = float(t.ppf(1 - alpha / 2, n - 1))
    nc = abs(delta) * math.sqrt(n) / sd
    return float(nct.sf(crit, n - 1, nc) + nct.cdf(-crit, n - 1, nc))


def paired_t_sample_size(delta: float, sd: float, alpha: float = 0.05, power: float = 0.8) -> tuple[int, float, float]:
    """(N, power at N, the normal approximation's N) for the paired t test.

    >>> n, achieved, normal = paired_t_sample_size(0.1, 0.5)  # normal: (1.96 + .8416)**2 * 25
    >>> round(normal, 1), n, achieved >= 0.8
    (196.2, 199, True)
    """
    _check(alpha, power)
    if delta == 0 or sd <= 0:
        raise ValueError("need a non-zero difference and a positive sd of the per-question differences")
    n_z = ((_z(1 - alpha / 2) + _z(power)) * sd / abs(delta)) ** 2
    n = max(2, math.ceil(n_z))
    while paired_t_power(n, delta, sd, alpha) < power:
        n += 1
    while n > 2 and paired_t_power(n - 1, delta, sd, alpha) >= power:
        n -= 1
    return n, paired_t_power(n, delta, sd, alpha), n_z


def paired_t_mdd(n: int, sd: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest |delta| the paired t test detects with ``power`` at ``n`` questions (nan below 2
    questions or with sd 0)."""
    _check(alpha, power)
    if n < 2 or not sd > 0:
        return math.nan
    hi = sd
    while paired_t_power(n, hi, sd, alpha) < power:
        hi *= 2
    return bisect_smallest(lambda d: paired_t_power(n, d, sd, alpha) >= power, 0.0, hi, 1e-7 * sd)


def interval_mdd(ci_low: float, ci_high: float, confidence: float = 0.95, power: float = 0.8) -> float:
    """Minimum detectable difference read off an interval of half-width h (the normal
    approximation for statistics with no exact power: consistency rates, spreads, means
    compared by the bootstrap): h = z_{1-alpha/2} se, so MDD = (z_{1-alpha/2} + z_power) se
    = h (1 + z_power / z_{1-alpha/2}) (2.80 se at 95% and 80% power).

    >>> round(interval_mdd(-0.1, 0.1), 4)  # 0.1 * (1 + 0.8416 / 1.96)
    0.1429
    """
    if math.isnan(ci_low) or math.isnan(ci_high):
        return math.nan
    za = _z((1 + confidence) / 2)
    return (ci_high - ci_low) / 2 * (1 + _z(power) / za)
