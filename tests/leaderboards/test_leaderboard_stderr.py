"""Leaderboard uncertainty: results-file stderr carried through the normalization, the clamp
and the averages (checked against the formulas written out here), and the
"indistinguishable from best" column."""

from __future__ import annotations

import json
import math

import pytest

from scorekit.cli import main
from tests.leaderboards.leaderboard_fixtures.layouts import GPQA_MUSR_CONFIG, lm_eval_body, write_lm_eval_results

Z = 1.959963984540054
CONFIG = GPQA_MUSR_CONFIG
MUSR = {"leaderboard_musr_murder_mysteries": 0.5, "leaderboard_musr_object_placements": 0.4,
        "leaderboard_musr_team_allocation": 0.6}
LOWER = {"leaderboard_musr_murder_mysteries": 1 / 2, "leaderboard_musr_object_placements": 1 / 5,
         "leaderboard_musr_team_allocation": 1 / 3}


def _values(gpqa: float, shift: float = 0.0) -> dict:
    out = {"leaderboard_gpqa": {"acc_norm,none": gpqa}}
    out.update({k: {"acc_norm,none": v + shift} for k, v in MUSR.items()})
    return out


def _se(v: float, n: int) -> float:  # what the fixture writes as stderr
    return math.sqrt(v * (1 - v) / (n - 1))


def _leaderboard(tmp_path, capsys, *bodies) -> list[dict]:
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(CONFIG, encoding="utf-8")
    for body in bodies:
        write_lm_eval_results(tmp_path / "out", body)
    assert main(["leaderboard", str(tmp_path / "out"), "--config", str(cfg), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["models"]


def test_stderr_through_normalization_clamp_and_average(tmp_path, capsys):
    n = 400
    (row,) = _leaderboard(tmp_path, capsys, lm_eval_body(_values(0.6), model="m/one", n=n))
    se_gpqa = _se(0.6, n) * 100 / 0.75
    # murder mysteries 0.5 is at chance: clamped to 0, its scaled stderr kept
    se_musr = math.sqrt(sum((_se(v, n) * 100 / (1 - LOWER[k])) ** 2 for k, v in MUSR.items())) / 3
    se_avg = math.sqrt(se_gpqa**2 + se_musr**2) / 2
    assert row["stderr"] == pytest.approx({"GPQA": se_gpqa, "MUSR": se_musr, "Average": se_avg}, rel=1e-12)
    for col in ("GPQA", "MUSR", "Average"):
        v = row["scores"][col]
        assert row["scores_ci_low"][col] == pytest.approx(max(0.0, v - Z * row["stderr"][col]), rel=1e-9)
        assert row["scores_ci_high"][col] == pytest.approx(min(100.0, v + Z * row["stderr"][col]), rel=1e-9)
    assert row["indistinguishable_from_best"] is True


def test_indistinguishable_from_best(tmp_path, capsys):
    bodies = [lm_eval_body(_values(0.60), model="m/best", n=400),
              lm_eval_body(_values(0.58), model="m/close", n=400),  # 2.7 points below: within noise
              lm_eval_body(_values(0.35, -0.1), model="m/far", n=400)]
    rows = {r["model"]: r for r in _leaderboard(tmp_path, capsys, *bodies)}
    best = rows["m/best"]
    for name, expected in (("m/best", True), ("m/close", True), ("m/far", False)):
        r = rows[name]
        gap = best["scores"]["Average"] - r["scores"]["Average"]
        assert (gap <= Z * math.hypot(best["stderr"]["Average"], r["stderr"]["Average"])) is expected
        assert r["indistinguishable_from_best"] is expected


def test_unknown_stderr_is_said_not_invented(tmp_path, capsys):
    body = lm_eval_body(_values(0.6), model="m/na")
    body["results"]["leaderboard_gpqa"]["acc_norm_stderr,none"] = "N/A"
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(CONFIG, encoding="utf-8")
    write_lm_eval_results(tmp_path / "out", body)
    assert main(["leaderboard", str(tmp_path / "out"), "--config", str(cfg), "--format", "json"]) == 0
    captured = capsys.readouterr()
    (row,) = json.loads(captured.out)["models"]
    assert row["stderr"]["GPQA"] is None and row["stderr"]["Average"] is None and row["stderr"]["MUSR"] is not None
    assert row["scores_ci_low"]["GPQA"] is None and row["indistinguishable_from_best"] is True
    assert "no usable acc_norm_stderr,none, no samples log" in captured.err
    assert "the GPQA interval is unknown" in captured.err


def test_stderr_propagation_by_simulation(tmp_path):
    """The propagated stderr of an Average of normalized columns (the leaderboard's config
    layout, scored by the engine) matches the spread of that Average over simulated benchmark
    runs (values away from the clamp)."""
    import numpy as np

    from scorekit.leaderboards.scorecard_config import load_scorecard_config
    from scorekit.leaderboards.threshold import scorecard_values

    cfg = tmp_path / "three.yaml"
    cfg.write_text("scale: 100\ncategories:\n  c:\n    benchmarks:\n" + "".join(
        f"      b{i}:\n        metrics:\n          m: {{key: {{task: t{i}, metric: acc}}, good: 1.0, {bound}}}\n"
        for i, bound in enumerate(["num_choices: 4", "num_choices: 10", "bad: 0.0"])), encoding="utf-8")
    config = load_scorecard_config(cfg)
    rng = np.random.default_rng(4)
    sizes, truths, lowers = np.array([1000, 400, 2500]), np.array([0.6, 0.45, 0.7]), np.array([0.25, 0.1, 0.0])
    runs = rng.binomial(sizes, truths, size=(4000, 3)) / sizes
    averages = ((runs - lowers) / (1 - lowers) * 100).mean(axis=1)
    se = np.sqrt(truths * (1 - truths) / sizes)
    values = {f"t{i}": {"acc": float(t), "acc_stderr": float(s)} for i, (t, s) in enumerate(zip(truths, se))}
    (m,) = scorecard_values(config, {"m": values})
    assert m["overall"] == pytest.approx(((truths - lowers) / (1 - lowers) * 100).mean(), rel=1e-12)
    assert m["overall_stderr"] == pytest.approx(averages.std(), rel=0.05)
