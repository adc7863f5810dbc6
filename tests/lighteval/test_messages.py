"""One-line messages of scorekit's lighteval entry point (``python -m scorekit.lighteval``) for the
mistakes lighteval 0.13 answers with one and the same traceback (``Cannot find task ...``), for
``lighteval eval`` with scorekit's tasks (the Inspect backend cannot load them), and of
``scorekit robustness`` given an Inspect log."""

from __future__ import annotations

import subprocess
import sys

import pytest

from scorekit.cli import main


@pytest.fixture(scope="module")
def lighteval_command():
    import typer

    from scorekit.lighteval.offline import prepare_offline

    prepare_offline()
    from lighteval.__main__ import app

    return typer.main.get_command(app)


def _check(command, *argv):
    from scorekit.lighteval.task_names import check_tasks, command_tasks

    parsed = command_tasks(command, list(argv))
    return parsed, (check_tasks(*parsed) if parsed else None)


def test_the_command_line_is_parsed_by_lightevals_own_parser(lighteval_command):
    parsed, _ = _check(lighteval_command, "accelerate", "model_name=m,batch_size=8",
                       "score_prompt_robustness_mmlu_pro|0,lighteval|arc:easy|0", "--output-dir", "score_out")
    assert parsed == ("accelerate", ["score_prompt_robustness_mmlu_pro", "arc:easy"], None)
    parsed, _ = _check(lighteval_command, "endpoint", "litellm", "model_name=m", "gsm8k|0", "--custom-tasks", "x.py")
    assert parsed == ("litellm", ["gsm8k"], "x.py")
    assert _check(lighteval_command, "tasks", "list") == (None, None)
    assert _check(lighteval_command, "accelerate", "--help") == (None, None)


@pytest.mark.parametrize("argv, expected", [
    (["custom", "m", "m.py", "score_option_order_robustnes_mmlu_pro|0", "--custom-tasks", "scorekit.lighteval.score_suite"],
     "task score_option_order_robustnes_mmlu_pro: no such scorekit SCORE task; did you mean "
     "score_option_order_robustness_mmlu_pro,"),
    (["custom", "m", "m.py", "score_option_order_robustness_mmlu_pro:position_K|0", "--custom-tasks",
      "scorekit.lighteval.score_suite"], "no such scorekit SCORE task; did you mean score_option_order_robustness_mmlu_pro:position_"),
    (["accelerate", "model_name=m", "score_prompt_robustness_mmlu_pro|0"],
     "task score_prompt_robustness_mmlu_pro: scorekit's SCORE tasks need --custom-tasks scorekit.lighteval.score_suite"),
    (["accelerate", "model_name=m", "score_prompt_robustnes_agieval|0"],
     "no such scorekit SCORE task; did you mean score_prompt_robustness_agieval, "),
    (["accelerate", "model_name=m", "score_prompt_robustnes_agieval|0"], "? (and add --custom-tasks scorekit.lighteval.score_suite)"),
    (["accelerate", "model_name=m", "robust_option_order_arc_easy|0"],
     "tasks written by `scorekit variants --harness lighteval` need --custom-tasks"),
    (["eval", "hf/m", "score_non_greedy_robustness_math|0", "--custom-tasks", "scorekit.lighteval.score_suite"],
     "`lighteval eval` (lighteval 0.13's Inspect backend) cannot run scorekit's tasks"),
])
def test_scorekit_says_which_mistake_it_is(lighteval_command, argv, expected):
    _, problem = _check(lighteval_command, *argv)
    assert problem is not None and expected in problem


@pytest.mark.parametrize("argv", [
    ["accelerate", "model_name=m", "score_prompt_robustness_mmlu_pro|0,score_option_order_robustness_agieval|0",
     "--custom-tasks", "scorekit.lighteval.score_suite"],
    ["accelerate", "model_name=m", "score_prompt_robustness_agieval:sat_en:template_9|0", "--custom-tasks",
     "/somewhere/lighteval/score_suite.py"],
    ["accelerate", "model_name=m", "robust_prompt_local_qa|0", "--custom-tasks", "robust_lighteval_tasks.py"],
    ["accelerate", "model_name=m", "score_mine|0", "--custom-tasks", "my_tasks.py"],  # the user's names
    ["accelerate", "model_name=m", "arc:easy|0,gsm8k|0"],
])
def test_correct_command_lines_pass(lighteval_command, argv):
    assert _check(lighteval_command, *argv)[1] is None


@pytest.mark.slow
@pytest.mark.parametrize("argv, expected", [
    (["accelerate", "model_name=m", "score_option_order_robustness_mmlu_pro|0"],
     "scorekit: error: task score_option_order_robustness_mmlu_pro: scorekit's SCORE tasks need --custom-tasks"),
    (["eval", "hf/m", "score_prompt_robustness_mmlu_pro|0", "--custom-tasks", "scorekit.lighteval.score_suite"],
     "scorekit: error: task score_prompt_robustness_mmlu_pro: `lighteval eval` (lighteval 0.13's Inspect backend) "
     "cannot run scorekit's tasks"),
])
def test_entry_point_stops_with_one_line_and_exit_2(lighteval_env, argv, expected):
    proc = subprocess.run([sys.executable, "-m", "scorekit.lighteval", *argv], env=lighteval_env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = [x for x in proc.stderr.splitlines() if x.startswith("scorekit: error:")]
    assert len(lines) == 1 and lines[0].startswith(expected), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "Cannot find task" not in proc.stderr
    assert "--save-details" in lines[0] or "eval" not in argv


def test_robustness_given_an_inspect_log_says_so_in_one_line(tmp_path, capsys):
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    task = Task(dataset=[Sample(input="Which letter? A or B", target="A")], solver=generate(), scorer=match())
    for fmt in ("eval", "json"):
        inspect_eval(task, model="mockllm/model", log_dir=str(tmp_path / fmt), log_format=fmt, display="none")
        (log,) = (tmp_path / fmt).iterdir()
        assert main(["robustness", str(log)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"scorekit: error: {log}: an Inspect log: scorekit robustness does not read Inspect logs")
        assert "--save-details" in err and "\n" not in err
        assert main(["robustness", str(tmp_path / fmt)]) == 2  # in a folder: said in the no-logs error
        assert "1 Inspect log(s) not read" in capsys.readouterr().err
