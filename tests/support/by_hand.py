"""Statistics computed by hand, written from their textbook definitions and independent of
scorekit's code, for tests that check scorekit's numbers against them."""

from __future__ import annotations

import math
from statistics import NormalDist


def mcnemar(n10: int, n01: int) -> float:
    """Exact two-sided McNemar p: binomial(n10 + n01, 1/2), outcomes no likelier than n10."""
    n = n10 + n01
    if n == 0:
        return 1.0
    pmf = [math.comb(n, i) / 2**n for i in range(n + 1)]
    return min(1.0, sum(q for q in pmf if q <= pmf[n10] * (1 + 1e-7)))


def wilson(s: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of s successes in n."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = s / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return mid - half, mid + half


def se(values: list[float]) -> float:
    """Standard error of the mean: sample standard deviation (n - 1) / sqrt(n)."""
    n = len(values)
    m = sum(values) / n
    return math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1) / n)


def holm(ps: list[float]) -> list[float]:
    """Holm-adjusted p-values (step-down, monotone, capped at 1)."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out
