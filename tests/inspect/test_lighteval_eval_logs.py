"""Logs of ``lighteval eval`` (lighteval 0.13 on Inspect) read like any Inspect log.

The plain ``lighteval eval`` command cannot run with the installed inspect_ai (0.3.285): the
first test pins that failure (when it starts passing, switch the second test to the CLI).
The logs are then made by lighteval's own registry and Inspect task builder, run by Inspect's
``eval_set`` (tests/support/lighteval_inspect_run.py), offline with a scripted model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.cli import main
from tests.support import lighteval_inspect_run as le

pytest.importorskip("lighteval", reason="needs the lighteval extra")
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def _run(mode: str, cwd: Path, log_dir: Path, model: str, epochs: str) -> subprocess.CompletedProcess:
    le.write_arithmetic_dataset(cwd)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "plugin"), str(REPO), os.environ.get("PYTHONPATH", "")]),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "tests.support.lighteval_inspect_run", mode, str(log_dir), model,
                           epochs], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_lighteval_eval_cli_rejected_by_this_inspect(tmp_path):
    proc = _run("cli", tmp_path, tmp_path / "logs", "acme", "1")
    assert proc.returncode != 0
    assert "Unknown GenerateConfig field(s): frequence_penalty, log_probs" in proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def lighteval_logs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lighteval_eval")
    proc = _run("builder", tmp, tmp / "logs", "acme", "1,2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {"one": tmp / "logs" / "epochs_1", "epochs": tmp / "logs" / "epochs_2"}


def test_values_of_a_lighteval_eval_log(lighteval_logs, capsys):
    assert main(["compare", str(lighteval_logs["one"]), "--values", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (v,) = data["values"]
    right = sum(le.correct(a) for a in range(le.N))
    assert (v["task"], v["metric"], v["model"]) == (le.TASK, "math_scorer", "scripted/acme")
    assert v["n"] == le.N and v["kind"] == "binary" and v["value"] == pytest.approx(right / le.N)


def test_lighteval_eval_epochs_pass_at_k_and_reducer_note(lighteval_logs, capsys):
    assert main(["compare", str(lighteval_logs["one"]), str(lighteval_logs["epochs"]), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {r["metric"]: r for r in data["comparisons"]}
    # deterministic answers: each question is right in every epoch or in none
    assert rows["math_scorer"]["difference"] == pytest.approx(0.0) and rows["math_scorer"]["n_paired"] == le.N
    assert any("epoch reducer is pass_at_2" in n for n in data["notes"])
    assert any("math_scorer/pass@2: only" in n for n in data["notes"])


def test_lighteval_eval_log_exports_to_every_eval_ever(lighteval_logs, capsys):
    import jsonschema

    schema = json.loads((REPO / "tests" / "export" / "schema" / "eval.schema.json").read_text())
    assert main(["export", str(lighteval_logs["epochs"])]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert not list(jsonschema.Draft7Validator(schema).iter_errors(doc))
    res = {r["metric_config"]["metric_name"]: r for r in doc["evaluation_results"]}
    right = sum(le.correct(a) for a in range(le.N)) / le.N
    assert res["math_scorer"]["score_details"]["score"] == pytest.approx(right)
    assert res["math_scorer"]["score_details"]["details"]["harness_epoch_reducer"] == "pass_at_2"
    assert res["math_scorer/pass@2"]["metric_config"]["metric_parameters"] == {"k": 2}
    assert doc["eval_library"]["name"] == "inspect_ai" and doc["model_info"]["id"] == "scripted/acme"
