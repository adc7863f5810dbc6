"""``scorekit demo``, run: lm-eval on the bundled questions (:mod:`scorekit.demo.pipeline`), the
reports written (report.html, report.json, summary.json), the tables printed, with one progress
display (:class:`_Stages`) and the harness's own output in harness.log."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from rich.console import Console

from scorekit.demo import pipeline
from scorekit.demo.quiet import harness_output_to
from scorekit.files import write_text_atomic
from scorekit.tables import render


def run_demo(args: argparse.Namespace, choice) -> int:  # noqa: ANN001 - scorekit.demo.model's choice
    """Run the demo with the checked options and model ``choice``: the harness (its output to
    harness.log, one progress display), report.html, report.json and summary.json, the tables
    on standard output and what happened on standard error."""
    out = pipeline.prepare_output_dir(Path(args.output_dir))
    log_path = (out / "harness.log").resolve()
    tokens = {b: args.max_gen_toks or t for b, t in pipeline.MAX_GEN_TOKS.items()}
    model_text = choice.label or (choice.name + " " + choice.args).strip()
    if "dtype=" in choice.args and choice.label:
        model_text += f" ({choice.args.rsplit('dtype=', 1)[1].split(',')[0]} weights)"
    sample_note = _sample_note(pipeline.sample_sizes(args.questions), pipeline.planned_subsets())
    settings = (f"Up to {tokens['mmlu_pro']} tokens per multiple-choice answer and {tokens['math']} per MATH "
                f"answer; an answer cut off before it names a choice counts as unparsed.")
    budget = pipeline.PROMPT_BUDGET if args.prompt_budget is None else args.prompt_budget
    budget_note = _budget_note(budget, args.seed)
    started = time.perf_counter()
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    err.print(f"[bold]scorekit demo[/]: {model_text}; {sample_note[0].lower() + sample_note[1:]}")
    err.print(f"  {settings}")
    err.print(f"  {budget_note}")
    err.print(f"  harness output (lm-eval, transformers): {log_path}")
    threads, follower = _threads(args, choice, err)
    with harness_output_to(log_path) as terminal:
        with _Stages(Console(file=terminal, highlight=False)) as stages:
            lm_eval_dir = pipeline.run_harness(
                out, choice, questions=args.questions, max_gen_toks=args.max_gen_toks,
                batch_size=args.batch_size if args.batch_size == "auto" else int(args.batch_size), device=args.device,
                seed=args.seed, progress=stages.update, threads=threads, before_wave=follower,
                prompt_budget=budget,
            )
            stages.update("report", 0, 1)
            intro = [f"Model: {model_text}, run through lm-eval's {choice.name} model"
                     + (" with its chat template" if choice.chat_template else "") + ".",
                     sample_note + ".", settings, budget_note,
                     f"Raw results and samples: {lm_eval_dir} (scorekit robustness {lm_eval_dir} recomputes this report)."]
            report, summary = _write_reports(out, lm_eval_dir, sample_note, budget_note, intro, plots=not args.no_plots)
            stages.update("report", 1, 1)
    _print_tables(report, summary)
    if follower is not None and len(follower.used) > 1:
        err.print(f"  torch threads during the run: {' -> '.join(map(str, follower.used))}")
    err.print(f"[bold]done[/] in {time.perf_counter() - started:.0f} s. Open the report (tables, plots, notes):")
    err.print(f"  {(out / 'report.html').resolve().as_uri()}")
    return 0


def _threads(args: argparse.Namespace, choice, err) -> tuple[int | None, object]:  # noqa: ANN001
    """Torch threads to start with, and the follower that sets them again before each wave (hf
    models without --threads or OMP_NUM_THREADS), each said on ``err``."""
    if args.threads is not None or choice.name != "hf" or "OMP_NUM_THREADS" in os.environ:
        return args.threads, None
    from scorekit.demo.threads import ThreadFollower, sample_idle, torch_threads, usable_processors

    usable, idle = usable_processors(), sample_idle()
    threads = torch_threads(usable, idle)
    err.print(f"  {threads} torch thread(s) to start: {usable} processor(s)"
              + (f", {idle:.1f} idle now" if idle is not None else "")
              + "; set again before each wave of prompts from what other programs use")
    return threads, ThreadFollower(usable, threads)


def _write_reports(out: Path, lm_eval_dir: Path, sample_note: str, budget_note: str, intro: list[str], *,  # noqa: ANN202
                   plots: bool):
    """report.html, report.json and summary.json from the run's logs; the robustness report and
    the summary's (columns, rows, title) for the terminal."""
    from scorekit.leaderboards import leaderboard
    from scorekit.robustness.html_report import Section, render_html

    logs = pipeline.read_logs(lm_eval_dir)
    report, report_json = pipeline.robustness_report(logs, sample_note=sample_note, budget_note=budget_note)
    config, rows = pipeline.normalized_summary(lm_eval_dir)
    intervals = pipeline.summary_intervals(logs.samples, config)
    bench_cols = leaderboard.columns(config)
    score_cols = [*bench_cols, leaderboard.AVERAGE]

    def ci(model: str, column: str) -> str | None:
        found = intervals.get(model, {}).get(column)
        return None if found is None else f"[{found[1]:.2f}, {found[2]:.2f}]"

    # the terminal table: each score and its interval; report.html adds the raw accuracies
    columns = ["Model", *(h for c in score_cols for h in (c, f"{c} 95% CI"))]
    table_rows = [[r.model, *(v for c in score_cols for v in (r.scores.get(c), ci(r.model, c)))] for r in rows]
    html_columns = [*columns, *(f"{c} Raw" for c in bench_cols)]
    html_rows = [[*row, *(r.raw.get(c) for c in bench_cols)] for row, r in zip(table_rows, rows)]
    summary_title = leaderboard.config_name(config)
    page = render_html(report, title="scorekit demo: SCORE robustness", intro=intro,
                       sections=[Section("Leaderboard-style summary",
                                         render(html_columns, html_rows, "html", title=summary_title))],
                       plots=plots)
    write_text_atomic(out / "report.html", page)
    write_text_atomic(out / "report.json", json.dumps(report_json, indent=2) + "\n")
    write_text_atomic(out / "summary.json", json.dumps(
        {"config": summary_title, "models": [
            {"model": r.model, "scores": r.scores, "raw": r.raw, "missing": r.missing,
             "scores_ci_low": {c: v[1] for c, v in intervals.get(r.model, {}).items()},
             "scores_ci_high": {c: v[2] for c, v in intervals.get(r.model, {}).items()}}
            for r in rows]}, indent=2) + "\n")
    return report, (columns, table_rows, summary_title)


def _print_tables(report, summary: tuple) -> None:  # noqa: ANN001
    """The robustness table, kept to 80-odd columns (the std and its interval, the accuracy's
    interval and the sources are in report.html), then the summary."""
    from scorekit.robustness.report_tables import summary_table

    main_columns, main_rows = summary_table(report)
    family = main_columns.index("Family")
    for row, f in zip(main_rows, report.families()):  # a budgeted family's row holds estimates: say so
        if f.estimated and f.design:
            row[family] = f"{row[family]}, {f.design['per_question']} of {f.design['variants']}"
    keep = [i for i, c in enumerate(main_columns) if c.split(" ")[0] not in ("Std", "Source")
            and c != "Identical samples" and not (c.startswith("Accuracy ") and c.endswith("CI"))]
    print(render([main_columns[i] for i in keep], [[row[i] for i in keep] for row in main_rows], "table",
                 title="SCORE robustness"))
    print(render(summary[0], summary[1], "table", title=summary[2]))
    sys.stdout.flush()


def _budget_note(budget: int, seed: int) -> str:
    """The line that says how the prompt family was asked (docs/demo.md, "What the demo computes")."""
    if budget >= 10:
        return "Prompt family in full: every question under all 10 of SCORE's templates."
    return (f"Prompt family on a budget: {budget} of SCORE's 10 templates per question (seed {seed}, docs/budget.md); "
            f"its rows are estimates of the full 10-template run on these questions, with 95% intervals "
            f"(table rows 'prompt, {budget} of 10'). Option order and non-greedy are asked in full.")


def _sample_note(sizes: dict[str, int], subsets: dict[str, list[str]]) -> str:
    """'Sample of N questions per benchmark: ...' with the subsets the demo runs on purpose."""
    from scorekit.robustness.benchmarks import BENCHMARKS

    parts = []
    for bench in ("mmlu_pro", "agieval", "math"):
        part = f"{BENCHMARKS[bench].label} {sizes.get(bench, 0)}"
        if subsets.get(bench):
            part += f" ({', '.join(s.replace('_', ' ') for s in subsets[bench])})"
        parts.append(part)
    counts = set(sizes.values())
    head = f"Sample of {counts.pop()} questions per benchmark" if len(counts) == 1 else "Sample of questions per benchmark"
    return (f"{head}: {'; '.join(parts)}; real test questions, the shortest of each set (demo/data/NOTICE.md), "
            "so the numbers show what the report measures, not the model's scores")


class _Stages:
    """The demo's one progress display: a row per stage, with a bar and an ETA for the answers."""

    LABELS = {"model": "load the model", "answers": "generate answers", "scoring": "score answers (lm-eval)",
              "report": "write report.html"}

    def __init__(self, console) -> None:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self.progress = Progress(SpinnerColumn(finished_text="[green]✓[/]"), TextColumn("{task.description}"),
                                 BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("ETA"), TimeRemainingColumn(), console=console)
        self.ids = {stage: self.progress.add_task(f"[{i + 1}/{len(self.LABELS)}] {label}", start=False, total=None)
                    for i, (stage, label) in enumerate(self.LABELS.items())}

    def __enter__(self) -> _Stages:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def update(self, stage: str, done: int, total: int | None) -> None:
        task = self.ids[stage]
        if not self.progress.tasks[task].started:
            self.progress.start_task(task)
        self.progress.update(task, completed=done, total=total or 1)
