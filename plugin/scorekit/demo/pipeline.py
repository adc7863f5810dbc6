"""The demo pipeline: bundled questions -> lm-eval SCORE run -> report and summary.

Each stage is a plain function so tests can run the pipeline on the ``dummy`` model or a
tiny built model with a few questions, and the CLI only adds argument parsing and output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from scorekit.leaderboards.prompt_intervals import summary_intervals  # noqa: F401 - the demo's summary intervals
from scorekit.demo.local_tasks import write_local_tasks
from scorekit.demo.model import ModelChoice
from scorekit.errors import ScorekitError
from scorekit.robustness.benchmarks import BENCHMARKS, classify_task

DATA_DIR = Path(__file__).resolve().parent / "data"

# Leaf task -> bundled data file (``<benchmark>[_<subset>].jsonl``). MMLU-Pro and AGIEval get all
# three SCORE tests; MATH has no options, so no option-order test. AGIEval's aqua-rat has five
# options, sat-math four.
_DEMO_SUBSETS: dict[str, tuple[str, ...]] = {
    "mmlu_pro": ("",), "agieval": ("aqua_rat", "sat_math"), "math": ("algebra", "prealgebra", "number_theory"),
}
DEMO_TASKS: dict[str, str] = {
    BENCHMARKS[b].lm_eval_task(family, subset): f"{BENCHMARKS[b].local_name(subset)}.jsonl"
    for b, subsets in _DEMO_SUBSETS.items() for subset in subsets for family in BENCHMARKS[b].families
}


def prepare_data(out_dir: Path, questions: int | None) -> dict[str, Path]:
    """Copy the bundled data (first ``questions`` rows of each file when given) to ``out_dir``."""
    data_out = out_dir / "data"
    data_out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    for name in sorted(set(DEMO_TASKS.values())):
        lines = [ln for ln in (DATA_DIR / name).read_text(encoding="utf-8").splitlines() if ln.strip()]
        if questions is not None:
            lines = lines[:questions]
        target = data_out / name
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files[name] = target
    return files


# Tokens per answer by default. Short answers are the demo's main speed choice (see README,
# "The demo"): the multiple-choice prompts ask for one line ("The best answer is X"), which
# SmolLM2 gives within ~20 tokens when it complies; MATH gets more room for a short derivation.
MAX_GEN_TOKS = {"mmlu_pro": 24, "agieval": 24, "math": 32}
PROGRESS_STAGES = ("model", "answers", "scoring")

# The prompt family on a budget (``scorekit variants --budget``'s design, docs/budget.md): each
# question under PROMPT_BUDGET of SCORE's 10 templates, the report's prompt rows estimates of the
# full run with intervals. 2 (the fewest the design allows) cuts the generation from 9.40 to 4.57
# float32 TFLOP, what a CPU without bfloat16 needs to stay under 120 s with margin (3: 5.24 TFLOP,
# not enough at the slower rate measured; docs/demo.md, "What the demo computes").
PROMPT_BUDGET = 2


def benchmark_of(task: str) -> str:
    """``mmlu_pro`` / ``agieval`` / ``math`` for a demo task name."""
    for bench in MAX_GEN_TOKS:
        if bench in task:
            return bench
    raise ValueError(f"not a demo task: {task}")


def sample_sizes(questions: int | None = None) -> dict[str, int]:
    """Questions per benchmark that the bundled data (first ``questions`` rows per file) gives."""
    sizes: dict[str, int] = {}
    for name in sorted(set(DEMO_TASKS.values())):
        n = sum(1 for ln in (DATA_DIR / name).read_text(encoding="utf-8").splitlines() if ln.strip())
        bench = benchmark_of(name)
        sizes[bench] = sizes.get(bench, 0) + (n if questions is None else min(n, questions))
    return sizes


def planned_subsets() -> dict[str, list[str]]:
    """The AGIEval subsets and MATH subjects the demo runs (its deliberate sample)."""
    from scorekit.robustness.readers import classify_task

    planned: dict[str, list[str]] = {}
    for task in DEMO_TASKS:
        info = classify_task(task)
        if info is not None and info.subset:
            planned.setdefault(info.benchmark, [])
            if info.subset not in planned[info.benchmark]:
                planned[info.benchmark].append(info.subset)
    return planned


Progress = Callable[[str, int, "int | None"], None]


def run_harness(
    out_dir: Path,
    model: ModelChoice,
    *,
    questions: int | None = None,
    max_gen_toks: int | None = None,
    batch_size: int | str = 128,
    device: str = "cpu",
    seed: int = 1234,
    tasks: list[str] | None = None,
    progress: Progress | None = None,
    threads: int | None = None,
    before_wave: Callable[[], None] | None = None,
    prompt_budget: int | None = PROMPT_BUDGET,
) -> Path:
    """Run the demo's SCORE tasks through lm-eval in one process (the model is loaded once for
    all tasks) and save results + samples as ``lm_eval --output_path --log_samples`` does.

    ``max_gen_toks`` None means :data:`MAX_GEN_TOKS` per benchmark; ``threads`` sets torch's
    thread count (None: torch's default); ``before_wave`` is handed to the demo's engine
    (:attr:`scorekit.demo.engine.SharedPrefixHFLM.before_wave`). ``progress(stage, done,
    total)`` is called with the stages of :data:`PROGRESS_STAGES`: ``model`` (0 then 1),
    ``answers`` (answers generated so far of ``total``: as they end for the demo's engine, per
    batch for lm-eval's hf model, at the end for others) and ``scoring`` (0 then 1).
    ``prompt_budget`` B runs the prompt family's tasks on a budget of B of the 10 templates per
    question, seeded with ``seed`` (None or >= 10: all ten).
    Returns the folder holding ``<model>/results_*.json`` and ``samples_*.jsonl``.
    """
    import lm_eval
    from lm_eval.api.registry import get_model
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    report = progress or (lambda stage, done, total: None)
    chosen = list(tasks or DEMO_TASKS)
    data = prepare_data(out_dir, questions)
    task_dir = out_dir / "tasks"
    for bench, default_toks in MAX_GEN_TOKS.items():
        group = {t: data[DEMO_TASKS[t]] for t in chosen if benchmark_of(t) == bench}
        if group:
            budgets = {t: (prompt_budget, seed) for t in group if prompt_budget is not None and classify_task(t).family == "prompt"}
            write_local_tasks(task_dir, group, max_gen_toks=max_gen_toks or default_toks, budgets=budgets)
    report("model", 0, 1)
    if threads is not None:
        import torch

        torch.set_num_threads(threads)
    if model.name == "hf":  # lm-eval's hf model, reading shared prompt prefixes once (demo/engine.py)
        from scorekit.demo.engine import SharedPrefixHFLM, gguf_read_once

        with gguf_read_once():
            lm = SharedPrefixHFLM.create_from_arg_string(model.args, {"batch_size": batch_size, "device": device})
        lm.before_wave = before_wave
    else:
        lm = get_model(model.name).create_from_arg_string(model.args, {"batch_size": batch_size, "device": device})
    _count_answers(lm, report)
    report("model", 1, 1)
    lm_eval_dir = out_dir / "lm_eval"
    tracker = EvaluationTracker(output_path=str(lm_eval_dir))
    results = lm_eval.simple_evaluate(
        model=lm,
        model_args=model.args,
        tasks=chosen,
        log_samples=True,
        evaluation_tracker=tracker,
        apply_chat_template=model.chat_template,
        task_manager=TaskManager(include_path=str(task_dir), include_defaults=False),
        random_seed=seed,
        numpy_random_seed=seed,
        torch_random_seed=seed,
        fewshot_random_seed=seed,
    )
    if results is None:  # pragma: no cover - only on non-zero ranks of a distributed run
        raise ScorekitError("lm-eval returned no results", where="demo")
    samples = results.pop("samples")
    if model.label:
        # lm-eval names the run after model_args (a long site-packages path for the GGUF
        # model, a random id for dummy); the logs and the report use the readable label.
        from lm_eval.utils import sanitize_model_name

        tracker.general_config_tracker.model_name = model.label
        tracker.general_config_tracker.model_name_sanitized = sanitize_model_name(model.label)
    tracker.save_results_aggregated(results=results, samples=samples)
    for task_name in results["configs"]:
        tracker.save_results_samples(task_name=task_name, samples=samples[task_name])
    report("scoring", 1, 1)
    return lm_eval_dir


def _count_answers(lm: Any, report: Progress) -> None:
    """Wrap this model object's ``generate_until`` (and its ``on_answers`` hook, or else lm-eval's
    per-batch ``_model_generate``) so that ``report("answers", done, total)`` follows the generation.
    Only this instance is changed."""
    state = {"done": 0, "total": 0}
    generate_until = lm.generate_until

    def counted_generate_until(requests, *args, **kwargs):
        state["done"], state["total"] = 0, len(requests)
        report("answers", 0, state["total"])
        out = generate_until(requests, *args, **kwargs)
        report("answers", state["total"], state["total"])
        report("scoring", 0, 1)
        return out

    lm.generate_until = counted_generate_until

    def answered(count: int) -> None:
        state["done"] = min(state["total"], state["done"] + count)
        report("answers", state["done"], state["total"])

    if hasattr(lm, "on_answers"):  # the demo's engine reports answers as they end
        lm.on_answers = answered
        return
    model_generate = getattr(lm, "_model_generate", None)
    if model_generate is None:
        return

    def counted_model_generate(context, *args, **kwargs):
        out = model_generate(context, *args, **kwargs)
        answered(int(context.shape[0]))
        return out

    lm._model_generate = counted_model_generate


DEMO_MARKER = ".scorekit-demo"


def prepare_output_dir(out_dir: Path) -> Path:
    """Create ``out_dir``, or clear an earlier demo run in it (recognized by its marker file).

    A non-empty folder that is not a demo folder is refused rather than overwritten.
    """
    import shutil

    out_dir = Path(out_dir)
    if out_dir.exists():
        if not out_dir.is_dir():
            raise ScorekitError("exists and is not a folder", path=out_dir)
        if any(out_dir.iterdir()):
            if not (out_dir / DEMO_MARKER).is_file():
                raise ScorekitError(
                    "folder is not empty and holds no earlier scorekit demo; choose another --output-dir",
                    path=out_dir,
                )
            for sub in ("data", "tasks", "lm_eval", "plots"):
                shutil.rmtree(out_dir / sub, ignore_errors=True)
            for name in ("report.html", "report.json", "summary.json", "harness.log",
                         "report.md", "summary.md"):  # the last two: written by earlier versions
                (out_dir / name).unlink(missing_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / DEMO_MARKER).write_text("written by `scorekit demo`; the folder is cleared on the next run\n")
    return out_dir


def read_logs(lm_eval_dir: Path):
    """The run's SCORE logs (:func:`scorekit.robustness.readers.read_paths`), read once for the
    report and the summary's intervals."""
    from scorekit.robustness.readers import read_paths

    return read_paths([lm_eval_dir])


def robustness_report(logs, *, sample_note: str | None = None,
                      budget_note: str | None = None) -> tuple[Any, dict[str, Any]]:
    """Build the SCORE report (object and JSON form) from the run's logs (:func:`read_logs`).

    The demo runs some AGIEval subsets and MATH subjects on purpose, so only those are
    expected (:func:`planned_subsets`); ``sample_note`` says what the sample is instead, and
    ``budget_note`` how the prompt family was asked (both open the notes).
    """
    from scorekit.robustness.report import build_report, report_to_json

    report = build_report(logs, planned_subsets=planned_subsets())
    if budget_note:
        report.notes.insert(0, budget_note)
    if sample_note:
        report.notes.insert(0, sample_note)
    return report, report_to_json(report)


def normalized_summary(lm_eval_dir: Path, config_name: str = "score_demo_normalization.yaml"):  # noqa: ANN201
    """Leaderboard-style summary: accuracy above chance, 0-100, with the shipped demo config, from
    the results files as ``scorekit leaderboard`` reads them. On a prompt budget a small task
    (MATH's subjects have 3 or 4 questions) leaves some templates unasked, whose accuracy lm-eval
    writes as NaN; they are left out of the column's mean (docs/scorecard.md, "Missing values")."""
    from scorekit.leaderboards.leaderboard import compute_leaderboard, shipped_config
    from scorekit.leaderboards.results_files import load_results

    config = shipped_config(config_name)
    loaded = load_results([lm_eval_dir])
    return config, compute_leaderboard(loaded.models.values(), config)
