"""The SCORE tasks by their names before the rename (``scorekit.lighteval.tasks``,
``tasks/lighteval/score_tasks.py``): the real lighteval loads them and runs the same tasks, and
a note names the new module."""

from __future__ import annotations

import pytest

from scorekit.lighteval.task_names import check_tasks
from tests.lighteval.conftest import REPO, SCRIPTED_MODEL, results_file, run_lighteval
from tests.lighteval.script import write_script
from tests.lighteval.test_score_suite import rows_by_source


@pytest.mark.slow
@pytest.mark.lighteval
@pytest.mark.parametrize("custom_tasks,new", [
    ("scorekit.lighteval.tasks", "scorekit.lighteval.score_suite"),
    (str(REPO / "tasks" / "lighteval" / "score_tasks.py"), ".../lighteval/score_suite.py"),
])
def test_old_custom_tasks_name_loads_the_score_tasks(tmp_path, lighteval_env, score_data_dir, custom_tasks, new):
    script = write_script(tmp_path / "script.json", rows_by_source(score_data_dir))
    env = {**lighteval_env, "SCOREKIT_LIGHTEVAL_SCRIPT": str(script)}
    out = tmp_path / "out"
    proc = run_lighteval(["custom", "scripted", str(SCRIPTED_MODEL), "score_prompt_robustness_mmlu_pro|0",
                          "--custom-tasks", custom_tasks, "--output-dir", str(out), "--save-details"], env)
    results = results_file(out, "scripted")["results"]
    templates = sorted(k for k in results if k.startswith("score_prompt_robustness_mmlu_pro:template_"))
    assert len(templates) == 10 and all(0.0 <= results[k]["macro_accuracy"] <= 1.0 for k in templates)
    assert f"is now {new}" in proc.stderr


def test_old_names_pass_scorekit_task_checks():
    """scorekit's own check of the command line knows the old names as the SCORE tasks' module."""
    for module in ("scorekit.lighteval.tasks", "/x/lighteval/score_tasks.py"):
        assert check_tasks("custom", ["score_prompt_robustness_mmlu_pro"], module) is None
        assert "no such scorekit SCORE task" in check_tasks("custom", ["score_prompt_robustnes_mmlu_pro"], module)
