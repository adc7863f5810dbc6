"""compare's own rigor: every p-value agrees with the interval shown beside it,
the 0/1 interval agrees with the exact McNemar test, spread differences cover with a prompt
effect in one model only, content pairing, Holm over the whole call. Small simulations here
(seconds); the big ones are bench/sim_intervals.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import beta

from scorekit.compare.core import MetricValues, Run, compare_runs
from scorekit.metrics.intervals import holm, mcnemar_interval, mcnemar_p, paired_bootstrap


def _excludes_zero(lo: float, hi: float) -> bool:
    return lo > 0 or hi < 0


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_bootstrap_p_agrees_with_its_interval(confidence):
    """p <= 1 - confidence exactly when the interval excludes 0 (the plain percentile p of the
    old code said p = 0.049 beside an interval holding 0); 50 questions of skewed scores."""
    disagree = []
    for s in range(300):
        rng = np.random.default_rng(s)
        a = rng.beta(0.5, 0.5, 50)
        b = np.clip(a + rng.normal(0.06, 0.3, 50), 0, 1)
        r = paired_bootstrap(a, b, confidence=confidence, seed=s, n_boot=500)
        if _excludes_zero(r.ci_low, r.ci_high) != (r.p_value <= 1 - confidence):
            disagree.append((s, r.p_value, r.ci_low, r.ci_high))
    assert disagree == []


def _pair(n10: int, n01: int, n: int) -> tuple[list[int], list[int]]:
    rest = n - n10 - n01
    return [1] * n10 + [0] * n01 + [1] * (rest // 2) + [0] * (rest - rest // 2), \
        [0] * n10 + [1] * n01 + [1] * (rest // 2) + [0] * (rest - rest // 2)


def test_mcnemar_interval_agrees_with_the_exact_test():
    """Over every split of up to 25 discordant questions among 60: the interval excludes 0
    exactly when the exact McNemar p < 0.05; 5 of 5 one way (p = 0.0625) included."""
    for nd in range(26):
        for n10 in range(nd + 1):
            a, b = _pair(n10, nd - n10, 60)
            p = mcnemar_p(a, b)
            lo, hi = mcnemar_interval(a, b)
            assert lo <= (n10 - (nd - n10)) / 60 <= hi
            if abs(p - 0.05) > 1e-9:
                assert _excludes_zero(lo, hi) == (p < 0.05), (n10, nd, p, lo, hi)
    a, b = _pair(5, 0, 50)
    assert mcnemar_p(a, b) == pytest.approx(0.0625) and mcnemar_interval(a, b)[0] < 0


def test_mcnemar_interval_formula():
    """Bounds from Clopper-Pearson (scipy's beta quantiles, written independently) times the
    widening end of Wilson's interval of the discordance at z |bound|."""
    n10, n01, n = 14, 4, 80
    a, b = _pair(n10, n01, n)
    nd = n10 + n01
    pi_lo, pi_hi = beta.ppf(0.025, n10, nd - n10 + 1), beta.ppf(0.975, n10 + 1, nd - n10)

    def wilson(z):
        p = nd / n
        c, h = (p + z * z / (2 * n)) / (1 + z * z / n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return c - h, c + h

    lo_b, hi_b = 2 * pi_lo - 1, 2 * pi_hi - 1  # both positive here: low end x low d, high end x high d
    assert mcnemar_interval(a, b) == pytest.approx((lo_b * wilson(1.959964 * lo_b)[0], hi_b * wilson(1.959964 * hi_b)[1]), rel=1e-6)


@pytest.mark.parametrize("n,discordance,delta", [(50, 0.12, 0.06), (50, 0.04, 0.04), (200, 0.12, 0.1)])
def test_mcnemar_interval_coverage(n, discordance, delta):
    """1500 samples of the four cells: >= 93% (the bootstrap's was 92-93% at 50-100 questions
    with 12% discordant, far less when the discordance goes one way)."""
    rng = np.random.default_rng(n)
    p10, p01 = (discordance + delta) / 2, (discordance - delta) / 2
    cells = rng.multinomial(n, [p10, p01, 1 - discordance], size=1500)
    covered = 0
    for n10, n01, _ in cells:
        lo, hi = mcnemar_interval(*_pair(int(n10), int(n01), n))
        covered += lo <= delta <= hi
    assert covered / len(cells) >= 0.93


def _spread_run(label: str, x: np.ndarray, kind: str) -> Run:
    ids = [str(i) for i in range(len(x))]
    return Run(label, label, "-", {"t": {f"accuracy_{kind}": MetricValues(kind, ids, x)}})


def _prompts(rng, ability, effect, n):
    q = rng.integers(0, len(ability), n)
    p = 1 / (1 + np.exp(-(ability[q][:, None] + effect[None, :])))
    return (rng.random(p.shape) < p).astype(float)


@pytest.mark.parametrize("kind", ["range", "std"])
def test_spread_difference_covers_with_a_prompt_effect_in_one_model(kind):
    """Model A: 10 prompts with a logit effect -0.5..+0.5; model B: none (true spread 0).
    The paired bootstrap covered ~75% here; the box of the two spread intervals >= 93%
    (150 runs of 100 questions), and its p agrees with it."""
    rng = np.random.default_rng(5)
    ability = rng.normal(0.3, 1.5, 4000)
    effect = np.linspace(-0.5, 0.5, 10)
    pa = (1 / (1 + np.exp(-(ability[:, None] + effect[None, :])))).mean(axis=0)
    truth = float(np.ptp(pa) if kind == "range" else pa.std())
    covered, runs = 0, 150
    for _ in range(runs):
        xa, xb = _prompts(rng, ability, effect, 100), _prompts(rng, ability, np.zeros(10), 100)
        (c,), _ = compare_runs([_spread_run("A", xa, kind), _spread_run("B", xb, kind)])
        assert c.test == "spread_box" and _excludes_zero(c.ci_low, c.ci_high) == (c.p_value <= 0.05)
        covered += c.ci_low <= truth <= c.ci_high
    assert covered / runs >= 0.93


def test_spread_difference_type_one_error_for_identical_models():
    rng = np.random.default_rng(6)
    ability = rng.normal(0.3, 1.5, 4000)
    effect = np.linspace(-0.5, 0.5, 10)
    rejected = 0
    for _ in range(100):
        xa, xb = _prompts(rng, ability, effect, 100), _prompts(rng, ability, effect, 100)
        (c,), _ = compare_runs([_spread_run("A", xa, "std"), _spread_run("B", xb, "std")])
        rejected += c.p_value <= 0.05
    assert rejected <= 5


def test_questions_are_paired_by_content_when_ids_disagree():
    """The same 40 documents in another order (ids follow the order, doc_hash the content)."""
    rng = np.random.default_rng(1)
    right_a, right_b = rng.random(40) < 0.8, rng.random(40) < 0.6
    hashes = [f"h{i:02d}" for i in range(40)]
    order = rng.permutation(40)
    a = Run("A", "A", "-", {"t": {"acc": MetricValues("binary", [str(i) for i in range(40)], right_a, hashes)}})
    b = Run("B", "B", "-", {"t": {"acc": MetricValues("binary", [str(i) for i in range(40)], right_b[order],
                                                      [hashes[j] for j in order])}})
    (c,), notes = compare_runs([a, b])
    assert c.n_paired == 40 and c.a_only == c.b_only == 0
    assert c.difference == pytest.approx(right_a.mean() - right_b.mean())
    assert c.p_value == pytest.approx(mcnemar_p(right_a.astype(int), right_b.astype(int)))
    assert any("paired by content" in n for n in notes)
    # a document only B has is named by its id in B, not by its hash
    b_more = Run("B", "B", "-", {"t": {"acc": MetricValues("binary", [str(i) for i in range(41)], [*right_b[order], 1.0],
                                                           [*(hashes[j] for j in order), "extra"])}})
    (c3,), notes3 = compare_runs([a, b_more])
    assert c3.n_paired == 40 and c3.b_only == 1 and any("1 question(s) of B not in A" in n and "B:40" in n for n in notes3)
    # same ids, same content: paired by id, no note
    (c2,), notes2 = compare_runs([a, Run("B", "B", "-", {"t": {"acc": MetricValues("binary", [str(i) for i in range(40)], right_b, hashes)}})])
    assert c2.n_paired == 40 and not any("paired by content" in n for n in notes2)


def test_holm_over_every_comparison_of_the_call():
    rng = np.random.default_rng(2)
    ids = [str(i) for i in range(80)]
    metrics_a = {f"m{k}": MetricValues("binary", ids, rng.random(80) < 0.7) for k in range(5)}
    metrics_b = {f"m{k}": MetricValues("binary", ids, rng.random(80) < 0.6) for k in range(5)}
    out, _ = compare_runs([Run("A", "A", "-", {"t": metrics_a}), Run("B", "B", "-", {"t": metrics_b})])
    assert len(out) == 5
    assert [c.p_value_adjusted for c in out] == pytest.approx(holm([c.p_value for c in out]))
    assert all(c.p_value_adjusted >= c.p_value for c in out)
    assert all(c.min_detectable_difference > 0 for c in out)
    # two runs: the pairs of one metric are a family of one
    assert [c.p_value_adjusted_pairs for c in out] == [c.p_value for c in out]


def test_derived_pass_at_k_rows_are_a_holm_family_of_their_own():
    """Issue 34: pass@k rows scorekit derives from epochs no longer dilute the logged metric's
    adjusted p (Holm over 4 rows multiplied the smallest p by 4); they are adjusted among themselves."""
    rng = np.random.default_rng(3)
    ids = [str(i) for i in range(120)]
    a = {"match": MetricValues("mean", ids, rng.integers(0, 5, 120) / 4)}
    b = {"match": MetricValues("mean", ids, np.clip(a["match"].rows[:, 0] - rng.integers(0, 2, 120) / 4, 0, 1))}
    for k in (2, 3, 4):
        a[f"match/pass@{k}"] = MetricValues("mean", ids, rng.random(120), derived=True)
        b[f"match/pass@{k}"] = MetricValues("mean", ids, rng.random(120), derived=True)
    out, _ = compare_runs([Run("A", "A", "-", {"t": a}), Run("B", "B", "-", {"t": b})])
    by = {c.metric: c for c in out}
    assert by["match"].family == "logged" and by["match"].p_value_adjusted == by["match"].p_value
    derived = [by[f"match/pass@{k}"] for k in (2, 3, 4)]
    assert {c.family for c in derived} == {"derived"}
    assert [c.p_value_adjusted for c in derived] == pytest.approx(holm([c.p_value for c in derived]))
    # the old single family: Holm over all four rows
    assert holm([c.p_value for c in out])[0] > by["match"].p_value
