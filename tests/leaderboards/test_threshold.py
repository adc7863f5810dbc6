"""Good/bad threshold scoring: the pure core and the hierarchy roll-up."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.leaderboards.scorecard_config import load_scorecard_config
from scorekit.leaderboards.threshold import (
    BadValue,
    roll_up,
    scorecard_values,
    threshold_score,
    weighted_mean,
)

NAN = float("nan")


# --- threshold_score ------------------------------------------------------------------------


def test_ml_peg_docs_example():
    # good 1.0, bad 5.0 kcal/mol: 3.0 -> 0.5; <= 1.0 -> 1; >= 5.0 -> 0
    assert threshold_score(3.0, 1.0, 5.0) == 0.5
    for v in (1.0, 0.999, 0.0, -3.0):
        assert threshold_score(v, 1.0, 5.0) == 1.0
    for v in (5.0, 5.001, 12.0, 1e12):
        assert threshold_score(v, 1.0, 5.0) == 0.0
    assert threshold_score(2.0, 1.0, 5.0) == 0.75


def test_vectorized_and_broadcast():
    out = threshold_score([0.0, 1.0, 3.0, 5.0, 9.0], 1.0, 5.0)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, [1.0, 1.0, 0.5, 0.0, 0.0])
    grid = threshold_score(np.array([[0.5], [0.25]]), np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    np.testing.assert_array_equal(grid, [[0.5, 0.5], [0.25, 0.75]])
    assert isinstance(threshold_score(0.5, 1, 0), float)


def test_negative_zero_becomes_zero():
    for score in (threshold_score(-0.0, 1.0, 0.0), threshold_score(0.0, 1.0, 0.0), threshold_score(-1.0, 1.0, 0.0)):
        assert score == 0.0 and math.copysign(1.0, score) == 1.0
    arr = threshold_score([-0.0, -2.0, 7.0], 1.0, 0.0)
    assert not np.signbit(arr[:2]).any() and arr[2] == 1.0
    arr = threshold_score([-0.0, 0.0], 0.0, 0.0)  # equal thresholds: -0.0 == 0.0 -> 1
    np.testing.assert_array_equal(arr, [1.0, 1.0])


def test_equal_thresholds():
    assert threshold_score(2.0, 2.0, 2.0) == 1.0
    assert threshold_score(2.0000001, 2.0, 2.0) == 0.0
    assert threshold_score(1.9, 2.0, 2.0) == 0.0
    assert math.isnan(threshold_score(NAN, 2.0, 2.0))
    np.testing.assert_array_equal(threshold_score([1, 2, 3], [2, 2, 3], [2, 5, 3]), [0.0, 1.0, 1.0])


def test_direction_from_order():
    # higher is better (good > bad)
    assert threshold_score(0.5, 0.9, 0.1) == pytest.approx(0.5)
    assert threshold_score(0.95, 0.9, 0.1) == 1.0 and threshold_score(0.05, 0.9, 0.1) == 0.0
    # lower is better (good < bad), e.g. an error rate
    assert threshold_score(0.3, 0.1, 0.9) == pytest.approx(0.75)
    assert threshold_score(0.05, 0.1, 0.9) == 1.0 and threshold_score(0.95, 0.1, 0.9) == 0.0


def test_nan_and_inf():
    assert math.isnan(threshold_score(NAN, 1.0, 0.0))
    out = threshold_score([NAN, 0.5, math.inf, -math.inf], 1.0, 0.0)
    assert math.isnan(out[0]) and list(out[1:]) == [0.5, 1.0, 0.0]
    assert threshold_score(math.inf, 0.0, 1.0) == 0.0  # lower is better: inf is worst
    with pytest.raises(ValueError):
        threshold_score(0.5, NAN, 0.0)


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(finite, finite, finite)
def test_property_score_in_unit_interval(v, g, b):
    s = threshold_score(v, g, b)
    assert 0.0 <= s <= 1.0 and math.copysign(1.0, s) == 1.0


@settings(max_examples=300, deadline=None)
@given(finite, finite, finite, finite)
def test_property_monotone_in_the_right_direction(v1, v2, g, b):
    lo, hi = min(v1, v2), max(v1, v2)
    s_lo, s_hi = threshold_score(lo, g, b), threshold_score(hi, g, b)
    if g > b:
        assert s_lo <= s_hi
    elif g < b:
        assert s_lo >= s_hi
    if g != b and abs(g - b) > 1e-3:
        # swapping good and bad mirrors the score
        assert threshold_score(v1, b, g) == pytest.approx(1.0 - threshold_score(v1, g, b), abs=1e-9)


# --- weighted_mean / roll_up ----------------------------------------------------------------


def test_weighted_mean_renormalizes():
    assert weighted_mean([0.2, 0.8], [1, 3]) == pytest.approx(0.65)
    # a missing score (NaN) is left out, the other weights renormalized
    assert weighted_mean([0.2, 0.8, NAN], [1, 3, 5]) == pytest.approx(0.65)
    # weight 0 excludes a metric, even one with a score
    assert weighted_mean([0.2, 0.8, 1.0], [1, 3, 0]) == pytest.approx(0.65)
    assert weighted_mean([0.5], [7.0]) == 0.5


def test_weighted_mean_no_score():
    assert math.isnan(weighted_mean([0.2, 0.8], [0, 0]))  # all weights zero
    assert math.isnan(weighted_mean([NAN, NAN], [1, 1]))  # nothing scored
    assert math.isnan(weighted_mean([], []))
    # strict: a counted entry without a score gives no score; weight 0 entries do not matter
    assert math.isnan(weighted_mean([0.2, NAN], [1, 1], strict=True))
    # a subnormal weight must not underflow w*s to 0 (found by hypothesis)
    assert weighted_mean([0.5], [5e-324]) == 0.5
    assert weighted_mean([0.5, 1.0], [5e-324, 5e-324]) == 0.75
    assert weighted_mean([0.2, NAN], [1, 0], strict=True) == 0.2
    with pytest.raises(ValueError):
        weighted_mean([0.1, 0.2], [1, -1])


def test_weighted_mean_along_axis():
    out = weighted_mean(np.array([[0.0, 1.0], [NAN, 1.0], [NAN, NAN]]), [1.0, 3.0], axis=1)
    assert out[0] == 0.75 and out[1] == 1.0 and math.isnan(out[2])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 100)), min_size=1, max_size=8), st.floats(0.01, 100))
def test_property_weighted_mean_bounds_and_scale_invariance(pairs, k):
    scores = [s for s, _ in pairs]
    weights = [w for _, w in pairs]
    m = weighted_mean(scores, weights)
    counted = [s for s, w in pairs if w > 0]
    if not counted:
        assert math.isnan(m)
        return
    assert min(counted) - 1e-12 <= m <= max(counted) + 1e-12
    scaled = weighted_mean(scores, [w * k for w in weights])
    if all(w * k > 0 for w in weights if w > 0):
        assert scaled == pytest.approx(m, abs=1e-9)


def test_roll_up_groups():
    scores = np.array([[0.5, 0.75, 0.75], [0.5, NAN, 0.75]])
    out = roll_up(scores, [[0, 1], [2], []], [1.0, 3.0, 1.0])
    np.testing.assert_allclose(out[:, :2], [[0.6875, 0.75], [0.5, 0.75]])
    assert np.isnan(out[:, 2]).all()  # a group without children has no score
    strict = roll_up(scores, [[0, 1], [2]], [1.0, 3.0, 1.0], strict=True)
    assert math.isnan(strict[1, 0]) and strict[1, 1] == 0.75


# --- hierarchy over a config, hand-computed ----------------------------------------------

HIERARCHY = """\
categories:
  cat_a:
    weight: 2
    benchmarks:
      b1:
        weight: 1
        metrics:
          m1: {key: {task: t1, metric: x}, good: 1.0, bad: 0.0}
          m2: {key: {task: t1, metric: y}, good: 0.0, bad: 10.0, weight: 3}   # lower is better
      b2:
        weight: 3
        metrics:
          m3: {key: {task: t2, metric: x}, good: 0.8, bad: 0.2}
  cat_b:
    benchmarks:
      b3:
        metrics:
          m4: {key: {task: t3, metric: x}, good: 1.0, bad: 0.0}
          m5: {key: {task: t3, metric: z}, good: 1.0, bad: 0.0, weight: 0}
"""

FULL = {"t1": {"x": 0.5, "y": 2.5}, "t2": {"x": 0.65}, "t3": {"x": 0.4, "z": 1.0}}


@pytest.fixture
def hierarchy(tmp_path):
    p = tmp_path / "h.yaml"
    p.write_text(HIERARCHY)
    return load_scorecard_config(p)


def test_hierarchy_hand_computed(hierarchy):
    (a,) = scorecard_values(hierarchy, {"A": FULL})
    m = a["categories"]["cat_a"]["benchmarks"]["b1"]["metrics"]
    assert m["m1"]["score"] == 0.5
    assert m["m2"]["score"] == 0.75  # (2.5 - 10) / (0 - 10)
    b1 = a["categories"]["cat_a"]["benchmarks"]["b1"]["score"]
    assert b1 == pytest.approx((1 * 0.5 + 3 * 0.75) / 4)  # 0.6875
    b2 = a["categories"]["cat_a"]["benchmarks"]["b2"]["score"]
    assert b2 == pytest.approx(0.75)  # (0.65 - 0.2) / 0.6
    assert a["categories"]["cat_a"]["score"] == pytest.approx((1 * 0.6875 + 3 * 0.75) / 4)  # 0.734375
    # m5 has a score but weight 0: b3 is m4 alone
    assert a["categories"]["cat_b"]["benchmarks"]["b3"]["metrics"]["m5"]["score"] == 1.0
    assert a["categories"]["cat_b"]["score"] == pytest.approx(0.4)
    assert a["overall"] == pytest.approx((2 * 0.734375 + 1 * 0.4) / 3)  # 0.6229166...
    assert a["missing"] == {} and a["partial"] is False


def test_missing_policy_partial(hierarchy):
    values = {"t1": {"x": 0.5}, "t2": {"x": 0.65}, "t3": {"x": 0.4}}  # m2 and m5 absent
    (b,) = scorecard_values(hierarchy, {"B": values})
    b1 = b["categories"]["cat_a"]["benchmarks"]["b1"]
    assert b1["score"] == 0.5 and b1["missing"] == {"cat_a/b1/m2": "not in results"}
    assert b1["metrics"]["m2"]["score"] is None and b1["metrics"]["m2"]["missing"] == "not in results"
    assert b["categories"]["cat_a"]["score"] == pytest.approx((0.5 + 3 * 0.75) / 4)
    assert b["overall"] == pytest.approx((2 * 0.6875 + 0.4) / 3)
    # flagged at every level above, never silently 0; m5 (weight 0) is not flagged upward
    assert b["partial"] is True and b["missing"] == {"cat_a/b1/m2": "not in results"}
    assert b["categories"]["cat_b"]["missing"] == {}
    assert b["categories"]["cat_b"]["benchmarks"]["b3"]["metrics"]["m5"]["missing"] == "not in results"


def test_missing_policy_strict(hierarchy):
    values = {"t1": {"x": 0.5}, "t2": {"x": 0.65}, "t3": {"x": 0.4}}
    (b,) = scorecard_values(hierarchy, {"B": values}, missing="strict")
    assert b["categories"]["cat_a"]["benchmarks"]["b1"]["score"] is None
    assert b["categories"]["cat_a"]["benchmarks"]["b2"]["score"] == pytest.approx(0.75)
    assert b["categories"]["cat_a"]["score"] is None
    assert b["categories"]["cat_b"]["score"] == pytest.approx(0.4)  # m5 missing but weight 0
    assert b["overall"] is None and b["partial"] is False
    assert b["missing"] == {"cat_a/b1/m2": "not in results"}
    # a complete model scores the same under both policies
    (a,) = scorecard_values(hierarchy, {"A": FULL}, missing="strict")
    assert a["overall"] == pytest.approx((2 * 0.734375 + 0.4) / 3)


def test_nan_value_is_no_score_and_flagged(hierarchy):
    values = {"t1": {"x": 0.5, "y": 2.5}, "t2": {"x": NAN}, "t3": {"x": 0.4}}
    (c,) = scorecard_values(hierarchy, {"C": values})
    b2 = c["categories"]["cat_a"]["benchmarks"]["b2"]
    assert b2["score"] is None and b2["missing"] == {"cat_a/b2/m3": "value is NaN"}
    assert b2["metrics"]["m3"]["value"] is None
    assert c["categories"]["cat_a"]["score"] == pytest.approx(0.6875)  # b1 alone
    assert c["overall"] == pytest.approx((2 * 0.6875 + 0.4) / 3) and c["partial"]
    (s,) = scorecard_values(hierarchy, {"C": values}, missing="strict")
    assert s["overall"] is None and s["categories"]["cat_b"]["score"] == pytest.approx(0.4)


def test_nothing_present_gives_no_score(hierarchy):
    (e,) = scorecard_values(hierarchy, {"E": {"other": {"x": 1.0}}})
    assert e["overall"] is None and e["partial"] is False
    assert set(e["missing"]) == {"cat_a/b1/m1", "cat_a/b1/m2", "cat_a/b2/m3", "cat_b/b3/m4"}


def test_non_numeric_value_raises(hierarchy):
    for bad in ("N/A", True, None, [0.5]):
        with pytest.raises(BadValue) as info:
            scorecard_values(hierarchy, {"A": {**FULL, "t2": {"x": bad}}})
        assert info.value.task == "t2" and "cat_a/b2/m3" in str(info.value)


def test_many_models_vectorized(hierarchy):
    rng = np.random.default_rng(0)
    models = {
        f"m{i}": {"t1": {"x": float(a), "y": float(b)}, "t2": {"x": float(c)}, "t3": {"x": float(d)}}
        for i, (a, b, c, d) in enumerate(rng.uniform(-0.5, 11, size=(200, 4)))
    }
    out = scorecard_values(hierarchy, models)
    for row in out[:20]:
        v = models[row["model"]]
        s = [
            threshold_score(v["t1"]["x"], 1, 0),
            threshold_score(v["t1"]["y"], 0, 10),
            threshold_score(v["t2"]["x"], 0.8, 0.2),
            threshold_score(v["t3"]["x"], 1, 0),
        ]
        cat_a = ((s[0] + 3 * s[1]) / 4 + 3 * s[2]) / 4
        assert row["overall"] == pytest.approx((2 * cat_a + s[3]) / 3)
        assert 0.0 <= row["overall"] <= 1.0


def test_lighteval_keys_match_without_fewshot_suffix(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(
        "categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n"
        "          acc:\n            key: [{task: leaderboard_gpqa, metric: 'acc_norm,none'}, {task: 'gpqa:mc', metric: acc}]\n"
        "            good: 1.0\n            bad: 0.25\n"
    )
    cfg = load_scorecard_config(p)
    (r,) = scorecard_values(cfg, {"m": {"gpqa:mc|0": {"acc": 0.625}}})
    assert r["overall"] == 0.5
    assert r["categories"]["c"]["benchmarks"]["b"]["metrics"]["acc"]["source"] == "gpqa:mc|0 -> acc"
    (r,) = scorecard_values(cfg, {"m": {"lighteval|gpqa:mc|0": {"acc": 0.625}}})
    assert r["overall"] == 0.5
    # the first key wins when both harnesses' keys are present
    (r,) = scorecard_values(cfg, {"m": {"gpqa:mc|0": {"acc": 0.625}, "leaderboard_gpqa": {"acc_norm,none": 1.0}}})
    assert r["overall"] == 1.0
    # several matching keys: the newest run's (harness_outputs.find_task_key), as in `leaderboard`
    both = {"gpqa:mc|0": {"acc": 0.625}, "gpqa:mc|5": {"acc": 1.0}}
    (r,) = scorecard_values(cfg, {"m": both}, newest={"m": {"gpqa:mc|0": 2.0, "gpqa:mc|5": 1.0}.get})
    assert r["categories"]["c"]["benchmarks"]["b"]["metrics"]["acc"]["source"] == "gpqa:mc|0 -> acc"
    (r,) = scorecard_values(cfg, {"m": both}, newest={"m": {"gpqa:mc|0": 1.0, "gpqa:mc|5": 2.0}.get})
    assert r["overall"] == 1.0
