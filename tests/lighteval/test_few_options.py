"""The documented SCORE commands on local MMLU-Pro rows with 4 options (the demo's rows), through
the real lighteval CLI (``python -m scorekit.lighteval custom``) with the scripted model.

Before: ``score_option_order_robustness_mmlu_pro|0`` stopped the whole run with lighteval's
``ValueError: Task ...:position_E has no documents to evaluate``, because positions E..J were
registered although no question has them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scorekit.cli import main
from tests.lighteval.conftest import SCRIPTED_MODEL, results_file, run_lighteval
from tests.lighteval.script import write_script

pytestmark = pytest.mark.slow

DEMO_ROWS = Path(__file__).resolve().parents[2] / "plugin" / "scorekit" / "demo" / "data" / "mmlu_pro.jsonl"


@pytest.fixture(scope="module")
def four_option_run(tmp_path_factory, lighteval_env):
    rows = [json.loads(x) for x in DEMO_ROWS.read_text().splitlines() if x.strip()][:4]
    assert {len(r["options"]) for r in rows} == {4}
    tmp = tmp_path_factory.mktemp("few_options")
    data = tmp / "data"
    (data / "mmlu_pro").mkdir(parents=True)
    (data / "mmlu_pro" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    script = write_script(tmp / "script.json", {("mmlu_pro", ""): rows})
    env = {**lighteval_env, "SCOREKIT_SCORE_DATA_DIR": str(data), "SCOREKIT_LIGHTEVAL_SCRIPT": str(script)}
    out = tmp / "out"
    proc = run_lighteval(["custom", "scripted", str(SCRIPTED_MODEL), "score_option_order_robustness_mmlu_pro|0",
                          "--custom-tasks", "scorekit.lighteval.score_suite", "--output-dir", str(out), "--save-details"], env)
    return out, proc


def test_positions_no_question_has_are_not_run_and_the_log_says_so(four_option_run):
    out, proc = four_option_run
    results = results_file(out, "scripted")["results"]
    positions = sorted(k.split(":position_")[1][0] for k in results if ":position_" in k)
    assert positions == ["A", "B", "C", "D"]
    assert "have at most 4 options; option-order tasks position_E..position_J are not registered" in proc.stderr


def test_report_names_the_positions_tested(four_option_run, tmp_path, capsys):
    out, _ = four_option_run
    assert main(["robustness", str(out), "-f", "json"]) == 0
    fam = json.loads(capsys.readouterr().out)["models"][0]["benchmarks"][0]["families"][0]
    assert fam["family"] == "option_order" and fam["source"] == "samples"
    assert list(fam["variant_accuracy"]) == ["A", "B", "C", "D"]
    assert fam["n_questions"] == 4 and fam["n_incomplete"] == 0


def test_results_without_details_do_not_claim_positions_cover_different_questions(four_option_run, tmp_path, capsys):
    out, _ = four_option_run
    shutil.copytree(out / "results", tmp_path / "results")
    assert main(["robustness", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "positions cover different questions" not in text
    assert "per-position accuracies can cover different questions" in text
    assert "needs the details files (lighteval --save-details)" in text


def test_incomplete_questions_in_a_lighteval_report_name_max_samples(four_option_run):
    from scorekit.robustness.readers import read_paths
    from scorekit.robustness.report import build_report

    out, _ = four_option_run
    read = read_paths([out])
    (s,) = read.samples
    cut = next(i for i, r in enumerate(s.records) if r.variant == 3)
    s.records = s.records[:cut] + s.records[cut + 1:]  # one question lacks position D, as --max-samples can do
    (fam,) = build_report(read).families()
    notes = " ".join(fam.notes)
    assert "1 question(s) with missing variants" in notes
    assert "lighteval's --max-samples N takes N documents of each position task" in notes and "--limit" not in notes
    s.layout = "scorekit"  # the same records from lm-eval logs keep lm-eval's flag
    (fam,) = build_report(read).families()
    assert "with --limit use a multiple" in " ".join(fam.notes)


@pytest.mark.parametrize("command", ["leaderboard", "scorecard"])
def test_leaderboard_and_score_on_a_details_folder_point_to_robustness_and_compare(four_option_run, command, capsys):
    out, _ = four_option_run
    assert main([command, str(out / "details")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("scorekit: error:") and "\n" not in err
    assert "found lighteval details: `scorekit robustness` (SCORE and variant tasks) and `scorekit compare` read those" in err


@pytest.mark.hf
def test_readme_command_on_a_tiny_model_and_4_option_rows(tiny_hf_model, lighteval_env, tmp_path, capsys):
    """The README's lighteval commands as written (accelerate, both families, local rows,
    generation size), on the tiny model instead of SmolLM2 (offline)."""
    rows = [json.loads(x) for x in DEMO_ROWS.read_text().splitlines() if x.strip()][:2]
    (tmp_path / "data" / "mmlu_pro").mkdir(parents=True)
    (tmp_path / "data" / "mmlu_pro" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = {**lighteval_env, "SCOREKIT_SCORE_DATA_DIR": str(tmp_path / "data"), "SCOREKIT_SCORE_GENERATION_SIZE": "4"}
    out = tmp_path / "out"
    run_lighteval(["accelerate", f"model_name={tiny_hf_model},batch_size=8,cache_dir={tmp_path / 'cache'}",
                   "score_prompt_robustness_mmlu_pro|0,score_option_order_robustness_mmlu_pro|0",
                   "--custom-tasks", "scorekit.lighteval.score_suite", "--output-dir", str(out), "--save-details"], env)
    assert main(["robustness", str(out), "-f", "json"]) == 0
    fams = {f["family"]: f for f in json.loads(capsys.readouterr().out)["models"][0]["benchmarks"][0]["families"]}
    assert list(fams["option_order"]["variant_accuracy"]) == ["A", "B", "C", "D"]
    assert len(fams["prompt"]["variant_accuracy"]) == 10
    assert fams["option_order"]["n_questions"] == fams["prompt"]["n_questions"] == 2
