"""scorekit.metrics.intervals: formulas checked against independent computations, and coverage
with a known truth (>= 93% at nominal 95% for realistic sizes; bigger runs in bench/sim_intervals.py).
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from scipy.stats import binom

from scorekit.metrics import g_pass_at_k, pass_at_k
from scorekit.metrics.intervals import (
    bootstrap_interval,
    holm,
    mcnemar_p,
    paired_bootstrap,
    spread_statistic,
    threshold_stderr,
    wilson_interval,
    z_value,
)

Z = 1.959963984540054


# --- formulas ---------------------------------------------------------------------------------


@pytest.mark.parametrize("s,n", [(0, 10), (3, 10), (10, 10), (57, 100), (1, 1000)])
def test_wilson_bounds_solve_the_score_test(s, n):
    """Each Wilson bound p0 satisfies |s/n - p0| = z sqrt(p0 (1 - p0) / n) (the score test)."""
    lo, hi = wilson_interval(s, n)
    phat = s / n
    for p0 in (lo, hi):
        if 0 < p0 < 1:
            assert abs(abs(phat - p0) - Z * math.sqrt(p0 * (1 - p0) / n)) < 1e-12
    assert lo <= phat <= hi
    assert (lo == 0) == (s == 0) and (hi == 1) == (s == n)


def test_wilson_arrays_and_errors():
    lo, hi = wilson_interval(np.array([0, 5]), np.array([0, 10]))
    assert math.isnan(lo[0]) and math.isnan(hi[0]) and lo[1] < 0.5 < hi[1]
    with pytest.raises(ValueError):
        wilson_interval(11, 10)
    with pytest.raises(ValueError):
        wilson_interval(1, 10, confidence=1.0)
    assert abs(z_value(0.95) - Z) < 1e-12


# --- the same numbers as scipy / statsmodels (kept hand-written: see metrics/intervals.py) -------


def test_wilson_equals_scipy():
    from scipy.stats import binomtest

    for confidence in (0.8, 0.9, 0.95, 0.99):
        for n in range(1, 41):
            ks = np.arange(n + 1)
            lows, highs = wilson_interval(ks, np.full(n + 1, n), confidence)  # arrays, as compare passes them
            for k in ks:
                ci = binomtest(int(k), n).proportion_ci(confidence, method="wilson")
                assert abs(lows[k] - ci.low) < 1e-12 and abs(highs[k] - ci.high) < 1e-12, (k, n, confidence)
                assert wilson_interval(int(k), n, confidence) == (lows[k], highs[k])


@pytest.mark.parametrize("p,want", [
    # statsmodels 0.15.0: statsmodels.stats.multitest.multipletests(p, method="holm")[1]
    ([0.01, 0.04, 0.03], [0.03, 0.06, 0.06]),
    ([0.2, 0.01, 0.5, 0.01], [0.4, 0.04, 0.5, 0.04]),
    ([0.001, 0.9], [0.002, 0.9]),
    ([0.05, 0.05, 0.05, 0.05], [0.2, 0.2, 0.2, 0.2]),
    ([0.0123, 0.0456, 0.00789, 0.31, 0.0021, 0.049], [0.0492, 0.1368, 0.03945, 0.31, 0.0126, 0.1368]),
    ([0.6, 0.3, 0.02, 0.04, 0.001, 0.8, 0.011], [1.0, 0.8999999999999999, 0.1, 0.16, 0.007, 1.0, 0.066]),
])
def test_holm_equals_statsmodels(p, want):
    assert holm(p) == want


def _mcnemar_by_hand(n10: int, n01: int) -> float:
    """Two-sided exact binomial p: the sum of outcomes no more likely than the observed one."""
    n = n10 + n01
    if n == 0:
        return 1.0
    pmf = [math.comb(n, i) / 2**n for i in range(n + 1)]
    return min(1.0, sum(q for q in pmf if q <= pmf[n10] * (1 + 1e-7)))


@pytest.mark.parametrize("n10,n01,n11,n00", [(6, 0, 3, 3), (10, 4, 50, 20), (7, 7, 1, 0), (0, 0, 5, 5), (30, 12, 100, 9)])
def test_mcnemar_matches_the_binomial_sum(n10, n01, n11, n00):
    a = [1] * n10 + [0] * n01 + [1] * n11 + [0] * n00
    b = [0] * n10 + [1] * n01 + [1] * n11 + [0] * n00
    assert mcnemar_p(a, b) == pytest.approx(_mcnemar_by_hand(n10, n01), rel=1e-9)
    assert mcnemar_p(a, b) == pytest.approx(mcnemar_p(b, a), rel=1e-12)  # symmetric


def test_mcnemar_rejects_non_binary():
    with pytest.raises(ValueError):
        mcnemar_p([0.5, 1], [1, 1])
    with pytest.raises(ValueError):
        mcnemar_p([1, 0, 1], [1, 0])


def _holm_by_definition(p: list[float], alpha: float) -> list[bool]:
    """Holm's procedure as a decision rule: reject H_(i) while p_(i) <= alpha / (m - i + 1)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    reject = [False] * len(p)
    for rank, i in enumerate(order):
        if p[i] > alpha / (len(p) - rank):
            break
        reject[i] = True
    return reject


@pytest.mark.parametrize("seed", range(20))
def test_holm_adjusted_values_give_holms_decisions(seed):
    rng = np.random.default_rng(seed)
    p = list(rng.uniform(0, 0.1, size=rng.integers(1, 8)))
    adjusted = holm(p)
    assert all(a >= q for a, q in zip(adjusted, p)) and all(a <= 1 for a in adjusted)
    for alpha in (0.01, 0.05, 0.1):
        assert [a <= alpha for a in adjusted] == _holm_by_definition(p, alpha)


def test_holm_keeps_nan_out_of_the_count():
    out = holm([0.02, float("nan"), 0.04])
    assert out[0] == pytest.approx(0.04) and math.isnan(out[1]) and out[2] == pytest.approx(0.04)


def test_paired_bootstrap_agrees_with_the_normal_approximation():
    rng = np.random.default_rng(1)
    a = rng.random(2000) < 0.7
    b = np.where(rng.random(2000) < 0.8, a, rng.random(2000) < 0.6)
    r = paired_bootstrap(a, b, n_boot=4000)
    d = a.astype(float) - b
    se = d.std(ddof=1) / math.sqrt(len(d))
    assert r.estimate == pytest.approx(d.mean(), abs=1e-12) and r.n == 2000
    assert r.ci_low == pytest.approx(d.mean() - Z * se, abs=0.15 * Z * se)
    assert r.ci_high == pytest.approx(d.mean() + Z * se, abs=0.15 * Z * se)
    # the same seed gives the same interval; another seed a slightly different one
    assert paired_bootstrap(a, b, n_boot=4000) == r
    assert paired_bootstrap(a, b, n_boot=4000, seed=2) != r


def test_paired_bootstrap_is_narrower_than_unpaired_for_correlated_runs():
    rng = np.random.default_rng(2)
    a = rng.random(500) < 0.6
    b = np.where(rng.random(500) < 0.9, a, ~a)
    paired = paired_bootstrap(a, b)
    unpaired_se = math.sqrt(a.var() / 500 + b.var() / 500)
    assert paired.ci_high - paired.ci_low < 2 * Z * unpaired_se * 0.6


def test_bootstrap_spread_statistic_matches_direct_computation():
    rng = np.random.default_rng(3)
    x = (rng.random((300, 5)) < np.array([0.5, 0.55, 0.6, 0.65, 0.7])).astype(float)
    for kind, direct in (("range", np.ptp(x.mean(axis=0))), ("std", x.mean(axis=0).std())):
        r = bootstrap_interval(x, spread_statistic(kind))
        assert r.estimate == pytest.approx(direct, abs=1e-12)
        assert r.ci_low <= r.estimate <= r.ci_high
    with pytest.raises(ValueError):
        spread_statistic("iqr")


def test_small_and_degenerate_inputs():
    assert math.isnan(bootstrap_interval([1]).ci_low) and bootstrap_interval([1]).estimate == 1.0
    r = paired_bootstrap([1, 0, 1], [1, 0, 1])
    assert (r.estimate, r.ci_low, r.ci_high) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        paired_bootstrap([1, 0], [1, 0, 1])
    with pytest.raises(ValueError):
        bootstrap_interval([1.0, float("nan")])


def test_stderr_propagation_formulas():
    assert threshold_stderr(0.1, 0.01, good=1.0, bad=0.25) == pytest.approx(0.01 / 0.75)  # clamped: kept
    assert threshold_stderr(0.5, 0.03, good=0.2, bad=0.8) == pytest.approx(0.05)
    assert math.isnan(threshold_stderr(0.5, 0.03, good=0.5, bad=0.5))


# --- coverage with a known truth -----------------------------------------------------------------


@pytest.mark.parametrize("n", [200, 500, 1000])
def test_wilson_exact_coverage(n):
    """Exact coverage (a sum over the binomial distribution, no simulation) on a grid of p in
    [0.05, 0.95] (step 0.005): the minimum over p is >= 93% from n = 200 (93.8%; at n = 100 it
    dips to 92.7%, docs/uncertainty.md)."""
    k = np.arange(n + 1)
    lo, hi = wilson_interval(k, n)
    coverage = [binom.pmf(k, n, p)[(lo <= p) & (p <= hi)].sum() for p in np.linspace(0.05, 0.95, 181)]
    assert min(coverage) >= 0.93
    assert 0.945 <= float(np.mean(coverage)) <= 0.955


def _paired_population(rng: np.random.Generator, size: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """Per-question probabilities of two correlated models: shared difficulty, B slightly better
    on some questions and worse on others."""
    difficulty = rng.beta(2, 2, size)
    p_a = np.clip(1.1 - difficulty, 0.02, 0.98)
    p_b = np.clip(p_a + rng.normal(-0.03, 0.15, size), 0.02, 0.98)
    return p_a, p_b


@pytest.mark.parametrize("n_questions", [200, 1000])
def test_paired_bootstrap_coverage(n_questions):
    """2000 replications (Monte Carlo error ~0.5 points): 93.5% at 200, 93.8% at 1000."""
    rng = np.random.default_rng(10 + n_questions)
    p_a, p_b = _paired_population(rng)
    truth = float(p_a.mean() - p_b.mean())
    runs, covered = 2000, 0
    for run in range(runs):
        q = rng.integers(0, len(p_a), n_questions)
        shared = rng.random(n_questions)  # the same draw for both: a question's answers are correlated
        a, b = shared < p_a[q], shared < p_b[q]
        r = paired_bootstrap(a, b, seed=run)
        covered += r.ci_low <= truth <= r.ci_high
    assert covered / runs >= 0.93


@pytest.mark.parametrize("metric,k,tau", [("pass", 4, 0.0), ("g_pass", 8, 0.5), ("g_pass", 8, 1.0)])
def test_sampling_metric_bootstrap_coverage(metric, k, tau):
    """Corpus pass@k / G-Pass@k over 150 questions of 16 samples: the per-question value is
    unbiased for P[Binomial(k, p) >= m], so the truth is the population mean of that tail."""
    rng = np.random.default_rng(7)
    population = rng.beta(0.7, 0.9, 1000)  # per-question success probability, U-shaped like real tasks
    m = 1 if metric == "pass" else max(math.ceil(round(tau * k, 9)), 1)
    truth = float(binom.sf(m - 1, k, population).mean())
    runs, covered, n = 400, 0, 16
    for run in range(runs):
        p = population[rng.integers(0, len(population), 150)]
        c = rng.binomial(n, p)
        values = pass_at_k(n, c, k) if metric == "pass" else g_pass_at_k(n, c, k, tau)
        r = bootstrap_interval(values, seed=run)
        covered += r.ci_low <= truth <= r.ci_high
    assert covered / runs >= 0.93


def test_all_pairs_hold_the_family_wise_error():
    """Four runs of one model (no true difference): with Holm, some pair is called different
    in at most ~5% of replications."""
    rng = np.random.default_rng(11)
    p = rng.beta(2, 2, 300)
    false_alarms, reps = 0, 200
    for _ in range(reps):
        runs = [rng.random(300) < p for _ in range(4)]
        ps = [mcnemar_p(runs[i].astype(int), runs[j].astype(int)) for i, j in combinations(range(4), 2)]
        false_alarms += min(holm(ps)) <= 0.05
    assert false_alarms / reps <= 0.07


def test_distinct_rows_of_wide_binary_rows_match_np_unique():
    """0/1 rows wider than 16 columns (macro accuracy: variants x categories) are counted by
    block codes; rows, counts and their order must be np.unique's, so the draws are unchanged."""
    from scorekit.metrics.intervals import _distinct_rows

    rng = np.random.default_rng(3)
    for d in (17, 62, 63, 154):
        x = (rng.random((500, d)) < 0.05).astype(float)
        x[::5] = x[1]
        rows, counts = _distinct_rows(x)
        want_rows, want_counts = np.unique(x, axis=0, return_counts=True)
        assert np.array_equal(rows, want_rows) and np.array_equal(counts, want_counts)


def test_one_method_per_statistic_equals_separate_calls():
    from scorekit.metrics.intervals import bootstrap_intervals, spread_statistic

    x = np.random.default_rng(4).random((60, 3)) < 0.6
    stats = [lambda m: m[..., 0], spread_statistic("range")]
    both = bootstrap_intervals(x, stats, method=["percentile", "basic"])
    assert both[0] == bootstrap_intervals(x, stats[:1])[0]
    assert both[1] == bootstrap_intervals(x, stats[1:], method="basic")[0]
    with pytest.raises(ValueError):
        bootstrap_intervals(x, stats, method=["basic"])
