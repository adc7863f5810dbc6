"""`scorekit leaderboard --config` of SCORE per-prompt accuracies: the intervals `scorekit demo`
prints (a bootstrap over questions from the samples logs; the results files hold no stderr for
these metrics), and notes summed up per model and kind, `-v` for each line.

It printed no interval for such a config, and 60 lines of "no usable stderr" on the demo's own
output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scorekit.leaderboards.prompt_intervals import summary_intervals
from scorekit.leaderboards.scorecard_config import load_scorecard_config
from scorekit.cli import main
from scorekit.robustness.readers import read_paths

CORPUS_RUN = Path(__file__).resolve().parents[1] / "conformance" / "corpus" / "lm-eval-0.4.13" / "score-scorekit"
TASKS = {"MMLU-Pro": ("score_prompt_robustness_mmlu_pro", "macro_accuracy", 4),
         "AGIEval": ("prompt_robustness_agieval_aqua_rat", "accuracy", 5)}


def _config(tmp_path: Path) -> Path:
    """The demo's config for the tasks the corpus run has (a scripted model: answers right and wrong)."""
    lines = ["scale: 100", "harness: lm-eval", "categories:", "  above_chance:", "    benchmarks:"]
    for column, (task, kind, choices) in TASKS.items():
        lines += [f"      {column}:", "        metrics:"]
        lines += [f'          p{k}: {{key: {{task: {task}, metric: "{k}_{kind},none"}}, good: 1.0, num_choices: {choices}}}'
                  for k in range(10)]
    path = tmp_path / "score.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _leaderboard(capsys, *args) -> tuple[dict, str]:
    assert main(["leaderboard", *map(str, args), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    (model,) = json.loads(out)["models"]
    return model, err


def test_intervals_are_the_bootstrap_of_the_samples_logs(tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(CORPUS_RUN, run)
    config = _config(tmp_path)
    model, err = _leaderboard(capsys, run, "--config", config)
    expected = summary_intervals(read_paths([run]).samples, load_scorecard_config(config))[model["model"]]
    for column in (*TASKS, "Average"):
        estimate, low, high = expected[column]
        assert model["scores"][column] == pytest.approx(estimate, abs=1e-9)
        assert (model["scores_ci_low"][column], model["scores_ci_high"][column]) == (low, high)
        assert model["stderr"][column] is None  # a bootstrap interval, not a stderr
    assert any(model["scores_ci_low"][c] < model["scores"][c] < model["scores_ci_high"][c] for c in TASKS)
    assert "no usable" not in err
    assert err.count("a bootstrap over questions from the runs' samples logs") == 1


def test_samples_of_other_documents_give_no_interval_and_say_so(tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(CORPUS_RUN, run)
    (results,) = run.glob("*/results_*.json")
    body = json.loads(results.read_text())
    entry = body["results"]["score_prompt_robustness_mmlu_pro"]
    entry["0_macro_accuracy,none"] = min(1.0, entry["0_macro_accuracy,none"] + 0.1)
    results.write_text(json.dumps(body))
    model, err = _leaderboard(capsys, run, "--config", _config(tmp_path))
    assert model["scores_ci_low"]["MMLU-Pro"] is None and model["scores_ci_low"]["Average"] is None
    assert "not the same documents; no interval was bootstrapped" in err
    assert "no usable stderr for 20 metrics of 2 task(s)" in err  # still unknown, and said


@pytest.mark.parametrize("command", ["leaderboard", "scorecard"])
def test_without_samples_one_line_per_model_and_kind_and_every_line_with_v(tmp_path, capsys, command):
    run = tmp_path / "run"
    run.mkdir()
    for results in CORPUS_RUN.glob("*/results_*.json"):
        shutil.copy(results, run)
    config = _config(tmp_path)
    assert main([command, str(run), "--config", str(config), "--format", "json"]) == 0
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "stderr" in ln]
    assert lines == [
        "scorekit: note: corpus-org/scripted-api: no usable stderr for 20 metrics of 2 task(s): "
        "score_prompt_robustness_mmlu_pro, prompt_robustness_agieval_aqua_rat; no samples log of the run beside the "
        "results file to compute it from; the MMLU-Pro, AGIEval interval(s) are unknown (-v: one line each)"]
    assert main([command, str(run), "--config", str(config), "--format", "json", "-v"]) == 0
    every = [ln for ln in capsys.readouterr().err.splitlines() if "no usable" in ln]
    assert len(every) == 20 and "score_prompt_robustness_mmlu_pro: no usable 3_macro_accuracy_stderr,none" in every[3]


@pytest.mark.slow
@pytest.mark.parametrize("budget", [[], ["--prompt-budget", "10"]], ids=["budgeted", "full"])
def test_demo_output_gets_the_intervals_the_demo_printed(tmp_path, capsys, budget):
    """The issue's case: `leaderboard --config score_demo_normalization` on the demo's folder. The
    demo asks 2 of 10 prompts per question by default, and lm-eval writes NaN for a prompt no
    question of a small subject was asked: those are left out of the mean, as the demo's summary
    leaves them out, and said in one summed-up note (the folder was refused before)."""
    out = tmp_path / "demo"
    assert main(["demo", "--model", "dummy", "--questions", "2", *budget, "-o", str(out), "--no-plots"]) == 0
    capsys.readouterr()
    (printed,) = json.loads((out / "summary.json").read_text())["models"]
    model, err = _leaderboard(capsys, out, "--config", "score_demo_normalization")
    assert model["scores"] == printed["scores"]
    assert model["scores_ci_low"] == printed["scores_ci_low"] and model["scores_ci_high"] == printed["scores_ci_high"]
    assert all(v is not None for v in model["scores_ci_high"].values())
    unasked = [line for line in err.splitlines() if "metrics NaN in budgeted runs" in line]
    assert len(unasked) == (1 if budget == [] else 0), err
    # where the intervals come from; the files skipped; the prompts not asked
    assert len(err.splitlines()) == 2 + len(unasked), err
