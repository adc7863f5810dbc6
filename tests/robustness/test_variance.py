"""Variance decomposition of a robustness family (scorekit.robustness.variance): the ANOVA
closed forms on balanced designs, computed here by explicit sums; coverage of the share
intervals by a small simulation with known components (bench/sim_variance.py runs the big one);
the report's ``variance_shares`` on logs written by the real lm-eval is tested in
tests/robustness/test_report.py (its fixtures).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from scorekit.robustness.variance import anova_components, variance_shares


def _anova_by_hand(y: np.ndarray) -> dict[str, float]:
    """Sums of squares by loops over the (Q, V, n) table, then the method-of-moments estimates
    (questions random, variants fixed) of the module docstring."""
    q, v, n = y.shape
    grand = y.mean()
    row = [y[i].mean() for i in range(q)]
    col = [y[:, j].mean() for j in range(v)]
    cell = [[y[i, j].mean() for j in range(v)] for i in range(q)]
    ss_q = sum(v * n * (row[i] - grand) ** 2 for i in range(q))
    ss_v = sum(q * n * (col[j] - grand) ** 2 for j in range(v))
    ss_qv = sum(n * (cell[i][j] - row[i] - col[j] + grand) ** 2 for i in range(q) for j in range(v))
    ss_w = sum((y[i, j, s] - cell[i][j]) ** 2 for i in range(q) for j in range(v) for s in range(n))
    total = sum((y[i, j, s] - grand) ** 2 for i in range(q) for j in range(v) for s in range(n))
    assert ss_q + ss_v + ss_qv + ss_w == pytest.approx(total)  # the balanced design's identity
    ms_q, ms_v, ms_qv = ss_q / (q - 1), ss_v / (v - 1), ss_qv / ((q - 1) * (v - 1))
    if n == 1:
        out = {"question": (ms_q - ms_qv) / v, "variant": (v - 1) / v * (ms_v - ms_qv) / q, "within": ms_qv}
    else:
        ms_w = ss_w / (q * v * (n - 1))
        out = {"question": (ms_q - ms_w) / (v * n), "variant": (v - 1) / v * (ms_v - ms_qv) / (q * n),
               "within": ms_w + (v - 1) / v * (ms_qv - ms_w) / n}
    return {k: max(0.0, x) for k, x in out.items()}


@pytest.mark.parametrize("shape", [(30, 10, 1), (25, 4, 1), (20, 5, 3)])
def test_components_are_the_anova_closed_forms(shape):
    rng = np.random.default_rng(sum(shape))
    p = 1 / (1 + np.exp(-(rng.normal(0, 1.5, shape[0])[:, None, None] + np.linspace(-0.6, 0.6, shape[1])[None, :, None])))
    y = (rng.random(shape) < p).astype(float)
    assert anova_components(y) == pytest.approx(_anova_by_hand(y), abs=1e-12)


def test_noise_free_additive_design_gives_its_parts_exactly():
    """y = a_q + b_v, nothing else: question = S^2(a) (ddof 1: questions are a sample),
    variant = mean (b - mean b)^2 (these variants: fixed), within = 0; replicating every cell
    n times changes none of it."""
    a, b = np.array([0.1, 0.4, 0.5, 0.9]), np.array([0.0, 0.1, 0.35])
    y = a[:, None] + b[None, :]
    for design in (y, np.repeat(y[:, :, None], 3, axis=2)):
        c = anova_components(design)
        assert c["question"] == pytest.approx(a.var(ddof=1)) and c["variant"] == pytest.approx(b.var())
        assert c["within"] == pytest.approx(0.0, abs=1e-15)


def test_shares_sum_to_one_and_edge_cases():
    rng = np.random.default_rng(0)
    y = (rng.random((200, 10)) < 0.6).astype(float)
    s = variance_shares(y, n_boot=300)
    assert sum(s[k]["value"] for k in s) == pytest.approx(1.0)
    assert all(s[k]["ci_low"] <= s[k]["value"] <= s[k]["ci_high"] for k in s)
    assert np.isnan(variance_shares(np.ones((50, 4)))["question"]["value"])  # no variation at all
    assert np.isnan(variance_shares(y[:1])["within"]["ci_low"])


def _true_shares(p: np.ndarray) -> np.ndarray:
    m_q, m_v, m = p.mean(axis=1), p.mean(axis=0), p.mean()
    inter = ((p - m_q[:, None] - m_v[None, :] + m) ** 2).mean()
    c = np.array([m_q.var(), ((m_v - m) ** 2).mean(), (p * (1 - p)).mean() + inter])
    return c / c.sum()


@pytest.mark.parametrize("effects", [np.linspace(-0.5, 0.5, 10), np.array([0.4, 0.0, -0.2, -0.2])])
def test_intervals_cover_known_shares(effects):
    """80 simulated families of 200 questions (the bench: 500 runs, 100-1000 questions): each
    share's 95% interval holds the population share in >= 85% of them here (>= 90% measured)."""
    rng = np.random.default_rng(len(effects))
    p = 1 / (1 + np.exp(-(rng.normal(0.3, 1.5, 20_000)[:, None] + effects[None, :])))
    truth = _true_shares(p)
    hits = np.zeros(3)
    for run in range(80):
        q = rng.integers(0, len(p), 200)
        s = variance_shares((rng.random((200, len(effects))) < p[q]).astype(float), n_boot=500, seed=run)
        hits += [s[k]["ci_low"] <= t <= s[k]["ci_high"] for k, t in zip(("question", "variant", "within"), truth)]
    assert (hits / 80 >= 0.85).all(), hits / 80
