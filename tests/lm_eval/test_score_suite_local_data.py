"""``SCOREKIT_SCORE_DATA_DIR`` for the lm-eval SCORE tasks: the real ``lm_eval`` command, offline,
on the bundled demo data in the folder layout lighteval's SCORE tasks read
(scorekit.robustness.local_data); the few-shot split from a local file; a missing folder named."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.resources import tasks_dir

pytestmark = pytest.mark.slow
DEMO = Path(__file__).resolve().parents[2] / "plugin" / "scorekit" / "demo" / "data"
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture()
def data_dir(tmp_path) -> Path:
    """The bundled demo files as ``<dir>/<benchmark>[_<subset>]/test.jsonl``."""
    root = tmp_path / "data"
    for name in ("mmlu_pro", "agieval_aqua_rat", "math_algebra"):
        (root / name).mkdir(parents=True)
        shutil.copy(DEMO / f"{name}.jsonl", root / name / "test.jsonl")
    return root


def _lm_eval(tmp_path: Path, tasks: str, data: Path | None, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **OFFLINE, "HF_HOME": str(tmp_path / "hf")}
    env.pop("SCOREKIT_SCORE_DATA_DIR", None)
    if data is not None:
        env["SCOREKIT_SCORE_DATA_DIR"] = str(data)
    cmd = [sys.executable, "-m", "lm_eval", "--model", "dummy", "--tasks", tasks, "--include_path", str(tasks_dir()),
           "--output_path", str(tmp_path / "out"), "--log_samples", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)


def test_lm_eval_cli_offline_on_local_data(tmp_path, data_dir):
    """Every benchmark's layout at once: MMLU-Pro prompts, an AGIEval subset's option order, a MATH
    subject's prompts. Each sample is a question of the local file (the hub is unreachable)."""
    tasks = "score_prompt_robustness_mmlu_pro,option_order_robustness_agieval_aqua_rat,prompt_robustness_math_algebra"
    proc = _lm_eval(tmp_path, tasks, data_dir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    mmlu, aqua, algebra = (_rows(data_dir / n / "test.jsonl") for n in ("mmlu_pro", "agieval_aqua_rat", "math_algebra"))
    docs = {}
    for task in tasks.split(","):
        (samples_file,) = (tmp_path / "out").rglob(f"samples_*{task}_*.jsonl")
        docs[task] = _rows(samples_file)
    # one document per question and prompt template / option position of the local rows
    assert len(docs["score_prompt_robustness_mmlu_pro"]) == 10 * len(mmlu)
    assert len(docs["option_order_robustness_agieval_aqua_rat"]) == sum(len(r["choices"]) for r in aqua)
    assert len(docs["prompt_robustness_math_algebra"]) == 10 * len(algebra)
    shown = {s["doc"]["question"] for s in docs["score_prompt_robustness_mmlu_pro"]}
    assert shown == {r["question"] for r in mmlu}
    report = subprocess.run([sys.executable, "-m", "scorekit", "robustness", str(tmp_path / "out"), "--format", "json"],
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr[-2000:]
    (model,) = json.loads(report.stdout)["models"]
    questions = {(b["benchmark"], f["family"]): f["n_questions"] for b in model["benchmarks"] for f in b["families"]}
    assert questions == {("mmlu_pro", "prompt"): len(mmlu), ("agieval", "option_order"): len(aqua),
                         ("math", "prompt"): len(algebra)}


def test_a_missing_folder_is_named(tmp_path, data_dir):
    proc = _lm_eval(tmp_path, "prompt_robustness_agieval_lsat_ar", data_dir)
    assert proc.returncode != 0
    assert f"SCOREKIT_SCORE_DATA_DIR={data_dir}: no agieval_lsat_ar/test.jsonl" in proc.stderr
    assert not list((tmp_path / "out").rglob("results_*.json"))


def test_few_shot_examples_come_from_the_local_few_shot_split(tmp_path, data_dir, monkeypatch):
    """``mmlu_pro/validation.jsonl`` is MMLU-Pro's few-shot split; without it the task has none
    and refuses examples rather than drawing them from the test questions."""
    from lm_eval.tasks import TaskManager, get_task_dict

    monkeypatch.setenv("SCOREKIT_SCORE_DATA_DIR", str(data_dir))
    manager = TaskManager(include_path=str(tasks_dir()), include_defaults=False)
    task = get_task_dict(["score_prompt_robustness_mmlu_pro"], manager)["score_prompt_robustness_mmlu_pro"]
    assert set(task.dataset) == {"test"}
    with pytest.raises(ValueError, match="without a few-shot split"):
        task.sampler.sample(1, eval_doc=task.test_docs()[0])

    rows = _rows(data_dir / "mmlu_pro" / "test.jsonl")
    validation = [dict(r, question_id=r["question_id"] + 1000, question=f"Validation: {r['question']}") for r in rows[:3]]
    (data_dir / "mmlu_pro" / "validation.jsonl").write_text("".join(json.dumps(r) + "\n" for r in validation))
    manager = TaskManager(include_path=str(tasks_dir()), include_defaults=False)
    task = get_task_dict(["score_prompt_robustness_mmlu_pro"], manager)["score_prompt_robustness_mmlu_pro"]
    assert set(task.dataset) == {"test", "validation"}
    shots = task.sampler.sample(2, eval_doc=task.test_docs()[0])
    assert len(shots) == 2 and all(s["question"].startswith("Validation: ") for s in shots)
