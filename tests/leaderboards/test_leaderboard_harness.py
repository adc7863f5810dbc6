"""Results files written by the real harnesses, read by `scorekit leaderboard`.

* lm-eval: a scripted model (tests.support.fake_lm.ScriptedLM) answers two tiny local
  multiple-choice tasks through ``lm_eval.simple_evaluate`` with an ``EvaluationTracker``; a
  user config normalizes them (the ``--config`` path for suites the leaderboard doesn't know).
* lighteval: lighteval's own ``EvaluationTracker.save()`` writes the results file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekit.cli import main

pytestmark = pytest.mark.slow

TASK_YAML = """task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: answer
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


def _task(folder: Path, name: str, n_choices: int, n_docs: int) -> None:
    rows = [
        {"id": i, "question": f"{name} question {i}?", "choices": [f"opt{j}" for j in range(n_choices)], "answer": i % n_choices}
        for i in range(n_docs)
    ]
    data = folder / f"{name}.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / f"{name}.yaml").write_text(TASK_YAML.format(name=name, data=data), encoding="utf-8")


def test_user_config_on_a_real_lm_eval_run(tmp_path, capsys):
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    tasks = tmp_path / "tasks"
    tasks.mkdir()
    _task(tasks, "mini_mc_four", 4, 4)  # scripted: right on 3 of 4 -> acc 0.75
    _task(tasks, "mini_mc_two", 2, 5)  # scripted: right on 4 of 5 -> acc 0.8
    wrong = {"mini_mc_four": {3}, "mini_mc_two": {0}}

    def loglikelihood(context, continuation, doc):
        task = "mini_mc_four" if "mini_mc_four" in doc["question"] else "mini_mc_two"
        pick = doc["answer"] if doc["id"] not in wrong[task] else (doc["answer"] + 1) % len(doc["choices"])
        return (0.0, True) if continuation.strip() == doc["choices"][pick] else (-5.0, False)

    tracker = EvaluationTracker(output_path=str(tmp_path / "out"))
    results = lm_eval.simple_evaluate(
        model=ScriptedLM(loglikelihood=loglikelihood),
        model_args="pretrained=acme/scripted-7b",
        tasks=["mini_mc_four", "mini_mc_two"],
        task_manager=TaskManager(include_path=str(tasks), include_defaults=False),
        evaluation_tracker=tracker,
        random_seed=0,
    )
    tracker.save_results_aggregated(results=results, samples=None)
    (written,) = (tmp_path / "out").rglob("results_*.json")
    assert written.parent.name == "acme__scripted-7b"

    cfg = tmp_path / "my_suite.yaml"
    cfg.write_text(
        """name: my private suite
scale: 100
categories:
  mine:
    benchmarks:
      Four-way:
        metrics:
          acc: {key: {task: mini_mc_four, metric: "acc,none"}, good: 1.0, num_choices: 4}
      Two-way:
        metrics:
          acc: {key: {task: mini_mc_two, metric: "acc,none"}, good: 1.0, num_choices: 2}
""",
        encoding="utf-8",
    )
    assert main(["leaderboard", str(tmp_path / "out"), "--config", str(cfg), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (row,) = doc["models"]
    assert row["model"] == "acme/scripted-7b"
    assert row["raw"] == pytest.approx({"Four-way": 0.75, "Two-way": 0.8}, abs=1e-12)
    assert row["scores"]["Four-way"] == pytest.approx(200 / 3, abs=1e-9)
    assert row["scores"]["Two-way"] == pytest.approx(60.0, abs=1e-9)
    assert row["scores"]["Average"] == pytest.approx((200 / 3 + 60) / 2, abs=1e-9)
    assert row["sources"] == [str(written)]
    # the default (leaderboard) config finds none of these tasks: listed, all missing, not dropped
    assert main(["leaderboard", str(tmp_path / "out"), "--format", "json"]) == 0
    captured = capsys.readouterr()
    row = json.loads(captured.out)["models"][0]
    assert row["missing"] == ["IFEval", "BBH", "MATH Lvl 5", "GPQA", "MUSR", "MMLU-PRO"]
    assert "acme/scripted-7b: missing IFEval" in captured.err


@pytest.mark.lighteval
def test_lighteval_tracker_output(tmp_path, capsys):
    from lighteval.logging.evaluation_tracker import EvaluationTracker
    from lighteval.models.dummy.dummy_model import DummyModelConfig

    tracker = EvaluationTracker(output_dir=str(tmp_path / "out"), save_details=False)
    tracker.general_config_logger.log_model_info(DummyModelConfig(model_name="org/light-dummy"))
    tracker.metrics_logger.metric_aggregated.update(
        {
            "ifeval|0": {"prompt_level_strict_acc": 0.25, "inst_level_strict_acc": 0.35},
            "musr:murder_mysteries|0": {"acc": 0.7, "acc_stderr": 0.03},
            "musr:object_placements|0": {"acc": 0.4, "acc_stderr": 0.03},
            "musr:team_allocation|0": {"acc": 0.6, "acc_stderr": 0.03},
            "all": {"acc": 0.5667},
        }
    )
    tracker.general_config_logger.log_end_time()
    tracker.save()
    (written,) = (tmp_path / "out").rglob("results_*.json")
    assert written.relative_to(tmp_path / "out").parts[:3] == ("results", "org", "light-dummy")
    assert main(["leaderboard", str(tmp_path / "out"), "--format", "json"]) == 0
    captured = capsys.readouterr()
    (row,) = json.loads(captured.out)["models"]
    assert row["model"] == "org/light-dummy"
    assert row["scores"]["IFEval"] == pytest.approx(30.0, abs=1e-9)
    assert row["scores"]["MUSR"] == pytest.approx(35.0, abs=1e-9)
    assert row["missing"] == ["BBH", "MATH Lvl 5", "GPQA", "MMLU-PRO"]
