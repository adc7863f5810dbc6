"""`scorekit compare` on details written by the real lighteval CLI: two scripted runs of one
model on the SCORE MMLU-Pro prompt task; accuracies checked against grading the script's
answers directly (no reader involved)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scorekit.cli import main
from scorekit.robustness.grading import record_for
from tests.lighteval.conftest import SCRIPTED_MODEL, run_lighteval
from tests.lighteval.script import _one, expanded_docs
from tests.lighteval.test_score_suite import rows_by_source

pytestmark = pytest.mark.slow


def test_compare_two_lighteval_runs(tmp_path, lighteval_env, score_data_dir, capsys):
    docs = [d for d in expanded_docs(rows_by_source(score_data_dir), families=("prompt",)) if d["benchmark"] == "mmlu_pro"]
    outs = []
    for salt in (0, 1):
        script = tmp_path / f"script_{salt}.json"
        answers = {f"{d['question_id']}|{d['family']}|{d['variant']}": _one(d, salt) for d in docs}
        script.write_text(json.dumps({"answers": answers}))
        out = tmp_path / f"out_{salt}"
        run_lighteval(["custom", "scripted", str(SCRIPTED_MODEL), "score_prompt_robustness_mmlu_pro|0",
                       "--custom-tasks", "scorekit.lighteval.score_suite", "--output-dir", str(out), "--save-details"],
                      {**lighteval_env, "SCOREKIT_LIGHTEVAL_SCRIPT": str(script)})
        outs.append(out)
    assert main(["compare", *map(str, outs), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {c["metric"]: c for c in doc["comparisons"] if c["task"] == "score_prompt_robustness_mmlu_pro"}
    assert rows["0_accuracy"]["a"].endswith("#1") and rows["0_accuracy"]["b"].endswith("#2")
    for v in range(10):
        shown = [d for d in docs if int(d["variant"]) == v]
        expected = [float(np.mean([record_for(d, _one(d, salt)).correct for d in shown])) for salt in (0, 1)]
        c = rows[f"{v}_accuracy"]
        assert [c["a_value"], c["b_value"]] == pytest.approx(expected, abs=1e-12)
        assert c["n_paired"] == len(shown) and c["test"] == "mcnemar"
        assert c["difference"] == pytest.approx(expected[0] - expected[1], abs=1e-12)
    assert {"accuracy_range", "accuracy_std", "consistency_rate"} <= set(rows)
