"""The demo pipeline: bundled questions -> lm-eval SCORE run -> report, summary, plots.

Each stage is a plain function so tests can run the pipeline on the ``dummy`` model or a
tiny built model with a few questions, and the CLI only adds argument parsing and output.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from scorekit.demo.local_tasks import write_local_tasks
from scorekit.demo.model import ModelChoice
from scorekit.errors import ScorekitError
from scorekit.robustness.benchmarks import BENCHMARKS

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


@dataclass
class DemoOutputs:
    """Where the demo wrote what."""

    out_dir: Path
    lm_eval_dir: Path
    report_markdown: Path | None = None
    report_json: Path | None = None
    summary_markdown: Path | None = None
    plots: list[Path] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


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


def run_harness(
    out_dir: Path,
    model: ModelChoice,
    *,
    questions: int | None = None,
    max_gen_toks: int = 128,
    batch_size: int | str = 16,
    device: str = "cpu",
    seed: int = 1234,
    tasks: list[str] | None = None,
) -> Path:
    """Run the demo's SCORE tasks through lm-eval and save results + samples like the CLI.

    Returns the folder holding ``<model>/results_*.json`` and ``samples_*.jsonl``.
    """
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    chosen = list(tasks or DEMO_TASKS)
    data = prepare_data(out_dir, questions)
    task_dir = write_local_tasks(
        out_dir / "tasks", {t: data[DEMO_TASKS[t]] for t in chosen}, max_gen_toks=max_gen_toks
    )
    lm_eval_dir = out_dir / "lm_eval"
    tracker = EvaluationTracker(output_path=str(lm_eval_dir))
    results = lm_eval.simple_evaluate(
        model=model.name,
        model_args=model.args,
        tasks=chosen,
        batch_size=batch_size,
        device=device,
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
    return lm_eval_dir


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
            for name in ("report.md", "report.json", "summary.md", "summary.json"):
                (out_dir / name).unlink(missing_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / DEMO_MARKER).write_text("written by `scorekit demo`; the folder is cleared on the next run\n")
    return out_dir


def robustness_report(lm_eval_dir: Path) -> tuple[Any, dict[str, Any]]:
    """Build the SCORE report (object and JSON form) from the run's logs."""
    from scorekit.robustness.readers import read_paths
    from scorekit.robustness.report import build_report, report_to_json

    report = build_report(read_paths([lm_eval_dir]))
    return report, report_to_json(report)


def normalized_summary(lm_eval_dir: Path, config_name: str = "score_demo_normalization.yaml"):
    """Leaderboard-style summary: accuracy above chance, 0-100, with the shipped demo config."""
    from scorekit.aggregate.leaderboard import compute_leaderboard
    from scorekit.aggregate.normalize import load_config
    from scorekit.aggregate.results_files import load_results
    from scorekit.resources import config_path

    config = load_config(config_path(config_name))
    loaded = load_results([lm_eval_dir])
    return config, compute_leaderboard(loaded.models.values(), config)
