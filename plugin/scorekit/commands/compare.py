"""``scorekit compare A B [C ...]``: paired differences between runs on their shared questions."""

from __future__ import annotations

import argparse

from scorekit.compare.options import add_arguments, check_options  # noqa: F401 - the options, their checks beside them


HELP = ("paired comparison of two or more runs (difference, interval and p that agree, Holm, minimum "
        "detectable difference); each run's values with their intervals")
DESCRIPTION = (
    "Compare runs on the questions they share, task by task, from the samples logs "
    "(lm-eval --log_samples, lighteval --save-details; SCORE tasks of either). Each RUN is "
    "one model's output folder or samples file. 0/1 metrics (acc, acc_norm, exact_match, "
    "SCORE per-prompt and per-position accuracy) get the exact McNemar p-value and the interval "
    "inverted from the same test; other per-question metrics and consistency rates the paired "
    "bootstrap interval and the p-value inverted from it; accuracy spreads the box of the two "
    "runs' spread intervals and its p-value. Each comparison also gives the smallest difference "
    "it could detect with 80% power and, in a column of its own, the p-value Holm-adjusted over "
    "the comparisons of the metrics in the logs (pass@k rows derived from epochs are adjusted "
    "among themselves, in a table of their own). With more than two runs every pair is compared, "
    "and a third p column is Holm-adjusted over the pairs of each task and metric. An undefined "
    "value (the consistency rate of unparsed answers) is never 0: it is shown as missing, not "
    "compared, and a note says why; so is an interval of zero width or one resampled from fewer "
    "than 10 questions. "
    "With one RUN, or --values, each run's own values on all its questions are shown instead, "
    "with 95% intervals over questions (Wilson for 0/1 metrics; for spreads the spread of the "
    "per-prompt Wilson intervals; bootstrap for the rest, such as corpus pass@k, G-Pass@k and "
    "mG-Pass@k); JSON always holds both lists. "
    "Methods and their weak spots: docs/uncertainty.md."
)


def main(args: argparse.Namespace) -> int:
    from scorekit.compare.inputs import read_runs
    from scorekit.compare.render import render
    from scorekit.compare.report import build_comparison
    from scorekit.files import emit, note, refuse_input_as_output
    from scorekit.harness_outputs.folders import walk

    output, labels = check_options(args)
    runs = read_runs(args.runs, labels)
    refuse_input_as_output(output, walk(args.runs).files)
    report = build_comparison(runs, show_values=args.values, with_values=args.format == "json",
                              confidence=args.confidence, n_boot=args.n_boot, seed=args.seed)
    emit(render(report, args.format), output)
    if args.format in ("csv", "latex"):  # no room for notes in the file: say them on stderr
        note(*report.notes)
    return 0
