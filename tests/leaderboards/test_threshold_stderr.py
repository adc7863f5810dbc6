"""Threshold scores carry the results files' stderr through the scaling and the weighted
roll-up (formulas written out by hand here), and say None where it is unknown."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scorekit.leaderboards.scorecard_config import load_scorecard_config
from scorekit.leaderboards.threshold import scorecard_values
from tests.leaderboards.test_threshold import FULL, HIERARCHY

SE = {"t1": {"x_stderr": 0.02, "y_stderr": 0.5}, "t2": {"x_stderr": 0.03}, "t3": {"x_stderr": 0.01, "z_stderr": 0.2}}


@pytest.fixture
def hierarchy(tmp_path):
    p = tmp_path / "h.yaml"
    p.write_text(HIERARCHY)
    return load_scorecard_config(p)


def _with_se(values: dict, se: dict) -> dict:
    return {t: {**values[t], **se.get(t, {})} for t in values}


def test_stderr_rolled_up_by_hand(hierarchy):
    (a,) = scorecard_values(hierarchy, {"A": _with_se(FULL, SE)})
    cat_a = a["categories"]["cat_a"]
    b1 = cat_a["benchmarks"]["b1"]
    m1, m2 = 0.02 / 1.0, 0.5 / 10.0
    assert b1["metrics"]["m1"]["stderr"] == pytest.approx(m1) and b1["metrics"]["m2"]["stderr"] == pytest.approx(m2)
    se_b1 = math.sqrt((1 * m1) ** 2 + (3 * m2) ** 2) / 4
    se_b2 = 0.03 / 0.6
    se_a = math.sqrt((1 * se_b1) ** 2 + (3 * se_b2) ** 2) / 4
    se_b = 0.01  # m5 has weight 0: not counted
    se_all = math.sqrt((2 * se_a) ** 2 + (1 * se_b) ** 2) / 3
    assert b1["stderr"] == pytest.approx(se_b1, rel=1e-12)
    assert cat_a["stderr"] == pytest.approx(se_a, rel=1e-12)
    assert a["categories"]["cat_b"]["stderr"] == pytest.approx(se_b, rel=1e-12)
    assert a["overall_stderr"] == pytest.approx(se_all, rel=1e-12)
    z = 1.959963984540054
    assert a["overall_ci_low"] == pytest.approx(a["overall"] - z * se_all)
    assert a["overall_ci_high"] == pytest.approx(a["overall"] + z * se_all)


def test_stderr_by_simulation(hierarchy):
    """The propagated overall stderr matches the spread of the overall score when the raw
    values are redrawn with their stderr (values away from the clamps)."""
    rng = np.random.default_rng(0)
    (a,) = scorecard_values(hierarchy, {"A": _with_se(FULL, SE)})
    overall = []
    for _ in range(3000):
        drawn = {t: {k: v + rng.normal(0, SE[t][f"{k}_stderr"]) for k, v in FULL[t].items()} for t in FULL}
        overall.append(scorecard_values(hierarchy, {"A": drawn})[0]["overall"])
    assert a["overall_stderr"] == pytest.approx(np.std(overall), rel=0.05)


def test_unknown_stderr_gives_none(hierarchy):
    se = {t: dict(v) for t, v in SE.items()}
    se["t2"]["x_stderr"] = "N/A"
    (a,) = scorecard_values(hierarchy, {"A": _with_se(FULL, se)})
    assert a["categories"]["cat_a"]["benchmarks"]["b2"]["stderr"] is None
    assert a["categories"]["cat_a"]["stderr"] is None and a["overall_stderr"] is None and a["overall_ci_low"] is None
    assert a["categories"]["cat_b"]["stderr"] == pytest.approx(0.01)
