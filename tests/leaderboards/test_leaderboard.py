"""`scorekit leaderboard` end to end: published numbers, merging, missing columns, formats, errors."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.cli import main
from tests.leaderboards.leaderboard_fixtures.layouts import (
    BBH_SUBTASKS,
    GPQA_MUSR_CONFIG,
    lm_eval_body,
    write_lighteval_results,
    write_lm_eval_results,
)

GOLDEN_PATH = Path(__file__).parent / "leaderboard_fixtures" / "oll-golden-pythia-410m.json"
COLUMNS = ["IFEval", "BBH", "MATH Lvl 5", "GPQA", "MUSR", "MMLU-PRO"]


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN_PATH.read_text(encoding="utf-8"))


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main(["leaderboard", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args) -> tuple[dict, str]:
    code, out, err = run_cli(capsys, *args, "--format", "json")
    assert code == 0, err
    return json.loads(out), err


def test_pythia_410m_published_row_to_1e9(tmp_path, capsys, golden):
    path = write_lm_eval_results(tmp_path / "out", lm_eval_body(golden["results"], model=golden["model"]))
    doc, err = run_json(capsys, tmp_path / "out")
    (row,) = doc["models"]
    assert row["model"] == "EleutherAI/pythia-410m"
    assert row["missing"] == [] and row["sources"] == [str(path)]
    assert list(row["scores"]) == COLUMNS + ["Average"]
    for col, published in golden["published"].items():
        assert row["scores"][col] == pytest.approx(published, abs=1e-9), col
    for col, published in golden["published_raw"].items():
        assert row["raw"][col] == pytest.approx(published, abs=1e-9), col
    # lm-eval's size-weighted group values are in the file but must not be what we used
    written = json.loads(path.read_text())["results"]
    assert abs(written["leaderboard_bbh"]["acc_norm,none"] - row["raw"]["BBH"]) > 1e-3
    assert abs(written["leaderboard_musr"]["acc_norm,none"] - row["raw"]["MUSR"]) > 1e-4


def test_pythia_410m_to_1e14_and_score_gives_the_same_numbers(tmp_path, capsys, golden):
    """The published row to 1e-14 (it is written to 15 significant digits), and `scorekit scorecard`
    with the leaderboard's config computes the very same floats: one engine, one config layout."""
    write_lm_eval_results(tmp_path / "out", lm_eval_body(golden["results"], model=golden["model"]))
    doc, _ = run_json(capsys, tmp_path / "out")
    (row,) = doc["models"]
    for col, published in golden["published"].items():
        assert abs(row["scores"][col] - published) < 1e-14, col
    for col, published in golden["published_raw"].items():
        assert abs(row["raw"][col] - published) < 1e-14, col
    code = main(["scorecard", str(tmp_path / "out"), "--config", "open_llm_leaderboard_v2", "--missing", "strict",
                 "--format", "json"])
    out, _ = capsys.readouterr()
    assert code == 0
    (m,) = json.loads(out)["models"]
    benches = m["categories"]["leaderboard"]["benchmarks"]
    assert {c: b["score"] for c, b in benches.items()} == {c: row["scores"][c] for c in COLUMNS}
    assert {c: b["stderr"] for c, b in benches.items()} == {c: row["stderr"][c] for c in COLUMNS}
    assert m["overall"] == row["scores"]["Average"] and m["overall_stderr"] == row["stderr"]["Average"]


def test_pythia_clamping_after_averaging_would_be_wrong(golden):
    """Guard the fixture's point: clamping the BBH mean instead of each subtask misses by points."""
    from scorekit.leaderboards.threshold import threshold_score

    raw = [golden["results"][f"leaderboard_bbh_{s}"]["acc_norm,none"] for s in BBH_SUBTASKS]
    bounds = {"boolean_expressions": 2, "causal_judgement": 2, "date_understanding": 6, "disambiguation_qa": 3,
              "formal_fallacies": 2, "geometric_shapes": 11, "hyperbaton": 2, "logical_deduction_five_objects": 5,
              "logical_deduction_seven_objects": 7, "logical_deduction_three_objects": 3, "movie_recommendation": 6,
              "navigate": 2, "object_counting": 19, "penguins_in_a_table": 5, "reasoning_about_colored_objects": 18,
              "ruin_names": 6, "salient_translation_error_detection": 6, "snarks": 2, "sports_understanding": 2,
              "temporal_sequences": 4, "tracking_shuffled_objects_five_objects": 5,
              "tracking_shuffled_objects_seven_objects": 7, "tracking_shuffled_objects_three_objects": 3, "web_of_lies": 2}
    unclamped = sum((v - 1 / bounds[s]) / (1 - 1 / bounds[s]) * 100 for v, s in zip(raw, BBH_SUBTASKS)) / 24
    assert abs(max(0.0, unclamped) - golden["published"]["BBH"]) > 1.0
    per = sum(threshold_score(v, 1.0, 1 / bounds[s]) * 100 for v, s in zip(raw, BBH_SUBTASKS)) / 24
    assert per == pytest.approx(golden["published"]["BBH"], abs=1e-9)
    assert sum(1 for v, s in zip(raw, BBH_SUBTASKS) if v < 1 / bounds[s]) == 8


LLAMA3 = {
    "leaderboard_ifeval": {"prompt_level_strict_acc,none": 53 / 541, "inst_level_strict_acc,none": 161 / 834},
    "leaderboard_math_hard": {"exact_match,none": 0.0453172205438067},
    "leaderboard_gpqa": {"acc_norm,none": 0.305369127516779},
    "leaderboard_musr_murder_mysteries": {"acc_norm,none": 129 / 250},
    "leaderboard_musr_object_placements": {"acc_norm,none": 83 / 256},
    "leaderboard_musr_team_allocation": {"acc_norm,none": 61 / 250},
    "leaderboard_mmlu_pro": {"acc,none": 0.320977393617021},
    # only lm-eval's size-weighted BBH group value, no subtasks: BBH cannot be computed
    "leaderboard_bbh": {"acc_norm,none": 0.4},
}
LLAMA3_PUBLISHED = {"IFEval": 14.5506145915061, "MATH Lvl 5": 4.53172205438067, "GPQA": 7.38255033557047,
                    "MUSR": 6.24244791666667, "MMLU-PRO": 24.5530437352246}


def test_meta_llama_3_8b_published_columns_and_missing_bbh(tmp_path, capsys):
    write_lm_eval_results(tmp_path / "out", lm_eval_body(LLAMA3, model="meta-llama/Meta-Llama-3-8B"))
    doc, err = run_json(capsys, tmp_path / "out")
    (row,) = doc["models"]
    for col, published in LLAMA3_PUBLISHED.items():
        assert row["scores"][col] == pytest.approx(published, abs=1e-9), col
    assert row["raw"]["MUSR"] == pytest.approx((129 / 250 + 83 / 256 + 61 / 250) / 3, abs=1e-15)
    assert row["missing"] == ["BBH"]
    assert row["scores"]["BBH"] is None and row["raw"]["BBH"] is None
    assert row["scores"]["Average"] is None  # never averaged over five
    assert "meta-llama/Meta-Llama-3-8B: missing BBH (absent: leaderboard_bbh_boolean_expressions" in err
    assert "Average left out" in err
    # with the published BBH the plain mean of six reproduces the published Average
    six = [row["scores"][c] for c in LLAMA3_PUBLISHED] + [24.500763796768]
    assert sum(six) / 6 == pytest.approx(13.6268570716861, abs=1e-9)


def test_docs_examples_through_a_user_config(tmp_path, capsys):
    cfg = tmp_path / "docs.yaml"
    cfg.write_text(GPQA_MUSR_CONFIG, encoding="utf-8")
    values = {"leaderboard_gpqa": {"acc_norm,none": 0.6}, "leaderboard_musr_murder_mysteries": {"acc_norm,none": 0.7},
              "leaderboard_musr_object_placements": {"acc_norm,none": 0.4}, "leaderboard_musr_team_allocation": {"acc_norm,none": 0.6}}
    write_lm_eval_results(tmp_path / "out", lm_eval_body(values, model="docs/model"))
    doc, _ = run_json(capsys, tmp_path / "out", "--config", cfg)
    scores = doc["models"][0]["scores"]
    assert round(scores["GPQA"], 2) == 46.67 and scores["MUSR"] == pytest.approx(35.0, abs=1e-9)
    assert scores["Average"] == pytest.approx((46.666666666666664 + 35.0) / 2, abs=1e-9)
    code, out, _ = run_cli(capsys, tmp_path / "out", "--config", cfg, "--format", "markdown")
    cells = [c.strip() for c in next(line for line in out.splitlines() if "docs/model" in line).split("|")[1:-1]]
    assert cells[0:2] == ["docs/model", "46.67"] and cells[3] == "35.00" and cells[5] == "40.83"
    assert cells[2].startswith("[") and cells[7] == "yes"  # intervals, and the only model ties with itself
    # the shipped config gives the same two columns (team allocation bound exactly 1/3: 0.333
    # would give 35.01); the other four are missing
    doc, _ = run_json(capsys, tmp_path / "out")
    row = doc["models"][0]
    assert row["scores"]["MUSR"] == pytest.approx(35.0, abs=1e-9)
    assert row["scores"]["GPQA"] == pytest.approx(46.666666666666664, abs=1e-9)
    assert row["missing"] == ["IFEval", "BBH", "MATH Lvl 5", "MMLU-PRO"]


def test_merge_newest_wins_and_output_says_so(tmp_path, capsys, golden):
    out = tmp_path / "out"
    old = write_lm_eval_results(out, lm_eval_body(golden["results"], model=golden["model"]))
    rerun = {"leaderboard_gpqa": {"acc_norm,none": 0.55}}
    new = write_lm_eval_results(out, lm_eval_body(rerun, model=golden["model"]))
    doc, err = run_json(capsys, out)
    (row,) = doc["models"]
    assert row["sources"] == [str(old), str(new)]
    assert row["scores"]["GPQA"] == pytest.approx((0.55 - 0.25) / 0.75 * 100, abs=1e-9)
    assert row["scores"]["BBH"] == pytest.approx(golden["published"]["BBH"], abs=1e-9)  # from the older file
    assert f"leaderboard_gpqa found in {old} and {new}; kept the newer {new}" in err


def test_models_sorted_by_average_incomplete_last(tmp_path, capsys, golden):
    out = tmp_path / "out"
    write_lm_eval_results(out, lm_eval_body(LLAMA3, model="meta-llama/Meta-Llama-3-8B"))
    write_lm_eval_results(out, lm_eval_body(golden["results"], model="EleutherAI/pythia-410m"))
    better = {k: {m: min(1.0, v + 0.2) for m, v in d.items()} for k, d in golden["results"].items()}
    write_lm_eval_results(out, lm_eval_body(better, model="acme/better"))
    doc, _ = run_json(capsys, out)
    assert [r["model"] for r in doc["models"]] == ["acme/better", "EleutherAI/pythia-410m", "meta-llama/Meta-Llama-3-8B"]


def test_text_formats(tmp_path, capsys, golden):
    out = tmp_path / "out"
    write_lm_eval_results(out, lm_eval_body(golden["results"], model=golden["model"]))
    write_lm_eval_results(out, lm_eval_body(LLAMA3, model="meta-llama/Meta-Llama-3-8B"))
    code, table, _ = run_cli(capsys, out)
    assert code == 0
    lines = [line for line in table.splitlines() if "pythia" in line or "Llama" in line]
    assert "21.95" in lines[0] and "5.11" in lines[0]
    assert " - " in lines[1] and "BBH" in lines[1]  # dash for the missing column and the Missing column
    code, md, _ = run_cli(capsys, out, "--format", "markdown", "--raw")
    cols = ["IFEval", "BBH", "MATH Lvl 5", "GPQA", "MUSR", "MMLU-PRO", "Average"]
    assert md.splitlines()[0] == ("| Model | " + " | ".join(f"{c} | {c} 95% CI" for c in cols) + " | Tied with best | "
                                  "IFEval Raw | BBH Raw | MATH Lvl 5 Raw | GPQA Raw | MUSR Raw | MMLU-PRO Raw | Missing |")
    cells = [c.strip() for c in next(line for line in md.splitlines() if "pythia" in line).split("|")[1:-1]]
    assert cells[0] == "EleutherAI/pythia-410m"
    assert cells[1:15:2] == ["21.95", "2.72", "0.30", "1.23", "3.06", "1.42", "5.11"]
    assert cells[16:18] == ["0.2195", "0.3028"]
    code, text, _ = run_cli(capsys, out, "--format", "csv", "--raw")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert float(rows[0]["BBH"]) == pytest.approx(golden["published"]["BBH"], abs=1e-9)
    assert float(rows[0]["MUSR Raw"]) == pytest.approx(golden["published_raw"]["MUSR"], abs=1e-12)
    assert rows[1]["BBH"] == "" and rows[1]["Average"] == "" and rows[1]["Missing"] == "BBH"
    code, html, _ = run_cli(capsys, out, "--format", "html")
    assert html.startswith("<table>") and "<td>EleutherAI/pythia-410m</td>" in html and "<td>-</td>" in html


def test_output_file_and_plot(tmp_path, capsys, golden):
    out = tmp_path / "out"
    write_lm_eval_results(out, lm_eval_body(golden["results"], model=golden["model"]))
    write_lm_eval_results(out, lm_eval_body(LLAMA3, model="meta-llama/Meta-Llama-3-8B"))
    target = tmp_path / "report" / "lb.json"
    plot = tmp_path / "report" / "lb.png"
    code, stdout, _ = run_cli(capsys, out, "--format", "json", "--output", target, "--plot", plot)
    assert code == 0 and stdout == ""
    assert json.loads(target.read_text())["models"][0]["model"] == "EleutherAI/pythia-410m"
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 5000
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == ["lb.json", "lb.png"]  # no temp files left


def test_plot_without_matplotlib_is_a_clean_error(tmp_path, capsys, golden, monkeypatch):
    write_lm_eval_results(tmp_path / "out", lm_eval_body(golden["results"], model=golden["model"]))
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    target = tmp_path / "lb.md"
    code, out, err = run_cli(capsys, tmp_path / "out", "--plot", tmp_path / "lb.png", "--output", target)
    assert code == 2 and "pip install 'scorekit[plots]'" in err
    assert not target.exists() and not (tmp_path / "lb.png").exists()


def test_lighteval_results_with_default_lighteval_config(tmp_path, capsys):
    values = {
        "ifeval|0": {"prompt_level_strict_acc": 0.5, "inst_level_strict_acc": 0.6, "prompt_level_loose_acc": 0.9},
        "gpqa:mc|0": {"acc": 0.4, "acc_stderr": 0.02},
        "musr:murder_mysteries|0": {"acc": 0.7},
        "musr:object_placements|0": {"acc": 0.4},
        "musr:team_allocation|0": {"acc": 0.6},
        "mmlu_pro|0": {"extractive_match": 0.325},
        "bigbench_hard:navigate|3": {"acc": 0.75},
    }
    write_lighteval_results(tmp_path / "out", "org/light-model", values)
    doc, err = run_json(capsys, tmp_path / "out")
    (row,) = doc["models"]
    s = row["scores"]
    assert s["IFEval"] == pytest.approx(55.0, abs=1e-9)
    assert s["GPQA"] == pytest.approx((0.4 - 0.25) / 0.75 * 100, abs=1e-9)
    assert s["MUSR"] == pytest.approx(35.0, abs=1e-9)
    assert s["MMLU-PRO"] == pytest.approx(25.0, abs=1e-9)
    assert row["missing"] == ["BBH", "MATH Lvl 5"] and s["Average"] is None
    assert "bigbench_hard:boolean_expressions" in err and "math_hard" in err
    assert "Open LLM Leaderboard v2 (lighteval" in err


def test_lighteval_newest_few_shot_variant_is_used(tmp_path, capsys):
    from datetime import datetime

    out = tmp_path / "out"
    base = {"gpqa:mc|0": {"acc": 0.4}}
    write_lighteval_results(out, "org/m", base, when=datetime(2025, 1, 1, 10, 0, 0))
    write_lighteval_results(out, "org/m", {"gpqa:mc|5": {"acc": 0.55}}, when=datetime(2025, 1, 2, 10, 0, 0))
    doc, err = run_json(capsys, out)
    assert doc["models"][0]["scores"]["GPQA"] == pytest.approx(40.0, abs=1e-9)
    assert "several runs (gpqa:mc|0, gpqa:mc|5); used the newest, gpqa:mc|5" in err


# ---------------------------------------------------------------- errors: exit 2, one line


def _good_run(tmp_path, golden) -> Path:
    return write_lm_eval_results(tmp_path / "out", lm_eval_body(golden["results"], model=golden["model"]))


def _patched(path: Path, task: str, metric: str, raw_json_value: str) -> Path:
    text = path.read_text()
    data = json.loads(text)
    data["results"][task][metric] = "__PLACEHOLDER__"
    bad = path.with_name("results_2099-01-01T00-00-00.000000.json")
    bad.write_text(json.dumps(data).replace('"__PLACEHOLDER__"', raw_json_value))
    return bad


@pytest.mark.parametrize(
    "value, message",
    [
        ("NaN", "value is NaN"),
        ("1.5", "value 1.5 is outside [0, 1]"),
        ("-0.25", "is outside [0, 1]"),
        ('"0.3"', "expected a number (a fraction in [0, 1]), got str"),
        ("null", "got NoneType"),
        ("true", "got bool"),
    ],
)
def test_bad_values_exit_2_naming_file_and_place(tmp_path, capsys, golden, value, message):
    good = _good_run(tmp_path, golden)
    bad = _patched(good, "leaderboard_musr_team_allocation", "acc_norm,none", value)
    target = tmp_path / "lb.csv"
    target.write_text("previous content")
    code, out, err = run_cli(capsys, tmp_path / "out", "--format", "csv", "--output", target)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(f'scorekit: error: {bad}: results["leaderboard_musr_team_allocation"]["acc_norm,none"]: ')
    assert message in err
    assert target.read_text() == "previous content"  # untouched: outputs are written atomically at the end


def test_bad_value_replaced_by_a_newer_file_does_not_matter(tmp_path, capsys, golden):
    good = _good_run(tmp_path, golden)
    bad = _patched(good, "leaderboard_gpqa", "acc_norm,none", "1.5")
    data = json.loads(bad.read_text())
    bad.rename(bad.with_name("results_2098-01-01T00-00-00.000000.json"))  # older than the rerun
    data["results"]["leaderboard_gpqa"]["acc_norm,none"] = 0.55
    bad.write_text(json.dumps(data))
    doc, err = run_json(capsys, tmp_path / "out")
    assert doc["models"][0]["raw"]["GPQA"] == 0.55
    assert "kept the newer" in err


def test_whole_numbers_are_fractions(tmp_path, capsys, golden):
    # JSON 0 and 1 parse as integers; they are valid values
    values = dict(golden["results"], leaderboard_gpqa={"acc_norm,none": 1}, leaderboard_math_hard={"exact_match,none": 0})
    write_lm_eval_results(tmp_path / "out", lm_eval_body(values, model=golden["model"]))
    doc, _ = run_json(capsys, tmp_path / "out")
    row = doc["models"][0]
    assert row["raw"]["GPQA"] == 1.0 and row["scores"]["GPQA"] == 100.0
    assert row["raw"]["MATH Lvl 5"] == 0.0 and row["scores"]["MATH Lvl 5"] == 0.0


def test_lm_eval_and_lighteval_models_each_get_their_config(tmp_path, capsys, golden):
    write_lm_eval_results(tmp_path / "out", lm_eval_body(golden["results"], model=golden["model"]))
    write_lighteval_results(tmp_path / "out", "org/light", {"ifeval|0": {"prompt_level_strict_acc": 0.5, "inst_level_strict_acc": 0.6}})
    doc, err = run_json(capsys, tmp_path / "out")
    rows = {r["model"]: r for r in doc["models"]}
    assert rows["EleutherAI/pythia-410m"]["scores"]["Average"] == pytest.approx(golden["published"]["Average"], abs=1e-9)
    assert rows["org/light"]["scores"]["IFEval"] == pytest.approx(55.0, abs=1e-9)
    assert "2 results file(s), 2 model(s); config: Open LLM Leaderboard v2 (lighteval, closest built-in tasks), " \
        "Open LLM Leaderboard v2 (lm-evaluation-harness)" in err


def test_unused_bad_values_do_not_matter(tmp_path, capsys, golden):
    good = _good_run(tmp_path, golden)
    _patched(good, "leaderboard_bbh", "acc_norm,none", "NaN")  # group value: not used
    doc, _ = run_json(capsys, tmp_path / "out")
    assert doc["models"][0]["scores"]["Average"] == pytest.approx(golden["published"]["Average"], abs=1e-9)


@pytest.mark.parametrize(
    "content, message",
    [
        ("{\"results\": ", "invalid JSON"),
        ('{"results": {"leaderboard_gpqa": []}, "versions": {}}', 'results["leaderboard_gpqa"]: expected a mapping of metrics'),
        ('{"unrelated": true}', "not an lm-eval or lighteval results file"),
        ("", "invalid JSON"),
    ],
)
def test_bad_explicit_files_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "given.json"
    path.write_text(content)
    code, out, err = run_cli(capsys, path)
    assert (code, out) == (2, "")
    assert err.startswith(f"scorekit: error: {path}") and message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "config_text, message",
    [
        ("benchmarks: [", "invalid YAML"),
        ("categories:\n  c:\n    benchmarks:\n      A:\n        metrics:\n          m: {key: {task: t, metric: acc}, good: 1.0, num_choices: 1}\n",
         "line 6, categories.c.benchmarks.A.metrics.m.num_choices: expected an integer >= 2"),
        ("name: x\n", "missing required key 'categories'"),
        ("", "config is empty"),
        # the layout of scorekit before the one config layout: named, with what to change
        ("benchmarks:\n  - column: A\n    results_key: t\n    metric: acc\n    num_choices: 4\n",
         "line 1, benchmarks: this is the old `scorekit leaderboard` layout"),
    ],
)
def test_bad_configs_exit_2(tmp_path, capsys, golden, config_text, message):
    _good_run(tmp_path, golden)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(config_text)
    code, out, err = run_cli(capsys, tmp_path / "out", "--config", cfg)
    assert (code, out) == (2, "")
    assert err.startswith(f"scorekit: error: {cfg}: ") and message in err and err.count("\n") == 1


def test_unknown_config_name_and_empty_inputs(tmp_path, capsys):
    code, _, err = run_cli(capsys, tmp_path, "--config", "no_such_config")
    assert code == 2 and "no shipped config of that name" in err and "open_llm_leaderboard_v2" in err
    code, _, err = run_cli(capsys, tmp_path)
    assert code == 2 and "no lm-eval or lighteval results files found" in err
    code, _, err = run_cli(capsys, tmp_path / "nope")
    assert code == 2 and "no such file or directory" in err


def test_shipped_config_by_name(tmp_path, capsys, golden):
    _good_run(tmp_path, golden)
    doc, _ = run_json(capsys, tmp_path / "out", "--config", "open_llm_leaderboard_v2")
    assert doc["models"][0]["scores"]["Average"] == pytest.approx(golden["published"]["Average"], abs=1e-9)


def test_console_script_error_has_no_traceback(tmp_path):
    bad = tmp_path / "results_x.json"
    bad.write_text('{"results": {"t": {"acc,none": 0.5}}, "versions": {}')
    proc = subprocess.run(["scorekit", "leaderboard", str(bad), "--output", str(tmp_path / "o.md")], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"scorekit: error: {bad}: line 1 column") and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and not (tmp_path / "o.md").exists()


def test_walk_summary_line_on_stderr(tmp_path, capsys, golden):
    good = _good_run(tmp_path, golden)
    (good.parent / "samples_leaderboard_gpqa_2024.jsonl").write_text("{}\n")
    (tmp_path / "out" / "unrelated.json").write_text("[]")
    _, err = run_json(capsys, tmp_path / "out")
    assert "skipped 2 file(s) or folder(s) that are not results files: 1 samples/JSONL files" in err
    assert "1 other JSON files" in err
