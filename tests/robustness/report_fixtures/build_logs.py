"""Produce real lm-eval logs (results JSON + samples JSONL) for the robustness report tests.

Everything here is written by lm-eval itself: ``simple_evaluate`` runs the tasks on a
:class:`tests.support.fake_lm.ScriptedLM` and lm-eval's own ``EvaluationTracker`` saves the
files exactly as ``lm_eval --output_path OUT --log_samples`` would
(``OUT/<model_name_sanitized>/results_<time>.json`` and ``samples_<task>_<time>.jsonl``).

Upstream SCORE tasks run from the installed lm-eval through small include YAMLs
(``upstream_tasks/*.yaml``) that only swap the Hugging Face dataset for a local JSONL file;
``@LM_EVAL_SCORE@`` and ``@DATA@`` in them are filled in here because both paths depend on the
machine. The upstream non-greedy layout is five runs with seeds 1..5 written to
``seed_1 .. seed_5`` folders, as upstream's NON_GREEDY.md asks.

The scripted answer policies below are the ground truth the tests compare against.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
UPSTREAM_TEMPLATES = HERE / "upstream_tasks"
SCOREKIT_TEMPLATES = HERE / "scorekit_tasks"

Policy = Callable[[dict[str, Any]], "str | list[str]"]


def lm_eval_score_dir() -> Path:
    import lm_eval

    return Path(lm_eval.__file__).resolve().parent / "tasks" / "score"


def materialize_tasks(templates: Path, dest: Path) -> Path:
    """Copy the include YAMLs to ``dest`` with the machine-specific paths filled in."""
    from scorekit.resources import tasks_dir

    dest.mkdir(parents=True, exist_ok=True)
    for template in sorted(templates.glob("*.yaml")):
        text = template.read_text(encoding="utf-8")
        for token, value in (("@LM_EVAL_SCORE@", lm_eval_score_dir()), ("@SCOREKIT_TASKS@", tasks_dir()), ("@DATA@", DATA)):
            text = text.replace(token, str(value))
        (dest / template.name).write_text(text, encoding="utf-8")
    return dest


def says(letter: str) -> str:
    return f"Let me think about the options.\nThe best answer is {letter}."


# --- answer policies ----------------------------------------------------------------------------
# They read only fields both layouts have: "answer" (the gold letter as displayed) and the
# question number; the prompt index is "prompt_id" upstream and "variant" in scorekit.


def qnum(doc: dict[str, Any]) -> int:
    """Question number: MMLU-Pro question_id, AGIEval row (scorekit writes "aqua_rat/3")."""
    return int(str(doc["question_id"]).rsplit("/", 1)[-1])


def prompt_index(doc: dict[str, Any]) -> int:
    return int(doc["prompt_id"] if "prompt_id" in doc else doc["variant"])


def steady(doc: dict[str, Any]) -> str:
    """Always the correct content (the displayed gold letter)."""
    return says(doc["answer"])


def always_c(doc: dict[str, Any]) -> str:
    """Always letter C, whatever it shows."""
    return says("C")


def mixed_prompt(doc: dict[str, Any]) -> str:
    """Prompts 0-5 correct, 6-7 say "A", 8 no trigger phrase (unparsed), 9 correct in brackets."""
    p = prompt_index(doc)
    if p <= 5:
        return says(doc["answer"])
    if p <= 7:
        return says("A")
    if p == 8:
        return "I am not sure which option is right."
    return f"Reasoning done. the best answer is ({doc['answer']})"


def sampled_answer(doc: dict[str, Any], seed: int) -> str:
    """Sample/seed ``s`` (1..5): question ``q`` answered "B" when (q + s) % 3 == 0, else correctly."""
    if (qnum(doc) + seed) % 3 == 0:
        return says("B")
    return says(doc["answer"])


def non_greedy_policy(seed: int) -> Policy:
    """Upstream layout: one run per seed, one answer per question."""
    return lambda doc: sampled_answer(doc, seed)


def five_samples(doc: dict[str, Any]) -> list[str]:
    """scorekit layout: the five repeats of one run are samples 1..5 of the same rule."""
    return [sampled_answer(doc, s) for s in range(1, 6)]


def scorekit_policy(doc: dict[str, Any]) -> str | list[str]:
    """scorekit's tasks: the "mixed" prompt policy, "always C" for option order, five samples."""
    family = doc["family"]
    if family == "prompt":
        return mixed_prompt(doc)
    if family == "option_order":
        return always_c(doc)
    return five_samples(doc)


# --- running lm-eval -------------------------------------------------------------------------


def run_lm_eval(
    output_path: Path,
    tasks: list[str],
    include_path: Path,
    policy: Policy,
    model_name: str,
    seed: int = 0,
    num_fewshot: int | None = None,
) -> None:
    """One ``simple_evaluate`` run saved with lm-eval's ``EvaluationTracker`` (``num_fewshot``:
    as ``--num_fewshot``; None keeps each task's own)."""
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    lm = ScriptedLM(generate=lambda context, gen_kwargs, doc: policy(doc))
    tm = TaskManager(include_path=[str(include_path)], include_defaults=False)
    tracker = EvaluationTracker(output_path=str(output_path))
    # SCORE's upstream metrics log one INFO line per category on every call, and lm-eval's
    # bootstrap calls them 100,000 times: when an earlier test on this worker left lm-eval's
    # loggers at INFO, the run took more than the 900 s timeout (lm-eval 0.5 set, 2026-11-29).
    # No test reads lm-eval's stderrs of these runs (scorekit's readers skip them), so the
    # bootstrap is off, as `--bootstrap_iters 0` turns it off.
    quiet = logging.getLogger("lm_eval.tasks.score")
    level = quiet.level
    quiet.setLevel(logging.WARNING)
    try:
        results = lm_eval.simple_evaluate(
            model=lm,
            model_args=f"pretrained={model_name}",
            tasks=tasks,
            num_fewshot=num_fewshot,
            task_manager=tm,
            log_samples=True,
            evaluation_tracker=tracker,
            bootstrap_iters=0,
            random_seed=seed,
            numpy_random_seed=seed,
            torch_random_seed=seed,
            fewshot_random_seed=seed,
        )
    finally:
        quiet.setLevel(level)
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task_name in results["configs"]:
        tracker.save_results_samples(task_name=task_name, samples=samples[task_name])


UPSTREAM_MC_TASKS = [
    "score_prompt_robustness_mmlu_pro",
    "score_option_order_robustness_mmlu_pro",
    "prompt_robustness_agieval_aqua_rat",
    "option_order_robustness_agieval_aqua_rat",
]
UPSTREAM_NON_GREEDY_TASKS = ["score_non_greedy_robustness_mmlu_pro", "non_greedy_robustness_agieval_aqua_rat"]


def build_upstream(root: Path) -> dict[str, Path]:
    """Upstream-task logs under ``root``:

    - ``upstream/``: prompt + option-order tasks for models ``scripted/steady``,
      ``scripted/always-c`` and ``scripted/mixed`` (one run each);
    - ``upstream_ng/seed_1..seed_5/``: the non-greedy tasks for ``scripted/sampler``.
    """
    tasks_dir = materialize_tasks(UPSTREAM_TEMPLATES, root / "upstream_task_yamls")
    out = root / "upstream"
    for name, policy in (("scripted/steady", steady), ("scripted/always-c", always_c)):
        run_lm_eval(out, UPSTREAM_MC_TASKS, tasks_dir, policy, name)
    run_lm_eval(out, ["score_prompt_robustness_mmlu_pro", "prompt_robustness_agieval_aqua_rat"], tasks_dir, mixed_prompt, "scripted/mixed")
    ng = root / "upstream_ng"
    for seed in range(1, 6):
        run_lm_eval(ng / f"seed_{seed}", UPSTREAM_NON_GREEDY_TASKS, tasks_dir, non_greedy_policy(seed), "scripted/sampler", seed=seed)
    return {"upstream": out, "upstream_ng": ng}


SCOREKIT_TASKS = [
    "score_prompt_robustness_mmlu_pro",
    "score_option_order_robustness_mmlu_pro",
    "score_non_greedy_robustness_mmlu_pro",
    "prompt_robustness_agieval_aqua_rat",
    "option_order_robustness_agieval_aqua_rat",
    "non_greedy_robustness_agieval_aqua_rat",
]


def build_scorekit(root: Path) -> dict[str, Path]:
    """scorekit-task logs under ``root/scorekit`` for model ``scripted/mixed`` (one run, all
    three families of MMLU-Pro and AGIEval aqua-rat; answers from :func:`scorekit_policy`)."""
    tasks_dir = materialize_tasks(SCOREKIT_TEMPLATES, root / "scorekit_task_yamls")
    out = root / "scorekit"
    run_lm_eval(out, SCOREKIT_TASKS, tasks_dir, scorekit_policy, "scripted/mixed")
    return {"scorekit": out}


def lol(doc: dict[str, Any]) -> str | list[str]:
    """What lm-eval's ``dummy`` model says to everything: no answer can be read from it."""
    return ["lol"] * 5 if doc.get("family") == "non_greedy" else "lol"


@contextmanager
def upstream_math_runs() -> Iterator[None]:
    """Upstream's MATH checker (math_grader.math_equal) refuses to run unless
    antlr4-python3-runtime is exactly 4.11.0, the version sympy's LaTeX parser needs. The
    unparsable answers of :func:`lol` never reach that parser (upstream extracts None without a
    ``\\boxed{}``, and math_equal returns False for None before parsing), so only the version
    check is lifted, for the run."""
    from lm_eval.tasks.score.math import math_grader

    saved = math_grader._check_antlr_version
    math_grader._check_antlr_version = lambda: None
    try:
        yield
    finally:
        math_grader._check_antlr_version = saved


def build_unparsable(root: Path) -> dict[str, Path]:
    """Logs of ``scripted/lol``, which never gives a readable answer:

    - ``upstream_lol/``: upstream's MMLU-Pro and MATH algebra prompt tasks;
    - ``scorekit_lol/``: scorekit's MMLU-Pro prompt and non-greedy tasks.
    """
    upstream_tasks = materialize_tasks(UPSTREAM_TEMPLATES, root / "upstream_task_yamls")
    with upstream_math_runs():
        run_lm_eval(root / "upstream_lol", ["score_prompt_robustness_mmlu_pro", "prompt_robustness_math_algebra"],
                    upstream_tasks, lol, "scripted/lol")
    scorekit_tasks = materialize_tasks(SCOREKIT_TEMPLATES, root / "scorekit_task_yamls")
    run_lm_eval(root / "scorekit_lol", ["score_prompt_robustness_mmlu_pro", "score_non_greedy_robustness_mmlu_pro"],
                scorekit_tasks, lol, "scripted/lol")
    return {"upstream_lol": root / "upstream_lol", "scorekit_lol": root / "scorekit_lol"}


_BUILT: dict[str, dict[str, Path]] = {}


def upstream_logs(tmp_path_factory) -> dict[str, Path]:
    """Build the upstream logs once per test session (every test module shares them)."""
    if "upstream" not in _BUILT:
        _BUILT["upstream"] = build_upstream(tmp_path_factory.mktemp("upstream_logs"))
    return _BUILT["upstream"]


def scorekit_logs(tmp_path_factory) -> dict[str, Path]:
    """Build the scorekit-task logs once per test session."""
    if "scorekit" not in _BUILT:
        _BUILT["scorekit"] = build_scorekit(tmp_path_factory.mktemp("scorekit_logs"))
    return _BUILT["scorekit"]


def unparsable_logs(tmp_path_factory) -> dict[str, Path]:
    """Build the ``scripted/lol`` logs once per test session."""
    if "unparsable" not in _BUILT:
        _BUILT["unparsable"] = build_unparsable(tmp_path_factory.mktemp("unparsable_logs"))
    return _BUILT["unparsable"]


def read_rows(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


if __name__ == "__main__":  # pragma: no cover - manual inspection helper
    import sys
    import tempfile

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="score_logs_"))
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    print(build_upstream(target), build_scorekit(target))
