"""Coverage of scorekit's 95% intervals by simulation with a known truth (docs/uncertainty.md).

    python bench/sim_intervals.py              # 5,000 runs per cell (a few minutes)
    python bench/sim_intervals.py --runs 1000  # quicker, ~0.7 points of noise per cell
    python bench/sim_intervals.py --runs 2000 --only compare   # compare's rigor
    python bench/sim_intervals.py --runs 2000 --only small     # the bootstrap below 10 questions

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
from scorekit.compare.core import _spread_difference_box  # noqa: E402
from scorekit.metrics.intervals import (  # noqa: E402
    bootstrap_interval, mcnemar_interval, mcnemar_p, paired_bootstrap, spread_bounds, spread_statistic, wilson_interval,
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


def mcnemar_interval_coverage(runs: int, nq: int, psi: float | None = None, delta: float = 0.0) -> float:
    """Coverage of compare's 0/1 interval (inverted from the exact McNemar test). ``psi`` None:
    the paired population above (~12% discordant); else cells Multinomial(p10, p01, rest) with
    discordance psi and difference delta (delta = psi: every discordant question one way)."""
    rng = np.random.default_rng(20 + nq)
    if psi is None:
        p_a, p_b = _paired_population(rng)
        truth = float(p_a.mean() - p_b.mean())
    else:
        truth = delta
    covered = 0
    for _ in range(runs):
        if psi is None:
            q = rng.integers(0, len(p_a), nq)
            shared = rng.random(nq)
            a, b = (shared < p_a[q]).astype(int), (shared < p_b[q]).astype(int)
        else:
            n10, n01, _ = rng.multinomial(nq, [(psi + delta) / 2, (psi - delta) / 2, 1 - psi])
            a = np.r_[np.ones(n10), np.zeros(n01), np.zeros(nq - n10 - n01)].astype(int)
            b = np.r_[np.zeros(n10), np.ones(n01), np.zeros(nq - n10 - n01)].astype(int)
        lo, hi = mcnemar_interval(a, b)
        covered += lo <= truth <= hi
    return covered / runs


def mcnemar_type_one(runs: int, nq: int) -> float:
    """Share of exact McNemar p <= 0.05 for two runs of one model (same per-question rates)."""
    rng = np.random.default_rng(30 + nq)
    p_a, _ = _paired_population(rng)
    rejected = 0
    for _ in range(runs):
        q = rng.integers(0, len(p_a), nq)
        a, b = rng.random(nq) < p_a[q], rng.random(nq) < p_a[q]
        rejected += mcnemar_p(a.astype(int), b.astype(int)) <= 0.05
    return rejected / runs


def sampling_type_one(runs: int, nq: int, metric: str, k: int, tau: float = 0.0) -> float:
    """Share of paired-bootstrap p <= 0.05 (p inverted from the interval, so: the interval excludes
    0) for two runs of one model: per-question success rates shared, 16 fresh samples each."""
    rng = np.random.default_rng(40 + nq)
    population = rng.beta(0.7, 0.9, 1000)
    fn = {"pass": lambda c: pass_at_k(16, c, k), "g_pass": lambda c: g_pass_at_k(16, c, k, tau)}[metric]
    rejected = 0
    for run in range(runs):
        rates = population[rng.integers(0, 1000, nq)]
        r = paired_bootstrap(fn(rng.binomial(16, rates)), fn(rng.binomial(16, rates)), seed=run)
        rejected += r.p_value <= 0.05
    return rejected / runs


def spread_difference(runs: int, nq: int, kind: str, span_a: float, span_b: float) -> float:
    """Coverage of compare's spread-difference interval (box of the two runs' spread intervals):
    A has a logit prompt effect -span_a..+span_a over 10 prompts, B -span_b..+span_b. With
    span_a = span_b the runs are one model, and 1 - coverage is the type-I error of its p."""
    rng = np.random.default_rng(50 + nq)
    ability = rng.normal(0.3, 1.5, 4000)
    pa = 1 / (1 + np.exp(-(ability[:, None] + np.linspace(-span_a, span_a, 10)[None, :])))
    pb = 1 / (1 + np.exp(-(ability[:, None] + np.linspace(-span_b, span_b, 10)[None, :])))
    stat = spread_statistic(kind)
    truth = float(stat(pa.mean(axis=0)[None, :])[0] - stat(pb.mean(axis=0)[None, :])[0])
    covered = 0
    for _ in range(runs):
        q = rng.integers(0, 4000, nq)
        xa = (rng.random((nq, 10)) < pa[q]).astype(float)
        xb = (rng.random((nq, 10)) < pb[q]).astype(float)
        lo, hi = _spread_difference_box(kind, xa, xb, 0.95)
        covered += lo - 1e-12 <= truth <= hi + 1e-12
    return covered / runs


def holm_family_error(runs: int, nq: int = 200, metrics: int = 5) -> tuple[float, float]:
    """Two runs of one model, ``metrics`` 0/1 metrics (each its own questions' success rates):
    the share of invocations with some raw p <= 0.05, and with some p_value_adjusted <= 0.05."""
    from scorekit.compare.core import MetricValues, Run, compare_runs

    rng = np.random.default_rng(60)
    p_a, _ = _paired_population(rng)
    raw = adjusted = 0
    ids = [str(i) for i in range(nq)]
    for _ in range(runs):
        ta, tb = {}, {}
        for m in range(metrics):
            rates = p_a[rng.integers(0, len(p_a), nq)]
            ta[f"m{m}"] = MetricValues("binary", ids, rng.random(nq) < rates)
            tb[f"m{m}"] = MetricValues("binary", ids, rng.random(nq) < rates)
        out, _ = compare_runs([Run("A", "A", "-", {"t": ta}), Run("B", "B", "-", {"t": tb})])
        raw += any(c.p_value <= 0.05 for c in out)
        adjusted += any(c.p_value_adjusted <= 0.05 for c in out)
    return raw / runs, adjusted / runs


SMALL_SIZES = (3, 5, 7, 9, 10, 20)


def small_sample_coverage(runs: int, nq: int, kind: str) -> float:
    """Coverage of scorekit's bootstrap interval of a per-question mean with few questions (the
    threshold of scorekit.metrics.intervals.unreported): ``beta`` per-question scores
    Beta(0.5, 0.5) (truth 0.5); ``pass2`` pass@2 of 4 samples at a per-question rate U(0, 1)."""
    rng = np.random.default_rng(100 + nq)
    if kind == "beta":
        draw, truth = (lambda: rng.beta(0.5, 0.5, nq)), 0.5
    else:
        draw = lambda: 1 - (1 - rng.binomial(4, rng.random(nq)) / 4) ** 2  # noqa: E731
        truth = float(np.mean([1 - (1 - c / 4) ** 2 for c in range(5)]))  # c uniform on 0..4 when the rate is U(0, 1)
    covered = 0
    for run in range(runs):
        r = bootstrap_interval(draw(), n_boot=1000, seed=run)
        covered += r.ci_low <= truth <= r.ci_high
    return covered / runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5000)
    ap.add_argument("--only", choices=("all", "spreads", "compare", "small"), default="all")
    args = ap.parse_args()
    if args.only == "small":
        print("| bootstrap of a per-question mean | " + " | ".join(f"Q={n}" for n in SMALL_SIZES) + " |")
        print("|---|" + "---|" * len(SMALL_SIZES))
        for name, kind in (("scores Beta(0.5, 0.5)", "beta"), ("pass@2 of 4 samples, rate U(0, 1)", "pass2")):
            print(f"| {name} | " + " | ".join(f"{small_sample_coverage(args.runs, n, kind):.1%}" for n in SMALL_SIZES) + " |",
                  flush=True)
        return
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
    if args.only == "compare":
        rows = [
            ("0/1 difference, interval inverted from exact McNemar (coverage)", lambda n: mcnemar_interval_coverage(args.runs, n)),
            ("0/1 difference, 4% discordant all one way (coverage)",
             lambda n: mcnemar_interval_coverage(args.runs, n, psi=0.04, delta=0.04)),
            ("0/1 difference, 12% discordant, delta 0.1 (coverage)",
             lambda n: mcnemar_interval_coverage(args.runs, n, psi=0.12, delta=0.1)),
            ("exact McNemar, one model twice (type-I error)", lambda n: mcnemar_type_one(args.runs, n)),
            ("pass@4 difference, one model twice (type-I error, p inverted from the interval)",
             lambda n: sampling_type_one(args.runs, n, "pass", 4)),
            ("G-Pass@8 tau=0.5 difference, one model twice (type-I error)",
             lambda n: sampling_type_one(args.runs, n, "g_pass", 8, 0.5)),
            ("range difference, prompt effect in A only (coverage, box)", lambda n: spread_difference(args.runs, n, "range", 0.5, 0.0)),
            ("std difference, prompt effect in A only (coverage, box)", lambda n: spread_difference(args.runs, n, "std", 0.5, 0.0)),
            ("range difference, one model twice (type-I error = 1 - coverage)",
             lambda n: 1 - spread_difference(args.runs, n, "range", 0.5, 0.5)),
            ("std difference, one model twice (type-I error = 1 - coverage)",
             lambda n: 1 - spread_difference(args.runs, n, "std", 0.5, 0.5)),
        ]
    for name, fn in rows:
        print(f"| {name} | " + " | ".join(f"{fn(n):.1%}" for n in SIZES) + " |", flush=True)
    if args.only == "compare":
        raw, adjusted = holm_family_error(args.runs)
        print(f"\nTwo runs of one model, five 0/1 metrics, 200 questions ({args.runs} runs): some raw p <= 0.05 in "
              f"{raw:.1%}, some p_value_adjusted <= 0.05 in {adjusted:.1%}")


if __name__ == "__main__":
    main()
