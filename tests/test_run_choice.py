"""Which run is the newest: one rule for every command (``harness_outputs.run_time``).

Two real lm-eval runs of one model into one output folder, made one after the other on machines
in different time zones (``TZ``): lm-eval names its files by the LOCAL time, so the run made
last carries the earlier time in its file names, while its ``date`` (Unix seconds) is the later.
``scorekit leaderboard``, ``scorecard``, ``robustness`` and ``compare`` must all take the run made
last. The runs differ in their answers (the first always right, the last always picks the first
option shown), so each command's numbers show which run it read.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from scorekit.cli import main

TASK_YAML = """task: mini_mc
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}\nA. {{{{choices[0]}}}}\nB. {{{{choices[1]}}}}\nC. {{{{choices[2]}}}}\nD. {{{{choices[3]}}}}\nAnswer:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: answer
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""
ROWS = [{"question": f"mini question {i}?", "choices": [f"opt{j}" for j in range(4)], "answer": (i + 1) % 4} for i in range(8)]
TIME_ZONES = ("Etc/GMT-14", "Etc/GMT+12")  # UTC+14, then UTC-12: the second run's local time is 26 hours earlier


def _run(tasks: Path, robust: Path, out: Path, right: bool) -> None:
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    def loglikelihood(context, continuation, doc):
        if right:
            return (0.0, True) if continuation.strip() == doc["choices"][doc["answer"]] else (-5.0, False)
        shown = doc["choices"] if "_robust" not in doc else [doc["choices"][i] for i in (doc["_robust"]["order"] or range(4))]
        return -float(shown.index(continuation.strip()))  # the first option shown

    tracker = EvaluationTracker(output_path=str(out))
    results = lm_eval.simple_evaluate(
        model=ScriptedLM(loglikelihood=loglikelihood), model_args="pretrained=acme/zoned-7b",
        tasks=["mini_mc", "robust_option_order_mini_mc"], log_samples=True, bootstrap_iters=0,
        task_manager=TaskManager(include_path=[str(tasks), str(robust)], include_defaults=False),
        evaluation_tracker=tracker, random_seed=0)
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=samples[task])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The output folder, and the accuracy of mini_mc in the run made first and the one made last."""
    tmp = tmp_path_factory.mktemp("zones")
    tasks = tmp / "tasks"
    tasks.mkdir()
    data = tasks / "mini_mc.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    (tasks / "mini_mc.yaml").write_text(TASK_YAML.format(data=data))
    assert main(["variants", "mini_mc", "--family", "option_order", "--include-path", str(tasks),
                 "--output-dir", str(tmp / "robust")]) == 0
    before = os.environ.get("TZ")
    try:
        for zone, right in zip(TIME_ZONES, (True, False)):
            os.environ["TZ"] = zone
            time.tzset()
            _run(tasks, tmp / "robust", tmp / "out", right)
            time.sleep(0.05)
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()
    first_right = 1.0
    last = sum(r["answer"] == 0 for r in ROWS) / len(ROWS)
    return tmp / "out", first_right, last


def test_the_runs_disagree_on_the_clock(runs):
    out, _, _ = runs
    files = sorted(out.rglob("results_*.json"))
    assert len(files) == 2
    by_name = sorted(files, key=lambda p: p.name)
    by_date = sorted(files, key=lambda p: json.loads(p.read_text())["date"])
    assert by_name == by_date[::-1]  # the run made last has the earlier name


def test_every_command_takes_the_run_made_last(runs, tmp_path, capsys):
    out, first, last = runs
    assert first != last
    cfg = tmp_path / "suite.yaml"
    cfg.write_text('name: zoned\nscale: 100\ncategories:\n  all:\n    benchmarks:\n      Mini:\n        metrics:\n'
                   '          acc: {key: {task: mini_mc, metric: "acc,none"}, good: 1.0, num_choices: 4}\n')
    capsys.readouterr()
    assert main(["leaderboard", str(out), "--config", str(cfg), "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["models"]
    chosen = {"leaderboard": row["raw"]["Mini"]}

    score_cfg = tmp_path / "score.yaml"
    score_cfg.write_text('categories:\n  all:\n    benchmarks:\n      mini:\n        metrics:\n          acc:\n'
                         '            key: {task: mini_mc, metric: "acc,none"}\n            good: 1.0\n            bad: 0.0\n')
    assert main(["scorecard", str(out), "--config", str(score_cfg), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (model,) = doc["models"]
    chosen["score"] = model["overall"] / 100 if model["overall"] > 1 else model["overall"]

    assert main(["robustness", str(out), "--format", "json"]) == 0
    (m,) = json.loads(capsys.readouterr().out)["models"]
    (bench,) = m["benchmarks"]
    (fam,) = bench["families"]
    chosen["robustness"] = fam["accuracy"]

    assert main(["compare", str(out), "--values", "--format", "json"]) == 0
    values = json.loads(capsys.readouterr().out)["values"]
    chosen["compare"] = next(v["value"] for v in values if v["task"] == "mini_mc" and v["metric"] == "acc,none")
    assert chosen == pytest.approx(dict.fromkeys(chosen, last), abs=1e-12), chosen
    # the variant task as compare recomputes it: the gold shown second is never picked in the last run
    per_b = next(v["value"] for v in values if v["task"] == "robust_option_order_mini_mc" and v["metric"] == "per_option_accuracy_B")
    assert per_b == 0.0
