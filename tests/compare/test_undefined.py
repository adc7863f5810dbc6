"""Undefined is never 0, and an interval is shown only by the one rule (issue 35).

On a real lm-eval ``dummy`` run of the SCORE tasks (``scorekit demo --model dummy``: every
answer is "lol", nothing parses) and a scripted run of the same task files: the consistency
rate of the dummy is undefined, so compare shows it as missing and compares nothing with it,
``--values`` gives no number, and export writes no result for it; a zero-width bootstrap gives
no interval, p or MDD; fewer than 10 questions give no resampled interval, as the robustness
report already refuses a CR interval there. Expected values come from the scripted answers
(tests/robustness/report_fixtures/build_logs.py), never from compare's own readers.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil

import numpy as np
import pytest

from scorekit.cli import main
from scorekit.compare.core import MetricValues, Run, compare_runs, run_values
from tests.support.dummy_runs import dummy_runs

pytestmark = pytest.mark.slow

CR = {"score_prompt_robustness_mmlu_pro": "consistency_rate", "score_option_order_robustness_mmlu_pro": "options_consistency_rate",
      "score_non_greedy_robustness_mmlu_pro": "non_greedy_consistency_rate",
      "prompt_robustness_agieval_aqua_rat": "consistency_rate", "option_order_robustness_agieval_aqua_rat": "options_consistency_rate",
      "non_greedy_robustness_agieval_aqua_rat": "non_greedy_consistency_rate"}
UNDEFINED = "no question has two parsed answers, so the consistency rate is undefined (not 0)"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return dummy_runs(tmp_path_factory)


def _json(capsys, args: list[str]) -> dict:
    assert main([*args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_compare_with_an_undefined_cr_makes_no_comparison_and_says_why(runs, capsys):
    """Was: consistency_rate 0.551 vs 0.000, +0.551, p < 0.001."""
    doc = _json(capsys, ["compare", str(runs["scripted"]), str(runs["dummy"])])
    rows = {(c["task"], c["metric"]): c for c in doc["comparisons"]}
    for task, metric in CR.items():
        c = rows[(task, metric)]
        assert c["a_value"] is not None and 0 < c["a_value"] < 1  # the scripted run's CR is defined
        for field in ("b_value", "difference", "ci_low", "ci_high", "p_value", "p_value_adjusted",
                      "p_value_adjusted_pairs", "min_detectable_difference"):
            assert c[field] is None, (task, metric, field)
        assert c["test"] == "none" and c["note"] == f"not compared: for dummy, {UNDEFINED}"
    # the scripted prompt CR on MMLU-Pro, by hand from build_logs.mixed_prompt: per question the
    # answers of prompts 0-5 and 9 agree (the gold), 6-7 agree ("A", unless the gold is A), 8 is unparsed
    assert rows[("score_prompt_robustness_mmlu_pro", "consistency_rate")]["a_value"] > 0.4
    (note,) = [n for n in doc["notes"] if n.startswith("not compared")]
    assert UNDEFINED in note and "and 1 more" in note  # six rows, five named
    # accuracies are still compared: the dummy is wrong everywhere
    acc = rows[("score_prompt_robustness_mmlu_pro", "0_accuracy")]
    assert acc["b_value"] == 0.0 and acc["a_value"] == 1.0 and acc["p_value"] < 0.01
    # the table shows "-" where the value is undefined, never 0.000
    assert main(["compare", str(runs["scripted"]), str(runs["dummy"])]) == 0
    table = capsys.readouterr().out
    line = next(x for x in table.splitlines() if "score_prompt_robustness_mmlu_pro" in x and " consistency_rate" in x)
    assert "0.000" not in line and " - " in line
    assert UNDEFINED in table


def test_values_of_an_undefined_cr_are_missing_with_the_reason(runs, capsys):
    """Was: consistency_rate 0.000 [0.000, 0.000]."""
    doc = _json(capsys, ["compare", str(runs["dummy"]), "--values"])
    values = {(v["task"], v["metric"]): v for v in doc["values"]}
    crs = [v for v in doc["values"] if v["metric"].endswith("consistency_rate")]
    assert len(crs) == 15  # every SCORE task of the demo
    for v in crs:
        assert v["value"] is None and v["ci_low"] is None and v["ci_high"] is None and v["note"] == UNDEFINED
    # an accuracy of 0 on every question: Wilson's interval of 0 of n, never [0, 0]
    ng = values[("score_non_greedy_robustness_mmlu_pro", "non_greedy_accuracy")]
    assert ng["value"] == 0.0 and ng["method"] == "wilson" and ng["ci_low"] == 0.0
    assert ng["ci_high"] == pytest.approx(1.959964**2 / (10 + 1.959964**2), rel=1e-6)
    for fmt in ("table", "markdown", "csv"):
        assert main(["compare", str(runs["dummy"]), "--values", "--format", fmt]) == 0
        text = capsys.readouterr().out
        if fmt == "csv":
            rows = [r for r in csv.DictReader(io.StringIO(text)) if r["metric"] == "consistency_rate"]
            assert rows and all(r["value"] == "" and r["ci_low"] == "" and r["note"] == UNDEFINED for r in rows)
        else:
            line = next(x for x in text.splitlines() if "score_prompt_robustness_mmlu_pro" in x and "consistency_rate" in x)
            assert "0.000" not in line
            assert UNDEFINED in text


def test_export_writes_no_number_for_an_undefined_cr(runs, capsys):
    """Was: score 0.0 with confidence interval [0, 0] in the every_eval_ever document."""
    from tests.export.test_export import _export

    doc = _export(capsys, [str(runs["dummy"])])
    metrics = {r["metric_config"]["metric_name"] for r in doc["evaluation_results"]}
    assert not any(m.endswith("consistency_rate") for m in metrics)
    assert "0_accuracy" in metrics and "accuracy_range" in metrics
    notes = json.loads(doc["source_metadata"]["additional_details"]["scorekit_notes"])
    (note,) = [n for n in notes if n.startswith("not exported")]
    assert UNDEFINED in note and note.count("consistency_rate") == 15
    for r in doc["evaluation_results"]:  # no zero-width interval anywhere
        ci = r["score_details"].get("uncertainty", {}).get("confidence_interval")
        assert ci is None or ci["upper"] > ci["lower"], r["evaluation_result_id"]


def test_same_answers_give_no_interval_p_or_mdd(runs, capsys, tmp_path):
    """Two copies of the dummy: every paired difference is 0, so the paired bootstrap has zero
    width. Was: [+0.000, +0.000], p 1.000, MDD 0.000 ("any difference would be detectable")."""
    copy = tmp_path / "again"
    shutil.copytree(runs["dummy"], copy)
    doc = _json(capsys, ["compare", str(runs["dummy"]), str(copy)])
    c = next(c for c in doc["comparisons"] if c["task"] == "score_non_greedy_robustness_mmlu_pro"
             and c["metric"] == "non_greedy_accuracy")
    assert (c["n_paired"], c["difference"], c["test"]) == (10, 0.0, "paired_bootstrap")
    assert c["ci_low"] is None and c["p_value"] is None and c["min_detectable_difference"] is None
    assert c["note"].startswith("no interval, p or MDD: zero width")
    # McNemar with no discordant question keeps its interval and p = 1, but has no MDD
    m = next(c for c in doc["comparisons"] if c["task"] == "score_prompt_robustness_mmlu_pro" and c["metric"] == "0_accuracy")
    assert m["p_value"] == 1.0 and m["ci_low"] < 0 < m["ci_high"] and m["min_detectable_difference"] is None
    assert m["note"].startswith("no MDD: the runs never disagree")


def test_small_samples_follow_the_robustness_rule(runs, capsys):
    """Below 10 questions no resampled interval, in compare --values as in the robustness report
    (AGIEval aqua-rat: 5 questions in the demo's sample); 10 questions (MMLU-Pro) get one."""
    doc = _json(capsys, ["compare", str(runs["scripted"]), "--values"])
    values = {(v["task"], v["metric"]): v for v in doc["values"]}
    small = values[("prompt_robustness_agieval_aqua_rat", "consistency_rate")]
    assert small["n"] == 5 and small["value"] is not None and small["ci_low"] is None
    assert small["note"].startswith("no interval: 5 questions: a resampled interval needs at least 10")
    ng = values[("non_greedy_robustness_agieval_aqua_rat", "non_greedy_accuracy")]
    assert ng["n"] == 5 and ng["ci_low"] is None and "needs at least 10" in ng["note"]
    assert values[("prompt_robustness_agieval_aqua_rat", "0_accuracy")]["ci_low"] is not None  # Wilson: any n
    big = values[("score_prompt_robustness_mmlu_pro", "consistency_rate")]
    assert big["n"] == 10 and big["ci_low"] < big["value"] < big["ci_high"] and big["method"] == "korn-graubard"
    # the robustness report on the same run: the same CR and the same interval, or none
    robust = _json(capsys, ["robustness", str(runs["scripted"])])
    fams = {(b["benchmark"], f["family"]): f for m in robust["models"] for b in m["benchmarks"] for f in b["families"]}
    mmlu = fams[("mmlu_pro", "prompt")]
    assert mmlu["consistency_rate"] == pytest.approx(big["value"], abs=1e-12)
    assert mmlu["consistency_rate_ci"] == pytest.approx([big["ci_low"], big["ci_high"]], abs=1e-12)
    agieval = fams[("agieval", "prompt")]
    assert agieval["n_questions"] == 5 and agieval["consistency_rate_ci"] in (None, [None, None])


def test_a_zero_width_value_interval_is_not_shown_as_exact():
    """12 questions that all score 0.25 (e.g. 1 of 4 samples right each): was [0.25, 0.25]."""
    ids = [str(i) for i in range(12)]
    run = Run("m", "m", "-", {"t": {"score": MetricValues("mean", ids, np.full(12, 0.25))}})
    (v,), notes = run_values([run])
    assert v.value == 0.25 and math.isnan(v.ci_low) and math.isnan(v.ci_high)
    assert v.note.startswith("no interval: zero width") and any("t score (m)" in n for n in notes)


def test_undefined_ratio_in_the_pure_core():
    """(agreeing pairs, pairs, pairs of parsed answers): no parsed pair anywhere is undefined."""
    ids = [str(i) for i in range(12)]
    parsed = Run("A", "A", "-", {"t": {"cr": MetricValues("ratio", ids, [[1, 3, 3]] * 12)}})
    unparsed = Run("B", "B", "-", {"t": {"cr": MetricValues("ratio", ids, [[0, 3, 0]] * 12)}})
    (c,), notes = compare_runs([parsed, unparsed])
    assert c.a_value == pytest.approx(1 / 3) and math.isnan(c.b_value) and math.isnan(c.difference)
    assert math.isnan(c.p_value) and c.note == f"not compared: for B, {UNDEFINED}"
    values, _ = run_values([parsed, unparsed])
    assert values[0].value == pytest.approx(1 / 3) and math.isnan(values[1].value) and values[1].note == UNDEFINED


CORPUS = __import__("pathlib").Path(__file__).parents[1] / "conformance" / "corpus"


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_lighteval_run_with_undefined_cr_against_an_lm_eval_run(capsys, fmt):
    """Files written by the real lighteval 0.13 (tiny-llama: no answer parses) and lm-eval 0.4.13
    (scripted): their shared MMLU-Pro question pairs, the CR comparison is not made."""
    args = ["compare", str(CORPUS / "lm-eval-0.4.13/score-scorekit/corpus-org__scripted-api"),
            str(CORPUS / "lighteval-0.13.0/score-scorekit"), "--format", fmt]
    assert main(args) == 0
    out = capsys.readouterr().out
    if fmt == "table":
        line = next(x for x in out.splitlines() if "score_prompt_robustness_mmlu_pro" in x and " consistency_rate" in x)
        assert "0.000" not in line and "not compared: for tiny-llama" in out
        return
    doc = json.loads(out)
    c = next(c for c in doc["comparisons"] if c["metric"] == "consistency_rate")
    assert c["a_value"] > 0 and c["b_value"] is None and c["difference"] is None and c["p_value"] is None
    assert c["note"] == f"not compared: for tiny-llama, {UNDEFINED}"
    # the lighteval model is a local path: the table names it by its last folder, JSON keeps it whole
    (run,) = [r for r in doc["runs"] if r["label"] == "tiny-llama"]
    assert run["model"].endswith("/corpus-org/tiny-llama") and run["model"].startswith("/")


def _checkpoint(tmp_path, name: str, model: str):
    """A copy of a real lm-eval 0.4.13 run (samples + results) whose model is the local folder ``model``."""
    src = CORPUS / "lm-eval-0.4.13/extras/__models__local__Scripted-LM-1B"
    dest = tmp_path / name
    shutil.copytree(src, dest)
    (results,) = dest.glob("results_*.json")
    data = json.loads(results.read_text())
    data["model_name"] = model
    data["config"]["model_args"] = {"pretrained": model}
    results.write_text(json.dumps(data))
    return dest


def test_local_paths_are_named_by_their_last_folders(tmp_path, capsys):
    """Model names given as paths made tables 250+ columns wide; now the last folder (with as
    many parents as tell two paths apart), the full path kept in JSON's "runs"."""
    long = "/mnt/shared/experiments/2026-11/very/long/path/to/the/team/checkpoints/run-42"
    a = _checkpoint(tmp_path, "a", f"{long}/step-500/hf")
    b = _checkpoint(tmp_path, "b", f"{long}/step-900/hf")
    doc = _json(capsys, ["compare", str(a), str(b)])
    assert [r["label"] for r in doc["runs"]] == ["step-500/hf", "step-900/hf"]
    assert [r["model"] for r in doc["runs"]] == [f"{long}/step-500/hf", f"{long}/step-900/hf"]
    assert {(c["a"], c["b"]) for c in doc["comparisons"]} == {("step-500/hf", "step-900/hf")}
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert long not in out.split("note:")[0]  # the table; a note says which label is which path
    assert f"step-500/hf = {long}/step-500/hf" in out
    assert max(len(line) for line in out.split("note:")[0].splitlines()) < 250
    doc = _json(capsys, ["compare", str(a), str(b), "--label", "early", "--label", "late"])
    assert [r["label"] for r in doc["runs"]] == ["early", "late"] and doc["comparisons"][0]["a"] == "early"
    for bad in (["--label", "x"], ["--label", "x", "--label", "x"], ["--label", " ", "--label", "y"]):
        assert main(["compare", str(a), str(b), *bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("scorekit: error: --label") and err.count("\n") == 1


def test_a_budgeted_run_with_an_undefined_cr_compares_nothing(tmp_path, capsys):
    """The demo's default, the prompt family on a budget (2 of 10), on the dummy model: the
    budgeted CR is undefined too (was 0.0 against 0.0), so it is missing with the reason."""
    demo = tmp_path / "demo"
    assert main(["demo", "--model", "dummy", "--no-plots", "-o", str(demo)]) == 0
    (run,) = {p.parent for p in (demo / "lm_eval").rglob("samples_*.jsonl")}
    other = tmp_path / "other"
    shutil.copytree(run, other)
    capsys.readouterr()
    doc = _json(capsys, ["compare", str(run), str(other)])
    (c,) = [c for c in doc["comparisons"] if (c["task"], c["metric"]) == ("score_prompt_robustness_mmlu_pro", "consistency_rate")]
    assert c["a_value"] is None and c["b_value"] is None and c["difference"] is None and c["p_value"] is None
    assert UNDEFINED in c["note"]
