"""Coverage of scorekit's 95% intervals by simulation with a known truth (docs/uncertainty.md).

    python bench/sim_intervals.py              # 5,000 runs per cell (a few minutes)
    python bench/sim_intervals.py --runs 1000  # quicker, ~0.7 points of noise per cell

Data-generating processes are the test suite's (tests/metrics/test_intervals.py): paired 0/1
runs of two correlated models (shared question difficulty, ~12% discordant questions);
G-Pass@k / pass@k on 16 samples per question with U-shaped per-question success rates; per
prompt spreads of 10 prompts. Wilson coverage is exact (a binomial sum), not simulated.
Prints markdown tables.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorekit.metrics import g_pass_at_k, mg_pass_at_k, pass_at_k  # noqa: E402
from scorekit.metrics.intervals import (  # noqa: E402
    bootstrap_interval, paired_bootstrap, spread_bounds, spread_statistic, wilson_interval,
)
from tests.metrics.test_intervals import _paired_population  # noqa: E402

SIZES = (50, 100, 200, 500, 1000)


def wilson_min_coverage(n: int) -> tuple[float, float]:
    k = np.arange(n + 1)
    lo, hi = wilson_interval(k, n)
    cov = [binom.pmf(k, n, p)[(lo <= p) & (p <= hi)].sum() for p in np.linspace(0.05, 0.95, 181)]
    return float(min(cov)), float(np.mean(cov))


def paired_coverage(runs: int, nq: int) -> float:
    rng = np.random.default_rng(10 + nq)
    p_a, p_b = _paired_population(rng)
    truth = float(p_a.mean() - p_b.mean())
    covered = 0
    for run in range(runs):
        q = rng.integers(0, len(p_a), nq)
        shared = rng.random(nq)
        r = paired_bootstrap(shared < p_a[q], shared < p_b[q], seed=run)
        covered += r.ci_low <= truth <= r.ci_high
    return covered / runs


def sampling_coverage(runs: int, nq: int, metric: str, k: int, tau: float = 0.0) -> float:
    rng = np.random.default_rng(7)
    population = rng.beta(0.7, 0.9, 1000)
    if metric == "mg_pass":
        lo = math.ceil(k / 2) + 1
        truth = float(sum(binom.sf(i - 1, k, population).mean() for i in range(lo, k + 1)) * 2 / k)
    else:
        m = 1 if metric == "pass" else max(math.ceil(round(tau * k, 9)), 1)
        truth = float(binom.sf(m - 1, k, population).mean())
    covered = 0
    for run in range(runs):
        c = rng.binomial(16, population[rng.integers(0, 1000, nq)])
        values = {"pass": lambda: pass_at_k(16, c, k), "g_pass": lambda: g_pass_at_k(16, c, k, tau),
                  "mg_pass": lambda: mg_pass_at_k(16, c, k)}[metric]()
        r = bootstrap_interval(values, seed=run)
        covered += r.ci_low <= truth <= r.ci_high
    return covered / runs


def spread_coverage(runs: int, nq: int, kind: str, method: str = "box", span: float = 0.5) -> float:
    """10 prompts whose accuracies differ by a prompt effect on a logit scale, from -span to
    +span (span 0.5: true range ~0.17; span 0: equally accurate prompts, true spread 0).
    ``method``: "box" (what scorekit reports: the spread of the prompts' Wilson intervals,
    intervals.spread_bounds), or the "basic" / "percentile" bootstrap of the spread (used before)."""
    rng = np.random.default_rng(3)
    ability = rng.normal(0.3, 1.5, 2000)
    effect = np.linspace(-span, span, 10)
    p = 1 / (1 + np.exp(-(ability[:, None] + effect[None, :])))
    truth = float(spread_statistic(kind)(p.mean(axis=0)[None, :])[0])
    covered = 0
    for run in range(runs):
        x = (rng.random((nq, 10)) < p[rng.integers(0, 2000, nq)]).astype(float)
        if method == "box":
            lo, hi = spread_bounds(kind, *wilson_interval(x.sum(axis=0), nq))
        else:
            r = bootstrap_interval(x, spread_statistic(kind), seed=run, method=method)
            lo, hi = max(0.0, r.ci_low), max(0.0, r.ci_high)
        covered += lo - 1e-12 <= truth <= hi + 1e-12
    return covered / runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5000)
    ap.add_argument("--only", choices=("all", "spreads"), default="all")
    args = ap.parse_args()
    print("| method | " + " | ".join(f"Q={n}" for n in SIZES) + " |")
    print("|---|" + "---|" * len(SIZES))
    print("| Wilson (exact, min over p in [0.05, 0.95]) | " + " | ".join(f"{wilson_min_coverage(n)[0]:.1%}" for n in SIZES) + " |")
    rows = [
        ("paired bootstrap, 0/1 difference", lambda n: paired_coverage(args.runs, n)),
        ("pass@4 (n=16)", lambda n: sampling_coverage(args.runs, n, "pass", 4)),
        ("G-Pass@8, tau=0.5", lambda n: sampling_coverage(args.runs, n, "g_pass", 8, 0.5)),
        ("G-Pass@8, tau=1", lambda n: sampling_coverage(args.runs, n, "g_pass", 8, 1.0)),
        ("mG-Pass@8", lambda n: sampling_coverage(args.runs, n, "mg_pass", 8)),
        ("accuracy range, 10 prompts (box of Wilson intervals)", lambda n: spread_coverage(args.runs, n, "range")),
        ("accuracy std, 10 prompts (box of Wilson intervals)", lambda n: spread_coverage(args.runs, n, "std")),
        ("accuracy range, 10 equally accurate prompts (box)", lambda n: spread_coverage(args.runs, n, "range", span=0.0)),
        ("accuracy std, 10 equally accurate prompts (box)", lambda n: spread_coverage(args.runs, n, "std", span=0.0)),
        ("accuracy range, 10 prompts (basic bootstrap, before)", lambda n: spread_coverage(args.runs, n, "range", "basic")),
        ("accuracy std, 10 equally accurate prompts (basic bootstrap, before)",
         lambda n: spread_coverage(args.runs, n, "std", "basic", span=0.0)),
    ]
    if args.only == "spreads":
        rows = rows[-6:]
    for name, fn in rows:
        print(f"| {name} | " + " | ".join(f"{fn(n):.1%}" for n in SIZES) + " |", flush=True)


if __name__ == "__main__":
    main()
