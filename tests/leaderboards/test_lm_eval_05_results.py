"""lm-eval 0.5.0.dev1 results files (committed corpus, written by the real harness): tasks run
inside a group are named ``<group>::<task>``; ``leaderboard`` and ``scorecard`` read them under the
task's own name, so a 0.5 run gives the same columns as a 0.4.13 run of the same answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekit.leaderboards.results_files import load_results, read_results_file, unqualified
from scorekit.cli import main

CORPUS = Path(__file__).resolve().parents[1] / "conformance" / "corpus"
LB05 = CORPUS / "lm-eval-0.5.0.dev1" / "leaderboard"
LB0413 = CORPUS / "lm-eval-0.4.13" / "leaderboard"


def _results_file(folder: Path) -> Path:
    (path,) = folder.glob("*/results_*.json")
    return path


def test_the_corpus_file_really_has_qualified_names():
    raw = json.loads(_results_file(LB05).read_text())["results"]
    assert "leaderboard_gpqa::leaderboard_gpqa_main" in raw and "leaderboard::leaderboard_mmlu_pro" in raw


def test_tasks_are_read_under_their_own_names():
    rf = read_results_file(_results_file(LB05))
    assert not [k for k in rf.tasks if "::" in k]
    assert rf.tasks["leaderboard_gpqa_main"]["acc_norm,none"] == pytest.approx(1 / 3)
    assert rf.tasks["leaderboard_gpqa"]["acc_norm,none"] == pytest.approx(2 / 9)  # group key: plain already
    assert rf.n_shot["leaderboard_mmlu_pro"] == 2 and rf.n_shot["leaderboard_bbh_navigate"] == 1  # as in "n-shot"


def test_a_name_two_groups_share_stays_qualified():
    keys = unqualified({"a::t": {"x,none": 1}, "b::t": {"x,none": 2}, "c::u": {}, "t2": {}})
    assert list(keys) == ["a::t", "b::t", "u", "t2"]


def test_pass_at_k_keys_of_repeated_tasks_are_kept():
    extras = CORPUS / "lm-eval-0.5.0.dev1" / "extras"
    model = next(iter(load_results([extras]).models.values()))
    metrics = model.get("corpus_repeats").metrics
    assert "pass@1(exact_match),none" in metrics and "exact_match,none" not in metrics


def _leaderboard(folder: Path, capsys) -> dict:
    assert main(["leaderboard", str(folder), "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["models"]
    return row


def test_leaderboard_columns_match_the_0_4_13_run(capsys):
    new, old = _leaderboard(LB05, capsys), _leaderboard(LB0413, capsys)
    # the same scripted answers: MATH, MuSR and MMLU-Pro agree with 0.4.13 exactly
    for column in ("MATH Lvl 5", "MUSR", "MMLU-PRO"):
        assert new["raw"][column] is not None and new["raw"][column] == pytest.approx(old["raw"][column]), column
    # GPQA is the group's value in the file: (1 + 0 + 1) of 9 questions, below the 0.25 baseline -> 0
    assert new["raw"]["GPQA"] == pytest.approx(2 / 9) and new["scores"]["GPQA"] == 0.0
    # IFEval in this 0.5 run is per-document fractions (list values break 0.5; docs/harness-outputs.md)
    assert new["raw"]["IFEval"] == pytest.approx(1 / 3)
    assert new["missing"] == old["missing"] == ["BBH"]  # the corpus runs 3 of 24 BBH subtasks


def test_robustness_classifies_qualified_score_task_names():
    from scorekit.robustness.readers import classify_task

    t = classify_task("score_robustness_mmlu_pro::score_prompt_robustness_mmlu_pro")
    assert (t.name, t.benchmark, t.family, t.is_group) == ("score_prompt_robustness_mmlu_pro", "mmlu_pro", "prompt", False)
    t = classify_task("score_prompt_robustness_agieval::prompt_robustness_agieval_lsat_ar")
    assert (t.name, t.subset) == ("prompt_robustness_agieval_lsat_ar", "lsat_ar")
    assert classify_task("leaderboard::leaderboard_mmlu_pro") is None
