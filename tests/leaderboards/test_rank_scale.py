"""`scorekit rank` on many models: the same rows as the method written out pair by pair, and the
rank ranges compare only the models that have intervals (how long it takes: bench/bench_rank.py)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.special import chdtri, stdtrit

from scorekit.leaderboards import rank
from scorekit.leaderboards.rank import RankData, RankedBenchmark, RankRow, compute_ranking
from scorekit.cli import main


def t_interval(v: np.ndarray, confidence: float) -> tuple[float, float]:
    """Student t interval of the mean: mean -/+ t_{n-1} s / sqrt(n), s with ddof=1."""
    half = float(stdtrit(v.size - 1, (1 + confidence) / 2)) * float(v.std(ddof=1)) / math.sqrt(v.size)
    return float(v.mean()) - half, float(v.mean()) + half


def std_interval(v: np.ndarray, confidence: float) -> tuple[float, float]:
    """Chi-square interval of the std: s sqrt(df / chi2 quantile), chdtri taking the upper tail."""
    df, s, alpha = v.size - 1, float(v.std(ddof=1)), 1 - confidence
    return s * math.sqrt(df / float(chdtri(df, alpha / 2))), s * math.sqrt(df / float(chdtri(df, 1 - alpha / 2)))


def reference_ranking(data: RankData, confidence: float = 0.95) -> list[RankRow]:
    """The module docstring's method, one model and one pair of models at a time."""
    models = sorted({m for b in data.benchmarks for m, r in b.ranks.items() if r is not None})
    pct = np.full((len(models), len(data.benchmarks)), np.nan)
    for j, b in enumerate(data.benchmarks):
        for m, r in b.ranks.items():
            if r is not None:
                pct[models.index(m), j] = r / b.known_totals
    q = (1 + confidence) / 2
    per = []
    for i, m in enumerate(models):
        v = pct[i][~np.isnan(pct[i])]
        mean = float(np.nansum(pct[i]) / v.size)
        pen = {1: 0.25, 2: 0.10}.get(v.size, 0.0)  # the module docstring's penalty
        dev = np.where(np.isnan(pct[i]), 0.0, pct[i] - mean)  # summed over every leaderboard, as the module does
        std = float(np.sqrt((dev**2).sum() / v.size))
        per.append((m, v, mean, pen, mean + pen, std))
    order = sorted(range(len(models)), key=lambda i: (round(per[i][4], 12), -per[i][1].size, models[i]))

    def ahead(k: int, i: int) -> bool:  # model k significantly better than model i (Welch)
        vk, vi = per[k][1], per[i][1]
        if k == i or vk.size < 2 or vi.size < 2:
            return False
        ak, ai = vk.var(ddof=1) / vk.size, vi.var(ddof=1) / vi.size
        diff, se2 = per[i][4] - per[k][4], ak + ai
        if se2 == 0:
            return diff > 1e-12
        nu = se2**2 / (ak**2 / (vk.size - 1) + ai**2 / (vi.size - 1))
        return bool(diff > stdtrit(nu, q) * math.sqrt(se2))

    with_ci = [i for i in range(len(models)) if per[i][1].size >= 2]
    ranged = len(with_ci) <= rank.RANK_RANGE_MODELS_MAX
    best = order[0]
    rows = []
    for pos, i in enumerate(order, start=1):
        m, v, mean, pen, score, std = per[i]
        known = v.size >= 2
        score_ci = std_ci = position_ci = None
        if known:
            lo, hi = t_interval(v, confidence)
            score_ci = (max(0.0, lo) + pen, min(1.0, hi) + pen)
            slo, shi = std_interval(v, confidence)
            std_ci = (min(slo, 0.5), min(shi, 0.5))
            if ranged:
                position_ci = (1 + sum(ahead(k, i) for k in with_ci), len(models) - sum(ahead(i, k) for k in with_ci))
        tied = True if pos == 1 else (None if not known or per[best][1].size < 2 else not ahead(best, i))
        rows.append(RankRow(pos, m, score, mean, pen, std if known else None, v.size, data.costs.get(m),
                            {b.name: float(pct[i, j]) for j, b in enumerate(data.benchmarks) if not np.isnan(pct[i, j])},
                            score_ci, std_ci, position_ci, tied))
    return rows


def random_data(rng: random.Random) -> RankData:
    n_bench, n_models = rng.randint(1, 10), rng.randint(1, 30)
    totals = [rng.choice([2, 3, 5, 10, 40, 300]) for _ in range(n_bench)]
    style = rng.choice(["ties", "spread", "same", "mixed"])
    benches = []
    for j, total in enumerate(totals):
        ranks: dict[str, int | None] = {}
        for m in range(n_models):
            u = rng.random()
            if u < 0.25:
                continue  # not on this leaderboard
            if u < 0.35:
                ranks[f"m{m}"] = None
            elif style == "ties":  # many equal percentiles and equal scores
                ranks[f"m{m}"] = rng.randint(1, min(total, 2))
            elif style == "same" or (style == "mixed" and m % 3 == 0):  # no spread at all
                ranks[f"m{m}"] = total
            else:
                ranks[f"m{m}"] = rng.randint(1, total)
        benches.append(RankedBenchmark(f"b{j}", j + 1, total, ranks))
    costs = {f"m{m}": rng.choice([None, 0, 3, 2.5]) for m in range(0, n_models, 2)}
    return RankData("random", tuple(benches), costs)


@pytest.mark.parametrize("seed", range(3))
def test_rows_equal_the_method_written_out_pair_by_pair(seed):
    rng = random.Random(seed)
    checked = 0
    for _ in range(50):
        data = random_data(rng)
        confidence = rng.choice([0.95, 0.9, 0.5])
        got = compute_ranking(data, confidence)
        assert got == reference_ranking(data, confidence)  # exact: every float, interval and flag
        checked += len(got)
    assert checked > 250


def test_equal_on_pairs_near_the_welch_bounds():
    """Models on 2..12 leaderboards with spreads chosen so many pairs sit between the normal
    quantile and t at the fewest degrees of freedom (where t itself is computed)."""
    rng = np.random.default_rng(5)
    ranks: dict[str, list[int | None]] = {}
    for m in range(60):
        n = int(rng.integers(2, 13))
        base, spread = rng.uniform(50, 950), rng.choice([0, 5, 40, 150])
        ranks[f"m{m}"] = [int(np.clip(base + rng.normal(0, spread), 1, 1000)) if j < n else None for j in range(12)]
    benches = tuple(RankedBenchmark(f"b{j}", j + 1, 1000, {m: r[j] for m, r in ranks.items()}) for j in range(12))
    data = RankData("near", benches, {})
    got = compute_ranking(data)
    assert got == reference_ranking(data)
    assert len({r.position_ci for r in got}) > 20  # the ranges differ: pairs were decided both ways


def test_rank_ranges_compare_only_models_with_intervals(monkeypatch):
    """One leaderboard of many models beside three models on three leaderboards: the pairs
    compared are those of the three (every pair of all models took 428 s at 100,000)."""
    sizes = []
    original = rank._ahead_counts
    monkeypatch.setattr(rank, "_ahead_counts", lambda spread, score, c: sizes.append(len(score)) or original(spread, score, c))
    big = {f"solo{i:04d}": i + 1 for i in range(2000)}
    benches = (RankedBenchmark("big", 1, 2000, big),
               *(RankedBenchmark(f"b{j}", j + 2, 10, {"a": 1 + j, "b": 4 + j, "c": 8}) for j in range(3)))
    rows = {r.model: r for r in compute_ranking(RankData("x", benches, {}))}
    assert sizes == [3]
    assert rows["a"].position_ci == (1, 2001) and rows["c"].position_ci == (3, 2003)  # a, b ahead of c; a of b
    assert rows["solo0000"].position_ci is None and rows["solo0000"].tied_with_best is None


def test_without_any_interval_nothing_is_compared(monkeypatch):
    monkeypatch.setattr(rank, "_ahead_counts", lambda *a: pytest.fail("compared models without intervals"))
    rows = compute_ranking(RankData("x", (RankedBenchmark("one", 1, 500, {f"m{i}": i + 1 for i in range(500)}),), {}))
    assert [r.model for r in rows[:2]] == ["m0", "m1"]
    assert all(r.position_ci is None for r in rows) and rows[0].tied_with_best is True


def test_above_the_limit_ranges_are_left_out_and_said(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(rank, "RANK_RANGE_MODELS_MAX", 2)
    path = tmp_path / "r.txt"
    path.write_text('A={"a":1, "b":2, "c":3, "known_totals":3}\nB={"a":1, "b":3, "c":2, "known_totals":3}\n{}\n')
    assert main(["rank", str(path), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert '"rank_ci_low": null' in out and '"tied_with_best": true' in out
    assert "3 models have intervals, more than 2: their rank ranges" in err
