"""Task folders written while ``scorekit variants`` was called ``scorekit robustify`` still work:
their YAMLs name the class ``scorekit.lm_eval.robust_task.RobustTask`` and start with the old
header line; lm-eval runs them, and writing the same tasks again replaces them."""

from __future__ import annotations

from pathlib import Path

from scorekit.cli import main
from scorekit.lm_eval.task_variants_yaml import CLASS, HEADER, OLD_HEADER
from tests.lm_eval.task_variants_fixtures import write_tasks

OLD_CLASS = "!function scorekit.lm_eval.robust_task.RobustTask"
TASK = "robust_option_order_local_mc"


def _write(src: Path, out: Path) -> int:
    return main(["variants", "local_mc", "--family", "option_order", "--show-options", "--include-path", str(src),
                 "--output-dir", str(out)])


def _old_folder(tmp_path: Path) -> tuple[Path, Path]:
    """A folder as the old command wrote it: every file with the old header, the task with the old class path."""
    src = write_tasks(tmp_path / "src")
    out = tmp_path / "out"
    assert _write(src, out) == 0
    for path in out.glob("*.yaml"):
        text = path.read_text()
        assert text.startswith(HEADER)
        path.write_text(OLD_HEADER + text[len(HEADER):].replace(CLASS, OLD_CLASS))
    assert OLD_CLASS in (out / f"{TASK}.yaml").read_text()
    return src, out


def test_the_old_class_path_is_the_class():
    from scorekit.lm_eval.robust_task import RobustTask as old
    from scorekit.lm_eval.task_variants import RobustTask

    assert old is RobustTask


def test_lm_eval_runs_an_old_folder(tmp_path):
    import lm_eval
    from lm_eval.tasks import TaskManager

    from scorekit.lm_eval.task_variants import RobustTask
    from tests.support.fake_lm import ScriptedLM

    _, out = _old_folder(tmp_path)
    manager = TaskManager(include_path=[str(out)], include_defaults=False)
    result = lm_eval.simple_evaluate(model=ScriptedLM(loglikelihood=lambda context, continuation, doc: -1.0),
                                     tasks=[TASK], task_manager=manager, bootstrap_iters=0, log_samples=True)
    assert result["samples"][TASK]  # every variant of every question was asked
    assert TASK in result["results"]
    task_dict = lm_eval.tasks.get_task_dict([TASK], manager)
    assert isinstance(task_dict[TASK], RobustTask)


def test_writing_again_replaces_an_old_folder(tmp_path):
    src, out = _old_folder(tmp_path)
    assert _write(src, out) == 0
    text = (out / f"{TASK}.yaml").read_text()
    assert text.startswith(HEADER) and CLASS in text and OLD_CLASS not in text
