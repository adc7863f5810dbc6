"""`scorekit scorecard` and `scorekit leaderboard` configs naming an Inspect task and scorer.

The values are the log's own metrics (``accuracy``, ``stderr``); a log whose task keeps only
``accuracy`` gets its stderr recomputed from the samples, checked here against a hand
computation over the scripted per-question means.
"""

from __future__ import annotations

import json

import pytest

from scorekit.cli import main
from tests.support.inspect_runs import inspect_run
from tests.support.by_hand import se

pytest.importorskip("inspect_ai", reason="needs the inspect extra")
pytestmark = pytest.mark.slow

N, EPOCHS = 30, 3
SCORE_CFG = """name: Inspect arithmetic
categories:
  math:
    benchmarks:
      arith:
        metrics:
          match:
            key: [{task: arith, metric: match}]
            good: 1.0
            bad: 0.0
"""
LEADERBOARD_CFG = """name: Inspect arithmetic
scale: 100
categories:
  all:
    benchmarks:
      Arith:
        metrics:
          match: {key: {task: arith, metric: match}, good: 1.0, bad: 0.0}
"""



@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    from inspect_ai.scorer import accuracy

    root = tmp_path_factory.mktemp("inspect_results")
    with_stderr = inspect_run(root / "a", "acme/a", lambda i, k: i % 4 != 0, n=N)
    no_stderr = inspect_run(root / "b", "acme/b", lambda i, k: k < i % 4, n=N, epochs=EPOCHS, metrics=[accuracy()])
    return with_stderr, no_stderr


def test_score_config_names_an_inspect_task(logs, tmp_path, capsys):
    from inspect_ai.log import read_eval_log

    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(SCORE_CFG)
    assert main(["scorecard", str(logs[0].parent), str(logs[1].parent), "--config", str(cfg), "--format", "json"]) == 0
    models = {m["model"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    a = models["mockllm/acme/a"]["categories"]["math"]["benchmarks"]["arith"]["metrics"]["match"]
    ms = read_eval_log(str(logs[0]), header_only=True).results.scores[0].metrics
    assert a["value"] == pytest.approx(ms["accuracy"].value) == pytest.approx(sum(i % 4 != 0 for i in range(N)) / N)
    assert a["stderr"] == pytest.approx(ms["stderr"].value)
    b = models["mockllm/acme/b"]["categories"]["math"]["benchmarks"]["arith"]["metrics"]["match"]
    assert "stderr" not in read_eval_log(str(logs[1]), header_only=True).results.scores[0].metrics
    means = [(i % 4) / EPOCHS for i in range(N)]
    assert b["value"] == pytest.approx(sum(means) / N)
    assert b["stderr"] == pytest.approx(se(means))  # recomputed from the samples


def test_leaderboard_config_names_an_inspect_task(logs, tmp_path, capsys):
    cfg = tmp_path / "lb.yaml"
    cfg.write_text(LEADERBOARD_CFG)
    assert main(["leaderboard", str(logs[0].parent), str(logs[1].parent), "--config", str(cfg), "--format", "json"]) == 0
    rows = {m["model"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    assert rows["mockllm/acme/a"]["raw"]["Arith"] == pytest.approx(sum(i % 4 != 0 for i in range(N)) / N)
    right = [1.0 if i % 4 else 0.0 for i in range(N)]
    assert rows["mockllm/acme/a"]["stderr"]["Arith"] == pytest.approx(100 * se(right))
    assert rows["mockllm/acme/b"]["scores"]["Arith"] == pytest.approx(100 * sum((i % 4) / EPOCHS for i in range(N)) / N)
