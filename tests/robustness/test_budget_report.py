"""scorekit robustness on budgeted runs (issue 32, items 2 and 3): design, estimates, refusals.

The logs are lm-eval samples files in the layout ``scorekit variants`` writes (``doc._robust``,
the record as every metric's item); tests/lm_eval/test_budget_e2e.py makes them with the real
lm-eval CLI.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from scorekit.robustness.budget import Design, assign

TIME = "2026-11-28T10-00-00.000000"
TIME2 = "2026-11-28T11-00-00.000000"


def _truth(n: int, v: int, seed: int = 0) -> np.ndarray:
    """Correctness of a full run: question easiness + a variant effect (variant 0 hard)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.5, 1.2, n)
    beta = np.linspace(-1.0, 1.0, v)
    p = 1 / (1 + np.exp(-(theta[:, None] + beta[None, :])))
    return (rng.random((n, v)) < p).astype(int)


def write_log(folder, truth: np.ndarray, design: Design | None, *, family: str = "prompt", time: str = TIME,
              drop_design: bool = False, edit=None, task: str = "toy", model: str = "scripted/toy") -> str:
    """A samples log (and results file) of task robust_<family>_<task>: question q answers
    the gold (0) when right, else its wrong answer 1 + q % 2."""
    n, v = truth.shape
    plan = assign([str(i) for i in range(n)], design) if design is not None else {str(i): tuple(range(v)) for i in range(n)}
    name = f"robust_{family}_{task}"
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for q in range(n):
        for j in plan[str(q)]:
            meta = {"question_id": str(q), "family": family, "variant": j, "n_variants": v, "template": j,
                    "order": [], "canonical": [], "gold_canonical": 0, "samples": 1}
            if design is not None and not drop_design:
                meta.update(design=design.to_json(), design_questions=n)
            answer = 0 if truth[q, j] else 1 + q % 2
            record = [str(q), family, j, v, task, answer, bool(truth[q, j])]
            rows.append({"doc_id": len(rows), "doc": {"question": f"q{q}", "_robust": meta}, "filter": "none",
                         "resps": [[str(answer)]], "filtered_resps": [str(answer)], "unparsed_rate": record})
    if edit is not None:
        edit(rows)
    path = folder / f"samples_{name}_{time}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / f"results_{time}.json").write_text(json.dumps({
        "results": {name: {"alias": name}}, "config": {"model": "hf", "model_args": f"pretrained={model}"},
        "model_name": model}))
    return str(path)


def _family(folder):
    from scorekit.robustness.readers import read_paths
    from scorekit.robustness.report import build_report, report_to_json

    data = report_to_json(build_report(read_paths([str(folder)])))
    (fam,) = [f for m in data["models"] for b in m["benchmarks"] for f in b["families"]]
    return fam


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorekit", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def truth():
    return _truth(200, 10)


def test_full_run_reports_exact_quantiles_and_no_design(tmp_path, truth):
    fam = _family(tmp_path / "full") if write_log(tmp_path / "full", truth, None) else None
    acc = truth.mean(axis=0)
    assert fam["design"] is None and fam["estimated"] is False
    expected = dict(zip(["5", "25", "50", "75", "95"], np.percentile(acc, [5, 25, 50, 75, 95])))
    assert fam["accuracy_quantiles"] == pytest.approx(expected)
    assert fam["accuracy_quantiles_ci_low"] == fam["accuracy_quantiles"] == fam["accuracy_quantiles_ci_high"]


def test_budgeted_run_reports_estimates_with_intervals_holding_the_full_values(tmp_path, truth):
    design = Design.make(10, 2, seed=3)
    write_log(tmp_path / "b", truth, design)
    fam = _family(tmp_path / "b")
    full_acc = truth.mean(axis=0)
    assert fam["design"] == {"variants": 10, "per_question": 2, "seed": 3}
    assert fam["estimated"] is True and fam["n_questions"] == 200 and fam["n_records"] == 400
    assert any("budgeted run (2 of 10 variants per question, seed 3)" in n and "estimate" in n for n in fam["notes"])
    assert set(fam["accuracy_quantiles"]) == {"5", "25", "50", "75", "95"}
    for k in fam["accuracy_quantiles"]:
        assert fam["accuracy_quantiles_ci_low"][k] <= fam["accuracy_quantiles"][k] <= fam["accuracy_quantiles_ci_high"][k]
        assert fam["accuracy_quantiles_ci_low"][k] < fam["accuracy_quantiles_ci_high"][k]  # an estimate, not exact
    # the full run's values lie in the budgeted run's intervals, mostly (one seeded case at 200
    # questions; coverage is measured by bench/sim_budget.py)
    truths = (("accuracy", full_acc.mean()), ("accuracy_range", np.ptp(full_acc)), ("accuracy_std", full_acc.std()),
              ("accuracy_min", full_acc.min()), ("accuracy_max", full_acc.max()),
              *((f"q{p}", x) for p, x in zip((5, 25, 50, 75, 95), np.percentile(full_acc, (5, 25, 50, 75, 95)))))
    covered = [fam[f"{n}_ci_low"] <= x <= fam[f"{n}_ci_high"] if not n.startswith("q") else
               fam["accuracy_quantiles_ci_low"][n[1:]] <= x <= fam["accuracy_quantiles_ci_high"][n[1:]]
               for n, x in truths]
    assert fam["accuracy_ci_low"] <= full_acc.mean() <= fam["accuracy_ci_high"]
    assert sum(covered) >= len(covered) - 2, list(zip([n for n, _ in truths], covered))
    assert set(fam["variant_accuracy"]) == {str(i) for i in range(10)}
    inside = sum(fam["variant_accuracy_ci_low"][str(j)] <= full_acc[j] <= fam["variant_accuracy_ci_high"][str(j)]
                 for j in range(10))
    assert inside >= 8
    # CR of the full run: right answers agree, wrong ones too (one wrong answer per question)
    full_cr = np.mean([(c * (c - 1) / 2 + (10 - c) * (9 - c) / 2) / 45 for c in truth.sum(axis=1)])
    assert fam["consistency_rate_ci_low"] <= full_cr <= fam["consistency_rate_ci_high"]
    assert set(fam["variance_shares"]) == {"question", "variant", "within"}
    assert fam["unparsed_rate"] == 0.0


def test_every_format_labels_the_estimates(tmp_path, truth):
    write_log(tmp_path / "b", truth, Design.make(10, 2, seed=0))
    for fmt in ("table", "markdown", "csv", "html", "latex"):
        proc = _cli("robustness", str(tmp_path / "b"), "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout
        if fmt == "csv":
            assert "estimated,True" in text and "design_per_question,2" in text and "accuracy_quantile_95_ci_high" in text
        else:
            assert "estimate" in text and "2 of 10 variants per question" in text, fmt
            assert "Q95" in text


def test_a_budgeted_log_that_lost_its_design_is_one_line(tmp_path, truth):
    write_log(tmp_path / "lost", truth, Design.make(10, 2), drop_design=True)
    proc = _cli("robustness", str(tmp_path / "lost"), "--format", "json", "--output", str(tmp_path / "out.json"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "lost its design" in proc.stderr and "samples_robust_prompt_toy" in proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_an_edited_design_is_one_line(tmp_path, truth):
    def edit(rows):  # the design recorded says seed 5; the questions were asked seed 0's variants
        for r in rows:
            r["doc"]["_robust"]["design"]["seed"] = 5

    write_log(tmp_path / "edited", truth, Design.make(10, 2), edit=edit)
    proc = _cli("robustness", str(tmp_path / "edited"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "the design was edited or the log mixes runs" in proc.stderr

    def partly(rows):
        del rows[3]["doc"]["_robust"]["design"]

    write_log(tmp_path / "partly", truth, Design.make(10, 2), edit=partly)
    proc = _cli("robustness", str(tmp_path / "partly"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "line 4" in proc.stderr, proc.stderr

    def malformed(rows):
        for r in rows:
            r["doc"]["_robust"]["design"]["per_question"] = "two"

    write_log(tmp_path / "malformed", truth, Design.make(10, 2), edit=malformed)
    proc = _cli("robustness", str(tmp_path / "malformed"))
    assert proc.returncode == 2 and "per_question must be an integer" in proc.stderr, proc.stderr


def test_a_budgeted_run_beside_a_full_run_of_the_same_task_is_refused(tmp_path, truth):
    write_log(tmp_path / "mix", truth, None, time=TIME)
    write_log(tmp_path / "mix", truth, Design.make(10, 2), time=TIME2)
    proc = _cli("robustness", str(tmp_path / "mix"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "a full run" in proc.stderr and "a budgeted run (2 of 10 variants, seed 0)" in proc.stderr
    assert "not combined" in proc.stderr


def test_a_run_cut_by_limit_leaves_the_cut_questions_out_and_says_so(tmp_path, truth):
    def cut(rows):
        del rows[-1]  # the last question lost one of its two variants

    write_log(tmp_path / "cut", truth, Design.make(10, 2), edit=cut)
    fam = _family(tmp_path / "cut")
    assert fam["estimated"] and fam["n_questions"] == 199 and fam["n_incomplete"] == 1
    assert any("left out" in m for m in fam["missing"])


def test_option_order_budget_labels_positions(tmp_path):
    truth = _truth(120, 4, seed=1)
    write_log(tmp_path / "oo", truth, Design.make(4, 2, seed=1), family="option_order")
    fam = _family(tmp_path / "oo")
    assert fam["estimated"] and set(fam["variant_accuracy"]) == {"A", "B", "C", "D"}
    assert math.isnan(fam["circular_accuracy"] or math.nan)
    assert any("circular accuracy" in n for n in fam["notes"])
