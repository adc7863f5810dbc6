"""Consistency rate: closed-form values, properties, bootstrap interval, lm-eval cross-check."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.metrics import consistency_counts, consistency_rate, consistency_rate_interval

groups_st = st.lists(st.lists(st.one_of(st.none(), st.sampled_from("ABCD")), max_size=7), min_size=1, max_size=12)


def test_pooled_vs_per_question_reference_vector():
    groups = [["A", "A"], ["A", "A", "B", "B"]]
    assert consistency_rate(groups) == pytest.approx(3 / 7)
    assert consistency_rate(groups, pooled=False) == pytest.approx((1 + 1 / 3) / 2)


def test_counts_sum_of_binomials_and_none_agrees_with_nothing():
    agree, total = consistency_counts([["A", "A", "A", "B"], ["x", None, None], [], ["z"]])
    assert agree.tolist() == [3, 0, 0, 0]
    assert total.tolist() == [6, 3, 0, 0]
    assert agree.dtype.kind == "i" and total.dtype.kind == "i"


def test_no_pairs_is_nan_with_warning_not_zero():
    with pytest.warns(RuntimeWarning, match="undefined"):
        assert math.isnan(consistency_rate([["A"], []]))
    with pytest.warns(RuntimeWarning):
        lo, hi = consistency_rate_interval([["A"]])
    assert math.isnan(lo) and math.isnan(hi)


def test_equal_predicate_groups_equivalent_answers():
    groups = [["0.5", "1/2", ".5", "2"], ["3", "3.0"]]
    eq = lambda a, b: abs(eval_fraction(a) - eval_fraction(b)) < 1e-12  # noqa: E731
    agree, total = consistency_counts(groups, equal=eq)
    assert agree.tolist() == [3, 1] and total.tolist() == [6, 1]
    assert consistency_rate(groups, equal=eq) == pytest.approx(4 / 7)


def eval_fraction(s: str) -> float:
    num, _, den = s.partition("/")
    return float(num) / (float(den) if den else 1.0)


def test_unhashable_answers_fall_back_to_equality():
    agree, total = consistency_counts([[[1], [1], [2]], [{"a": 1}, {"a": 1}]])
    assert agree.tolist() == [1, 1] and total.tolist() == [3, 1]


def test_string_group_is_refused():
    with pytest.raises(TypeError):
        consistency_rate(["AB", "CD"])


def _naive(groups, pooled=True):
    agree = [sum(1 for i in range(len(g)) for j in range(i + 1, len(g)) if g[i] is not None and g[i] == g[j]) for g in groups]
    total = [len(g) * (len(g) - 1) // 2 for g in groups]
    if pooled:
        return sum(agree) / sum(total) if sum(total) else math.nan
    rates = [a / t for a, t in zip(agree, total) if t]
    return sum(rates) / len(rates) if rates else math.nan


@settings(max_examples=150, deadline=None)
@given(groups_st, st.booleans())
def test_matches_pair_enumeration_and_bounds(groups, pooled):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ours = consistency_rate(groups, pooled=pooled)
    ref = _naive(groups, pooled)
    if math.isnan(ref):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(ref, abs=1e-12)
        assert 0.0 <= ours <= 1.0


@settings(max_examples=100, deadline=None)
@given(groups_st, st.permutations("ABCD"), st.randoms(use_true_random=False))
def test_invariant_under_relabeling_and_answer_order(groups, perm, rnd):
    relabel = dict(zip("ABCD", perm))
    relabeled = [[None if a is None else relabel[a] for a in g] for g in groups]
    shuffled = [rnd.sample(g, len(g)) for g in relabeled]
    a1, t1 = consistency_counts(groups)
    a2, t2 = consistency_counts(shuffled)
    assert a1.tolist() == a2.tolist() and t1.tolist() == t2.tolist()


@settings(max_examples=60, deadline=None)
@given(groups_st)
def test_equal_predicate_path_matches_hashable_path(groups):
    a1, t1 = consistency_counts(groups)
    a2, t2 = consistency_counts(groups, equal=lambda x, y: x == y)
    assert a1.tolist() == a2.tolist() and t1.tolist() == t2.tolist()


def test_many_distinct_answers_use_the_sparse_path():
    rng = np.random.default_rng(1)
    groups = rng.integers(0, 100_000, (3000, 6)).tolist()
    groups[0] = [7, 7, 7, 1, 1, None]
    agree, total = consistency_counts(groups)
    assert agree[0] == 4 and total[0] == 15
    assert consistency_rate(groups) == pytest.approx(_naive(groups), abs=1e-15)


def test_more_than_256_distinct_answers_switch_to_wide_codes():
    # the byte-coded pass overflows after 256 codes and is redone with int64 codes
    groups = [[i, i, i + 1] for i in range(0, 600, 2)] + [["x", None, "x", None]]
    agree, total = consistency_counts(groups)
    assert agree.tolist() == [1] * 300 + [1] and total.tolist() == [3] * 300 + [6]


class _Touchy:
    def __init__(self, error):
        self.error = error

    def __hash__(self):
        return 1

    def __eq__(self, other):
        raise self.error


def test_errors_from_answer_comparisons_are_not_swallowed():
    with pytest.raises(ZeroDivisionError):
        consistency_counts([[_Touchy(ZeroDivisionError()), _Touchy(ZeroDivisionError())]])
    with pytest.raises(ValueError, match="mine"):
        consistency_counts([[_Touchy(ValueError("mine")), _Touchy(ValueError("mine"))]])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.integers(0, 5)), max_size=9), min_size=1, max_size=40),
       st.integers(1, 64))
def test_block_boundaries_do_not_change_counts(groups, block):
    from scorekit.metrics import consistency as module

    padded = [(g + [None] * 9)[:9] for g in groups]  # equal-size groups take the reshape path
    saved = module._BLOCK
    module._BLOCK = block  # tiny blocks: many block boundaries
    try:
        agree, _ = consistency_counts(groups)
        agree_padded, _ = consistency_counts(padded)
    finally:
        module._BLOCK = saved
    assert agree.tolist() == [_naive_agree(g) for g in groups]
    assert agree_padded.tolist() == [_naive_agree(g) for g in padded]


def _naive_agree(g):
    return sum(1 for i in range(len(g)) for j in range(i + 1, len(g)) if g[i] is not None and g[i] == g[j])


def test_equal_size_groups_and_2d_arrays_match_lists():
    rng = np.random.default_rng(8)
    ints = rng.integers(0, 5, (500, 7))
    expected = consistency_counts([list(map(int, row)) for row in ints])
    for arr in (ints, ints.astype(np.uint8), ints.astype(float), ints.astype(str), ints.astype(bytes), ints > 2):
        ref = consistency_counts([[x for x in row] for row in arr.tolist()])
        got = consistency_counts(arr)
        assert got[0].tolist() == ref[0].tolist() and got[1].tolist() == ref[1].tolist()
    assert consistency_counts(ints)[0].tolist() == expected[0].tolist()
    obj = ints.astype(object)
    obj[0, :3] = None
    assert consistency_counts(obj)[0].tolist() == consistency_counts(obj.tolist())[0].tolist()
    assert consistency_counts(np.empty((3, 0)))[1].tolist() == [0, 0, 0]


def test_nan_in_a_float_array_agrees_with_nothing():
    arr = np.array([[1.0, np.nan, np.nan, 1.0], [np.nan, np.nan, 2.0, 2.0], [-0.0, 0.0, 3.0, np.nan]])
    agree, total = consistency_counts(arr)
    assert agree.tolist() == [1, 1, 1] and total.tolist() == [6, 6, 6]
    assert agree.tolist() == consistency_counts(arr.tolist())[0].tolist()  # distinct NaN objects after tolist()


def test_interval_contains_point_estimate_and_is_deterministic():
    rng = np.random.default_rng(0)
    groups = rng.choice(list("AAB"), (300, 5)).tolist()
    point = consistency_rate(groups)
    lo, hi = consistency_rate_interval(groups, seed=3)
    assert lo < point < hi and 0 <= lo and hi <= 1
    assert (lo, hi) == consistency_rate_interval(groups, seed=3)
    lo99, hi99 = consistency_rate_interval(groups, seed=3, confidence=0.99)
    assert lo99 <= lo and hi <= hi99
    plo, phi = consistency_rate_interval(groups, pooled=False, seed=3)
    assert plo < consistency_rate(groups, pooled=False) < phi


def test_interval_matches_a_plain_loop_bootstrap():
    # independent re-computation: one rng.integers draw of Q' indices per resample, in order
    rng = np.random.default_rng(5)
    groups = [rng.choice(list("AB"), rng.integers(2, 6)).tolist() for _ in range(40)] + [["A"], []]
    agree, total = consistency_counts(groups)
    agree, total = agree[:40], total[:40]
    for pooled in (True, False):
        gen = np.random.default_rng(11)
        stats = []
        for _ in range(200):
            idx = gen.integers(0, 40, size=40)
            if pooled:
                stats.append(sum(agree[i] for i in idx) / sum(total[i] for i in idx))
            else:
                stats.append(sum(agree[i] / total[i] for i in idx) / 40)
        expected = tuple(np.quantile(stats, [0.05, 0.95]))
        got = consistency_rate_interval(groups, pooled=pooled, confidence=0.9, n_resamples=200, seed=11)
        assert got == pytest.approx(expected, rel=1e-12)


def test_interval_does_not_depend_on_internal_chunking():
    # 3,000 questions x 2,000 resamples is drawn in several chunks; the same draws in one go agree
    rng = np.random.default_rng(4)
    groups = rng.choice(list("AAB"), (3000, 4)).tolist()
    agree, total = consistency_counts(groups)
    idx = np.random.default_rng(7).integers(0, 3000, size=(2000, 3000))
    stats = agree[idx].sum(axis=1) / total[idx].sum(axis=1)
    expected = tuple(np.quantile(stats, [0.025, 0.975]))
    assert consistency_rate_interval(groups, seed=7) == pytest.approx(expected, rel=1e-12)


def test_interval_argument_checks():
    with pytest.raises(ValueError):
        consistency_rate_interval([["A", "A"]], confidence=1.0)
    with pytest.raises(ValueError):
        consistency_rate_interval([["A", "A"]], n_resamples=0)


def test_cross_check_lm_eval_score_consistency_rate():
    utils = pytest.importorskip("lm_eval.tasks.score.utils")
    rng = np.random.default_rng(2)
    groups = [rng.choice(list("ABCDEFGHIJ"), rng.integers(1, 11)).tolist() for _ in range(500)]
    assert consistency_rate(groups) == pytest.approx(utils.calculate_consistency_rate(groups), abs=1e-15)


def test_we_do_not_share_lm_eval_defects():
    utils = pytest.importorskip("lm_eval.tasks.score.utils")
    # lm-eval reports 0.0 when there are no pairs; we report nan (with a warning)
    assert utils.calculate_consistency_rate([["A"]]) == 0.0
    with pytest.warns(RuntimeWarning):
        assert math.isnan(consistency_rate([["A"]]))
    # lm-eval counts two unparsed answers (None == None) as agreeing; we do not
    assert utils.calculate_consistency_rate([[None, None]]) == 1.0
    assert consistency_rate([[None, None]]) == 0.0
