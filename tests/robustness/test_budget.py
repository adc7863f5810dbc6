"""Budgeted robustness (scorekit.robustness.budget): the design, the estimates, the planner.

The design is checked for balance and distinctness over many (N, V, B), for independence of
the order of the ids, nesting across budgets, uniform pairs over seeds, and against the
construction of its docstring written out again here (so a recorded design keeps its meaning).
Full runs must come out exact; a simulated budgeted run with a fixed seed must land near the
truth inside its intervals (the coverage itself is measured by bench/sim_budget.py, too slow for
a test). The consistency-rate variance is checked against enumeration of every subset.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import warnings

import numpy as np
import pytest

from scorekit.errors import ScorekitError
from scorekit.metrics import consistency_counts, consistency_rate
from scorekit.robustness.budget import (BudgetError, Design, DesignError, assign, check_budget, check_design,
                                        design_json, estimate_robustness)
from scorekit.robustness.budget.estimate import MIN_QUESTIONS, QUANTILES
from scorekit.robustness.budget.plan import pair_share_variance, plan_consistency, plan_quantiles
from scorekit.robustness.variance import anova_components


# ---------------------------------------------------------------- budgets


@pytest.mark.parametrize("budget, variants, expected", [(2, 100, 2), ("4", 10, 4), (" 3 ", 10, 3), (10, 10, 10),
                                                        (12, 10, 10), (np.int64(5), 10, 5)])
def test_valid_budgets(budget, variants, expected):
    assert check_budget(budget, variants) == expected


@pytest.mark.parametrize("budget", [0, 1, -3, 2.5, 2.0, "2.5", "two", "", True, None, [2]])
def test_invalid_budgets_are_refused_in_one_line(budget):
    with pytest.raises(BudgetError) as err:
        check_budget(budget, 10)
    assert isinstance(err.value, ScorekitError) and isinstance(err.value, ValueError)  # the CLI's exit 2
    assert "\n" not in str(err.value) and "budget" in str(err.value)


def test_a_family_needs_two_variants():
    with pytest.raises(BudgetError, match="at least 2 variants"):
        check_budget(2, 1)


# ---------------------------------------------------------------- the design


def _documented_design(ids: list[str], v: int, b: int, seed: int) -> dict[str, tuple[int, ...]]:
    """The construction of scorekit.robustness.budget.design's docstring, written out again."""
    def key(*parts):
        return hashlib.sha256("\x1f".join(["scorekit-budget-v1", *map(str, parts)]).encode()).digest()

    order = sorted(ids, key=lambda q: (key(seed, "question", q), q))
    out = {}
    for g in range(math.ceil(len(order) / v)):
        group = order[g * v:(g + 1) * v]
        perm = sorted(range(v), key=lambda j: (key(seed, "permutation", v, g, j), j))
        for j, q in enumerate(group):
            start = j if len(group) == v else j * v // len(group)
            out[q] = tuple(sorted(perm[(start + i) % v] for i in range(b)))
    return out


@pytest.mark.parametrize("n, v, b", [(1000, 100, 2), (1037, 100, 3), (95, 10, 2), (7, 10, 3), (333, 7, 5), (50, 3, 2),
                                     (1, 4, 2), (401, 40, 39)])
def test_design_is_balanced_and_distinct(n, v, b):
    ids = [f"q{i}" for i in range(n)]
    plan = assign(ids, Design.make(v, b, seed=11))
    assert list(plan) == ids
    assert all(len(set(vs)) == b and all(0 <= x < v for x in vs) for vs in plan.values())
    counts = np.bincount([x for vs in plan.values() for x in vs], minlength=v)
    assert np.all(np.abs(counts - n * b / v) <= 1), counts
    assert plan == _documented_design(ids, v, b, 11)


def test_design_is_stable_and_order_free():
    ids = list("abcdefg")
    plan = assign(ids, Design.make(5, 2, seed=7))
    # pinned: a recorded design must keep its meaning across versions and platforms
    assert plan == {"a": (0, 1), "b": (0, 4), "c": (1, 2), "d": (2, 4), "e": (0, 3), "f": (2, 3), "g": (3, 4)}
    assert assign(ids[::-1], Design.make(5, 2, seed=7)) == plan
    assert assign(list(range(30)), Design.make(6, 2, 1)) == assign([str(i) for i in range(30)], Design.make(6, 2, 1))
    assert assign(ids, Design.make(5, 2, seed=8)) != plan


def test_designs_are_nested_across_budgets():
    ids = [f"q{i}" for i in range(257)]
    plans = {b: assign(ids, Design.make(12, b, seed=3)) for b in (2, 3, 5, 8, 12)}
    for small, large in itertools.pairwise(sorted(plans)):
        assert all(set(plans[small][q]) <= set(plans[large][q]) for q in ids)
    assert all(vs == tuple(range(12)) for vs in plans[12].values())


def test_a_question_gets_uniformly_random_pairs_over_seeds():
    ids = [f"q{i}" for i in range(13)]
    seen = [assign(ids, Design.make(5, 2, seed))["q4"] for seed in range(2000)]
    freq = np.array([seen.count(p) for p in itertools.combinations(range(5), 2)])
    assert freq.sum() == 2000
    assert np.all(np.abs(freq - 200) < 4 * math.sqrt(200)), freq  # 10 pairs, each 1/10


def test_duplicate_ids_are_refused():
    with pytest.raises(BudgetError, match="appears twice"):
        assign(["1", 1, "2"], Design.make(4, 2))
    with pytest.raises(BudgetError, match="not one string"):
        assign("abc", Design.make(4, 2))


def test_design_json_round_trip_and_refusals():
    d = Design.make(100, 2, 5)
    assert d.to_json() == {"variants": 100, "per_question": 2, "seed": 5}
    assert Design.from_json(json.loads(json.dumps(d.to_json()))) == d
    assert design_json(d) == d.to_json() and design_json(Design.make(10, 12)) is None and design_json(None) is None
    assert Design.make(10, 12).full and d.cost == 2.0
    bad = [{"variants": 100, "per_question": 2}, {"variants": 100, "per_question": 2, "seed": 1, "x": 1},
           {"variants": 100, "per_question": 1, "seed": 1}, {"variants": 10, "per_question": 12, "seed": 1},
           {"variants": 100, "per_question": True, "seed": 1}, {"variants": 100, "per_question": 2.0, "seed": 1},
           {"variants": 100, "per_question": 2, "seed": -1}, [100, 2, 1]]
    for data in bad:
        with pytest.raises(BudgetError) as err:
            Design.from_json(data, path="tasks/x.yaml", where="design")
        assert str(err.value).startswith("tasks/x.yaml: design: ") and "\n" not in str(err.value)


def test_check_design_against_a_log():
    ids = [f"q{i}" for i in range(40)]
    d = Design.make(8, 3, seed=2)
    plan = assign(ids, d)
    observed = {q: list(vs) * 2 for q, vs in plan.items() if q != "q5"}  # samples repeat a variant
    observed["q7"] = list(plan["q7"])[:2]
    result = check_design(observed, d, ids)
    assert result.incomplete == {"q7": (plan["q7"][2],)} and result.absent == ["q5"]
    assert len(result.complete) == 38
    edited = dict(observed, q3=list(plan["q3"][:2]) + [next(x for x in range(8) if x not in plan["q3"])])
    with pytest.raises(DesignError, match="q3.*does not give it.*edited") as err:
        check_design(edited, d, ids, path="run/samples.jsonl")
    assert str(err.value).startswith("run/samples.jsonl: ")
    with pytest.raises(DesignError, match="outside 0..7"):
        check_design(dict(observed, q3=[9]), d, ids)
    with pytest.raises(DesignError, match="not one of the 40 questions"):
        check_design(dict(observed, other=[0]), d, ids)
    with pytest.raises(DesignError, match="not an integer"):
        check_design(dict(observed, q3=["1"]), d, ids)
    # another seed is another design: a log made with seed 2 fails against seed 3
    with pytest.raises(DesignError):
        check_design(observed, Design.make(8, 3, seed=3), ids)


# ---------------------------------------------------------------- estimates


def _answers_and_agree(answers: np.ndarray, asked: np.ndarray) -> np.ndarray:
    groups = [[a for a, k in zip(row, mask) if k] for row, mask in zip(answers.tolist(), asked)]
    return consistency_counts(groups)[0]


def _simulated(n: int, v: int, seed: int, spread: float = 0.5):
    rng = np.random.default_rng(seed)
    theta = np.where(rng.random(n) < 0.6, rng.normal(2, 1.2, n), rng.normal(-1, 1.5, n))
    p = 1 / (1 + np.exp(-(theta[:, None] + rng.normal(0, spread, v)[None, :])))
    correct = rng.random((n, v)) < p
    answers = np.where(correct, "gold", rng.choice(["x", "y", None], size=(n, v), p=[0.6, 0.3, 0.1]))
    return correct.astype(float), answers


def test_a_full_run_is_exact():
    y, answers = _simulated(60, 7, seed=1)
    est = estimate_robustness(y, agree=_answers_and_agree(answers, np.ones_like(y, dtype=bool)))
    acc = y.mean(axis=0)
    assert est.exact and est.per_question == 7 and est.draws == 0
    assert [e.value for e in est.variant_accuracy] == pytest.approx(acc)
    for p, e in est.accuracy_quantiles.items():
        assert e.value == pytest.approx(np.percentile(acc, float(p))) and e.ci_low == e.value == e.ci_high
    assert est.accuracy_std.value == pytest.approx(acc.std()) and est.accuracy_range.value == pytest.approx(np.ptp(acc))
    assert est.accuracy.value == pytest.approx(y.mean())
    components = anova_components(y)
    total = sum(components.values())
    for k, e in est.variance_shares.items():
        assert e.value == pytest.approx(components[k] / total) and e.ci_low == e.ci_high == e.value
    assert est.consistency_rate.value == pytest.approx(consistency_rate(answers.tolist()))
    j = est.to_json(labels=list("ABCDEFG"))
    assert j["estimated"] is False and list(j["accuracy_quantiles"]) == ["5", "25", "50", "75", "95"]
    assert j["accuracy_quantiles_ci_low"] == j["accuracy_quantiles"] and list(j["variant_accuracy"]) == list("ABCDEFG")


def test_macro_weights_give_the_weighted_accuracy():
    y, _ = _simulated(40, 5, seed=2)
    w = np.where(np.arange(40) < 10, 3.0, 1.0)
    est = estimate_robustness(y, weights=w)
    assert [e.value for e in est.variant_accuracy] == pytest.approx(w @ y / w.sum())


def _asked(n: int, v: int, b: int, seed: int) -> np.ndarray:
    """The (n, v) mask of the cells that the seeded design asks of questions q0 ... q{n-1}."""
    plan = assign([f"q{i}" for i in range(n)], Design.make(v, b, seed))
    asked = np.zeros((n, v), dtype=bool)
    for i in range(n):
        asked[i, list(plan[f"q{i}"])] = True
    return asked


def _budgeted(n, v, b, seed):
    y, answers = _simulated(n, v, seed)
    asked = _asked(n, v, b, seed)
    truth = estimate_robustness(y, agree=_answers_and_agree(answers, np.ones_like(asked)))
    est = estimate_robustness(np.where(asked, y, np.nan), agree=_answers_and_agree(answers, asked), draws=300, seed=0)
    return truth, est, asked, y


def test_a_budgeted_run_recovers_the_full_run():
    truth, est, asked, y = _budgeted(600, 20, 4, seed=3)
    assert not est.exact and est.per_question == 4 and est.draws == 300
    naive = np.nanmean(np.where(asked, y, np.nan), axis=0)
    # One run cannot show 95% coverage of five correlated intervals (bench/sim_budget.py does):
    # here the 25% and 75% quantiles' intervals miss by less than 0.001 (before each theta was
    # drawn given the betas, too-wide intervals held them by 0.003 and 0.001).
    for p in QUANTILES:
        t, e = truth.accuracy_quantiles[str(p)].value, est.accuracy_quantiles[str(p)]
        assert e.ci_low - 0.01 <= t <= e.ci_high + 0.01, (p, t, e)
        assert abs(e.value - t) < 0.04
    # the IRT estimates are nearer the truth than the raw per-variant accuracies
    ours = np.mean([abs(e.value - t.value) for e, t in zip(est.variant_accuracy, truth.variant_accuracy)])
    raw = np.mean(np.abs(naive - np.array([t.value for t in truth.variant_accuracy])))
    assert ours < raw
    assert np.mean([e.ci_low <= t.value <= e.ci_high for e, t in zip(est.variant_accuracy, truth.variant_accuracy)]) >= 0.85
    for name in ("accuracy", "accuracy_std", "consistency_rate"):
        t, e = getattr(truth, name).value, getattr(est, name)
        assert e.ci_low <= t <= e.ci_high, (name, t, e)
        assert e.ci_low < e.value < e.ci_high
    for k, e in est.variance_shares.items():
        assert e.ci_low <= truth.variance_shares[k].value <= e.ci_high, k
    assert sum(e.value for e in est.variance_shares.values()) == pytest.approx(1, abs=0.02)
    j = est.to_json()
    assert j["estimated"] is True and j["per_question"] == 4
    assert all(j["accuracy_quantiles_ci_low"][k] <= j["accuracy_quantiles"][k] <= j["accuracy_quantiles_ci_high"][k]
               for k in j["accuracy_quantiles"])


def test_a_cluster_of_broken_prompts_is_found_at_100_variants_and_2_per_question():
    """8 of 100 prompts at beta = -3 (they score about 0.2 where the others score about 0.6),
    1,000 questions asked 2 prompts each: 20 answers per prompt. A heavy-tailed t explains them
    about as well as a cluster does, so the prior on the cluster decides; with "no cluster" at
    half the prior mass and the cluster anywhere in -6..6 the posterior gave a cluster below
    -1.5 a third of its mass (0.33 for this seed), and the 5% quantile's interval covered 75%
    of such families in bench/sim_budget.py."""
    from scorekit.robustness.budget import model

    n, v = 1000, 100
    rng = np.random.default_rng(2)
    theta = np.where(rng.random(n) < 0.6, rng.normal(2, 1.2, n), rng.normal(-1, 1.5, n))
    beta = rng.normal(0, 0.8, v)
    beta[:8] = -3.0
    y = (rng.random((n, v)) < 1 / (1 + np.exp(-(theta[:, None] + beta[None, :])))).astype(float)
    asked = _asked(n, v, 2, 2)
    fitted = model.fit(np.where(asked, y, 0.0), asked)
    by_cluster = fitted.hyper.sum(axis=0)
    low = sum(by_cluster[c] for c in range(1, by_cluster.size) if model.BETA[model._cluster(c)[1]] <= -1.5)
    assert low > 0.6, low
    assert all(model.BETA[model._cluster(c)[1]] <= 0 for c in range(1, by_cluster.size))  # below the centre only


def test_the_mean_accuracy_interval_is_as_wide_as_its_error_where_prompts_spread():
    """Over 100 simulated runs with a strong prompt spread (beta ~ N(0, 1.2), 300 questions, 20
    prompts, 2 per question), the truth's distance from the estimate in units of the interval's
    implied standard deviation (half-width / 1.96) has a standard deviation near 1 (0.99 here).
    Drawing each question's theta from its posterior under the prompts' posterior predictive
    rather than given the draw's betas counts an asked answer's luck twice, in theta and in beta:
    the intervals were too wide, 0.81 here (0.79 at 1,000 questions x 100 prompts; the standard
    error of such a figure over 100 runs is about 0.07)."""
    n, v, reps = 300, 20, 100
    z = []
    for r in range(reps):
        y, _ = _simulated(n, v, seed=1000 + r, spread=1.2)
        asked = _asked(n, v, 2, r)
        e = estimate_robustness(np.where(asked, y, np.nan), draws=200, seed=0).accuracy
        z.append((y.mean() - e.value) / ((e.ci_high - e.ci_low) / (2 * 1.96)))
    assert 0.9 < np.std(z) < 1.15, np.std(z)
    assert abs(np.mean(z)) < 0.25, np.mean(z)


def test_quantiles_at_0_hold_0_when_only_one_variant_is_ever_right():
    """A weak model with a position bias: one answer position right (each question with its own
    chance, 0.4 on average), the nine others never, so the full run's 50% and 75% quantiles are
    exactly 0. Each never-right position is asked of 50 questions; its right answers among the
    200 others are a count with a small mean, 0 with a good chance. Drawn as a normal sum with
    that mean and variance, clipped at 0, it was 0 far less often, eight of the nine were almost
    never 0 in one draw, and the 75% quantile's interval held 0 in none of these 10 designs (the
    median's in 5; with binomial counts 10 and 10)."""
    n, v = 250, 10
    rng = np.random.default_rng(5)
    y = np.zeros((n, v))
    y[:, 0] = rng.random(n) < rng.beta(1.2, 1.8, n)
    held = {"50": 0, "75": 0}
    for seed in range(10):
        est = estimate_robustness(np.where(_asked(n, v, 2, seed), y, np.nan), draws=300, seed=seed)
        for q in held:
            held[q] += est.accuracy_quantiles[q].ci_low == 0.0
    assert held["50"] >= 9 and held["75"] >= 8, held


def test_a_variant_never_right_can_be_exactly_0():
    """Prompts whose format the parser never reads: three of 40 variants never right, the others
    spread (sd 0.8) over questions of mixed easiness. Each is asked of 25 questions. With the
    variant effect only down to -6 (the grid before), such a variant was still drawn right on
    about 1% of its unasked questions (an easy question keeps a real chance at -6): its
    interval held its full run's 0 in none of these 5 designs (0 of 15), nor did the minimum's."""
    n, v = 500, 40
    rng = np.random.default_rng(11)
    theta = np.where(rng.random(n) < 0.6, rng.normal(2, 1.2, n), rng.normal(-1, 1.5, n))
    y = (rng.random((n, v)) < 1 / (1 + np.exp(-(theta[:, None] + rng.normal(0, 0.8, v))))).astype(float)
    dead = [3, 17, 30]
    y[:, dead] = 0.0
    held, minimum = 0, 0
    for seed in range(5):
        est = estimate_robustness(np.where(_asked(n, v, 2, seed), y, np.nan), draws=300, seed=seed)
        held += sum(est.variant_accuracy[j].ci_low == 0.0 for j in dead)
        minimum += est.accuracy_min.ci_low == 0.0
    assert held >= 13 and minimum >= 4, (held, minimum)


def test_a_variant_always_right_where_the_others_never_are():
    """The mirror image, and the extreme a position bias reaches on questions a model cannot
    answer: one arrangement always right, the others never. The full run's maximum, range and
    std are at the largest the family allows; with the effect only up to +6 the intervals of
    the maximum and of the right variant stopped short of 1 in some designs."""
    n, v = 60, 12
    y = np.zeros((n, v))
    y[:, 7] = 1.0
    full = estimate_robustness(y)
    for seed in range(5):
        est = estimate_robustness(np.where(_asked(n, v, 2, seed), y, np.nan), draws=300, seed=seed)
        for name in ("accuracy_max", "accuracy_range", "accuracy_std", "accuracy_min"):
            e, t = getattr(est, name), getattr(full, name).value
            assert e.ci_low - 1e-12 <= t <= e.ci_high + 1e-12, (seed, name, e, t)
        assert est.variant_accuracy[7].ci_high == 1.0


def test_subset_sum_moments_match_every_subset():
    """Under question weights, the weight of the c right answers among m unasked cells is that
    of a random c-subset of their weights; its mean and variance against enumeration."""
    from itertools import combinations

    from scorekit.robustness.budget.model import subset_sum_moments

    w = np.array([0.5, 1.0, 1.0, 2.5, 4.0, 7.0])
    for c in range(len(w) + 1):
        sums = [sum(s) for s in combinations(w, c)]
        mean, var = subset_sum_moments(np.array(c), np.array(len(w)), np.array(w.sum()), np.array(w @ w))
        assert mean == pytest.approx(np.mean(sums)) and var == pytest.approx(np.var(sums), abs=1e-12)
    mean, var = subset_sum_moments(np.array([0, 1]), np.array([0, 1]), np.array([0.0, 3.0]), np.array([0.0, 9.0]))
    assert list(mean) == [0.0, 3.0] and list(var) == [0.0, 0.0]


def test_weighted_draws_count_only_the_unasked_questions_weights():
    """With weights that differ only in the ninth digit, every draw's weighted per-variant
    accuracies (the unasked cells' right answers weighed as a random subset of their questions)
    are its unweighted ones; a weight total over the wrong questions (all of a grid place's, or
    the asked ones too) would show here."""
    from scorekit.robustness.budget import model

    y, _ = _simulated(300, 8, seed=6)
    asked = _asked(300, 8, 2, 6)
    w = 1.0 + 1e-9 * np.arange(300)
    yz = np.where(asked, y, 0.0)
    drawn = model.draws(model.fit(yz, asked), yz, asked, w / w.sum(), 50, 0)
    assert np.abs(drawn.accuracy - drawn.plain).max() < 1e-6
    assert drawn.plain.std(axis=0).min() > 0.005  # the unasked cells do vary between draws


def test_budgeted_estimates_are_reproducible():
    y, _ = _simulated(200, 10, seed=4)
    asked = _asked(200, 10, 2, 0)
    a = estimate_robustness(np.where(asked, y, np.nan), draws=100, seed=5).to_json()
    b = estimate_robustness(np.where(asked, y, np.nan), draws=100, seed=5).to_json()
    assert a == b


def test_consistency_rate_is_the_mean_of_the_asked_shares():
    """The budgeted CR is the design-unbiased mean of agree_q / C(B_q, 2)."""
    y = np.full((12, 5), np.nan)
    y[:, :2] = 1
    y[:6, 2] = 0  # the first 6 questions were asked 3 variants (1 agreeing pair of 3), the others 2 (it agrees)
    est = estimate_robustness(y, agree=np.array([1] * 12), draws=50)
    assert est.consistency_rate.value == pytest.approx(np.mean([1 / 3] * 6 + [1] * 6))


@pytest.mark.parametrize("budgeted", [True, False])
def test_consistency_rate_without_two_parsed_answers_is_undefined_not_0(budgeted):
    """No question has two parsed answers (a model that never names a choice): the CR is NaN with
    a warning, as consistency_rate says; one question with a parsed pair makes it defined again."""
    y = np.zeros((12, 4))
    if budgeted:
        y[:, 2:] = np.nan
    asked = int((~np.isnan(y)).sum(axis=1)[0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = estimate_robustness(y, agree=[0] * 12, parsed=[0] * 12, draws=50)
    assert math.isnan(est.consistency_rate.value) and est.to_json()["consistency_rate"] is None
    assert any("undefined, not 0" in str(w.message) for w in caught)
    assert est.accuracy.value < 0.01  # the other numbers stay (a budgeted one is a posterior mean, near 0)
    defined = estimate_robustness(y, agree=[1] + [0] * 11, parsed=[asked] + [0] * 11, draws=50)
    assert defined.consistency_rate.value > 0


def test_bad_matrices_are_refused():
    with pytest.raises(BudgetError, match="question 1, variant 2: correctness must be 0, 1 or NaN"):
        estimate_robustness([[1, 0, 1], [1, 0, 0.5]])
    with pytest.raises(BudgetError, match="question 1 was asked no variant"):
        estimate_robustness([[1, np.nan, 0], [np.nan, np.nan, np.nan]])
    with pytest.raises(BudgetError, match="agreeing pairs"):
        estimate_robustness([[1, 0, np.nan], [1, 1, np.nan]], agree=[0, 2])
    with pytest.raises(BudgetError, match="2 variants"):
        estimate_robustness([[1], [0]])
    with pytest.raises(ValueError, match="matrix"):
        estimate_robustness([1, 0, 1])
    with pytest.raises(ValueError, match="confidence"):
        estimate_robustness([[1, 0]], confidence=1.5)


def test_too_few_questions_give_nan_with_a_warning():
    y = np.array([[1, np.nan, 0], [np.nan, 1, 1]] * 3, dtype=float)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = estimate_robustness(y, agree=[0] * 6)
    assert any(f"at least {MIN_QUESTIONS}" in str(w.message) for w in caught)
    assert math.isnan(est.accuracy_quantiles["50"].value) and est.to_json()["accuracy"] is None


# ---------------------------------------------------------------- planning


def test_pair_share_variance_matches_every_subset():
    answers = ["a", "a", "a", "b", "b", "c", "d", None]
    for b in range(2, len(answers) + 1):
        shares = []
        for subset in itertools.combinations(answers, b):
            agree, total = consistency_counts([list(subset)])
            shares.append(agree[0] / total[0])
        assert pair_share_variance([3, 2, 1, 1], len(answers), b) == pytest.approx(np.var(shares), abs=1e-12)


def test_plan_consistency_reaches_its_half_width():
    rows = plan_consistency(0.02, variants=10, budgets=[2, 4, 10], rate=0.8)
    assert [r.per_question for r in rows] == [2, 4, 10]
    assert rows[0].questions > rows[1].questions and rows[2].half_width == 0.0
    assert all(r.half_width <= 0.02 for r in rows) and rows[1].evaluations == rows[1].questions * 4
    # with pilot answers: the exact variance, checked by simulating budgeted runs of the pilot
    rng = np.random.default_rng(0)
    pilot = [list(rng.multinomial(10, rng.dirichlet([2, 1, 0.5]))) for _ in range(400)]
    (row,) = plan_consistency(0.03, variants=10, budgets=[3], pilot_counts=pilot)
    populations = np.array([np.repeat(np.arange(3), c) for c in pilot])  # 400 x 10 answer codes
    rates = np.array([sum(m * (m - 1) / 2 for m in c) / 45 for c in pilot])
    errors = []
    for _ in range(400):
        qs = rng.integers(0, len(pilot), row.questions)  # questions like the pilot's
        picked = np.take_along_axis(populations[qs], np.argsort(rng.random((len(qs), 10)), axis=1)[:, :3], axis=1)
        shares = ((picked[:, 0] == picked[:, 1]) * 1.0 + (picked[:, 0] == picked[:, 2]) + (picked[:, 1] == picked[:, 2])) / 3
        errors.append(shares.mean() - rates[qs].mean())
    assert 1.96 * np.std(errors) == pytest.approx(row.half_width, rel=0.15)


def test_plan_refusals():
    with pytest.raises(BudgetError, match="half-width"):
        plan_consistency(0, variants=10, rate=0.5)
    with pytest.raises(BudgetError, match="give one of"):
        plan_consistency(0.02, variants=10)
    with pytest.raises(BudgetError, match="budget"):
        plan_consistency(0.02, variants=10, budgets=[1], rate=0.5)
    with pytest.raises(BudgetError, match="too small"):
        plan_quantiles(0.02, np.ones((10, 4)))


def test_plan_quantiles_from_a_full_pilot():
    y, _ = _simulated(300, 12, seed=6)
    plan = plan_quantiles(0.05, y, budgets=[2, 12], replicates=1)
    assert list(plan) == ["5", "25", "50", "75", "95"]
    for rows in plan.values():
        budgeted, full = rows
        assert budgeted.per_question == 2 and budgeted.questions >= 1 and budgeted.half_width <= 0.05 + 1e-9
        assert full.per_question == 12 and full.half_width == 0.0
    assert plan["5"][0].questions >= plan["50"][0].questions  # the extreme quantile needs more


def test_plan_consistency_from_a_budgeted_pilot_agrees_with_the_full_pilot():
    y, answers = _simulated(500, 10, seed=7)
    counts = [[int(np.sum(row == a)) for a in ("gold", "x", "y")] for row in answers]
    exact = plan_consistency(0.02, variants=10, budgets=[2, 4], pilot_counts=counts)
    plan = assign(range(500), Design.make(10, 4, 1))
    asked = np.zeros((500, 10), dtype=bool)
    for i in range(500):
        asked[i, list(plan[str(i)])] = True
    budgeted = plan_consistency(0.02, variants=10, budgets=[2, 4], pilot_correct=np.where(asked, y, np.nan),
                                pilot_agree=_answers_and_agree(answers, asked))
    for a, b in zip(exact, budgeted):
        assert b.questions == pytest.approx(a.questions, rel=0.25), (a, b)
    with pytest.raises(BudgetError, match="one of"):
        plan_consistency(0.02, variants=10, rate=0.5, pilot_counts=counts)


@pytest.mark.parametrize("value, weighted", [(0.0, False), (1.0, False), (0.0, True), (1.0, True)])
def test_estimates_of_an_all_wrong_or_all_right_run_stay_within_0_and_1(value, weighted):
    """The unasked cells' sum is a clipped normal draw: no accuracy, quantile or bound below 0 or
    above 1 (before the clip, a run of 10 all-wrong questions reported accuracies down to -0.06)."""
    n, v = 30, 10
    plan = assign(range(n), Design.make(v, 2, 0))
    y = np.full((n, v), np.nan)
    for i in range(n):
        y[i, list(plan[str(i)])] = value
    w = np.linspace(1, 3, n) / np.linspace(1, 3, n).sum() if weighted else None
    j = estimate_robustness(y, weights=w, draws=200, seed=1).to_json()
    numbers = [j[k] for k in ("accuracy", "accuracy_ci_low", "accuracy_ci_high", "accuracy_min", "accuracy_max")]
    numbers += [x for k in ("accuracy_quantiles", "accuracy_quantiles_ci_low", "accuracy_quantiles_ci_high")
                for x in j[k].values()]
    numbers += [x for k in ("variant_accuracy", "variant_accuracy_ci_low", "variant_accuracy_ci_high")
                for x in (j[k].values() if isinstance(j[k], dict) else j[k])]
    assert all(-1e-12 <= x <= 1 + 1e-12 for x in numbers), (min(numbers), max(numbers))
