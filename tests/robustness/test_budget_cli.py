"""scorekit plan --robustness and scorekit compare on budgeted runs (issue 32, items 3 and 4)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from scorekit.robustness.budget import Design, assign
from tests.robustness.test_budget_report import TIME2, _truth, write_log


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorekit", *args], capture_output=True, text=True, timeout=600)


def _json(*args: str) -> dict:
    proc = _cli(*args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    root = tmp_path_factory.mktemp("budget_cli")
    truth_a, truth_b = _truth(200, 10, seed=0), _truth(200, 10, seed=1)
    write_log(root / "full", truth_a, None)
    write_log(root / "a", truth_a, Design.make(10, 2, seed=4), model="scripted/a")
    write_log(root / "b", truth_b, Design.make(10, 2, seed=4), model="scripted/b")
    write_log(root / "c", truth_b, Design.make(10, 2, seed=5), model="scripted/c")
    write_log(root / "d", truth_b, None, model="scripted/d", time=TIME2)
    return root, truth_a, truth_b


# --- plan --robustness -------------------------------------------------------------------------


def test_plan_consistency_without_pilot_matches_the_formula():
    out = _json("plan", "--robustness", "--half-width", "0.02", "--variants", "10", "--consistency-rate", "0.8",
                "--budgets", "2,4")
    assert out["target"] == "consistency_rate" and out["variants"] == 10 and out["pilot"] is None
    assert [(r["per_question"], r["questions"], r["evaluations"]) for r in out["rows"]] == [(2, 1245, 2490), (4, 448, 1792)]
    assert all(r["half_width"] <= 0.02 for r in out["rows"])


def test_plan_from_a_full_and_a_budgeted_pilot(logs):
    root, truth, _ = logs
    full = _json("plan", "--robustness", "--half-width", "0.03", "--pilot", str(root / "full"), "--budgets", "2,4,10")
    assert full["pilot"]["design"] is None and full["pilot"]["questions"] == 200 and full["variants"] == 10
    rows = {r["per_question"]: r for r in full["rows"]}
    assert rows[2]["questions"] > rows[4]["questions"] > rows[10]["questions"] == 1  # B = V: exact
    assert any("full run" in n for n in full["notes"])
    # the analytic answer from the pilot's own answers: N = z^2 mean Var_2(r_q) / h^2
    from scorekit.robustness.budget.plan import pair_share_variance

    var = np.mean([pair_share_variance([c, 10 - c] if c < 10 else [10], 10, 2) for c in truth.sum(axis=1)])
    assert rows[2]["questions"] == int(np.ceil(1.959963984540054**2 * var / 0.03**2))
    budgeted = _json("plan", "--robustness", "--half-width", "0.03", "--pilot", str(root / "a"), "--budgets", "2,4")
    assert budgeted["pilot"]["design"] == {"variants": 10, "per_question": 2, "seed": 4}
    b_rows = {r["per_question"]: r["questions"] for r in budgeted["rows"]}
    # the same kind of model: the budgeted pilot's plan is near the full pilot's (within a factor 2)
    assert 0.5 < b_rows[2] / rows[2]["questions"] < 2 and b_rows[4] < b_rows[2]


def test_plan_quantiles_from_a_pilot(logs):
    root, _, _ = logs
    out = _json("plan", "--robustness", "--target", "quantiles", "--half-width", "0.05", "--pilot", str(root / "full"),
                "--budgets", "2")
    assert {r["quantile"] for r in out["rows"]} == {"5", "25", "50", "75", "95"}
    assert all(r["per_question"] == 2 and r["questions"] >= 1 and r["evaluations"] == 2 * r["questions"] for r in out["rows"])
    table = _cli("plan", "--robustness", "--target", "quantiles", "--half-width", "0.05", "--pilot", str(root / "full"),
                 "--budgets", "2", "--format", "markdown")
    assert table.returncode == 0 and "| quantile |" in table.stdout and "pilot: robust_prompt_toy" in table.stdout


@pytest.mark.parametrize("args, said", [
    (["--half-width", "0.02", "--variants", "10", "--consistency-rate", "0.8", "--budgets", "1"], "at least 2"),
    (["--half-width", "0.02", "--variants", "10", "--consistency-rate", "0.8", "--budgets", "2.5"], "--budgets must be integers"),
    (["--half-width", "0", "--variants", "10", "--consistency-rate", "0.8"], "--half-width must be"),
    (["--variants", "10", "--consistency-rate", "0.8"], "needs --half-width"),
    (["--half-width", "0.02", "--variants", "10"], "--consistency-rate R"),
    (["--half-width", "0.02", "--variants", "10", "--consistency-rate", "1.5"], "consistency rate must be in [0, 1]"),
    (["--half-width", "0.02", "--target", "quantiles"], "needs --pilot"),
    (["--half-width", "0.02", "--variants", "10", "--consistency-rate", "0.8", "--discordance", "0.2"], "is for the paired"),
    (["--half-width", "0.02", "--pilot", "a", "b"], "takes one run"),
])
def test_plan_robustness_bad_input_is_one_line(args, said):
    proc = _cli("plan", "--robustness", *args)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and said in proc.stderr, proc.stderr


def test_paired_plan_options_are_kept_apart():
    proc = _cli("plan", "--difference", "0.05", "--discordance", "0.2", "--half-width", "0.1")
    assert proc.returncode == 2 and "--half-width is for --robustness" in proc.stderr
    proc = _cli("plan", "--difference", "0.05", "--pilot", "only-one")
    assert proc.returncode == 2 and "two runs" in proc.stderr


# --- compare -----------------------------------------------------------------------------------


def test_compare_two_budgeted_runs_with_one_design_question_by_question(logs):
    root, truth_a, truth_b = logs
    out = _json("compare", str(root / "a"), str(root / "b"))
    rows = {c["metric"]: c for c in out["comparisons"]}
    assert {"accuracy", "consistency_rate", "0_accuracy"} <= set(rows)
    plan = assign([str(i) for i in range(200)], Design.make(10, 2, seed=4))
    asked = np.zeros((200, 10), dtype=bool)
    for q, vs in plan.items():
        asked[int(q), list(vs)] = True
    # accuracy: mean over questions of each question's mean over its two variants, paired on all 200
    assert rows["accuracy"]["n_paired"] == 200
    assert rows["accuracy"]["a_value"] == pytest.approx(np.mean([truth_a[i, asked[i]].mean() for i in range(200)]))
    assert rows["accuracy"]["b_value"] == pytest.approx(np.mean([truth_b[i, asked[i]].mean() for i in range(200)]))
    # one variant: on the questions the design gives it (N·B/V = 40, ±1), exact McNemar
    assert rows["0_accuracy"]["n_paired"] == asked[:, 0].sum() and 39 <= asked[:, 0].sum() <= 41
    assert rows["0_accuracy"]["a_value"] == pytest.approx(truth_a[asked[:, 0], 0].mean())
    assert rows["0_accuracy"]["test"].startswith("mcnemar")
    assert "accuracy_range" not in rows
    assert any("spread across variants is not" in n for n in out["notes"])


@pytest.mark.parametrize("other, said", [("c", "seed 5"), ("d", "a full run")])
def test_compare_runs_of_different_designs_is_one_line(logs, other, said):
    root, _, _ = logs
    proc = _cli("compare", str(root / "a"), str(root / other))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "cannot be compared question by question" in proc.stderr and said in proc.stderr
