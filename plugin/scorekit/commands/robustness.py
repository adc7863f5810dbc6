"""``scorekit robustness PATH...``: the SCORE robustness report from lm-eval or lighteval logs."""

from __future__ import annotations

import argparse

from scorekit.tables import FORMATS


HELP = "SCORE robustness report (accuracy spread, consistency rate, ...) from lm-eval or lighteval logs"
DESCRIPTION = (
    "Report SCORE robustness per model: per-prompt accuracy and spread, consistency rate (CR) "
    "with a confidence interval, per-position accuracy and option CR, non-greedy accuracy and "
    "CR, unparsed rate. PATHs are results_*.json / samples_*.jsonl files or folders (searched "
    "recursively) written by lm-eval with --output_path and --log_samples, by scorekit's or "
    "by lm-eval's own SCORE tasks (including the seed_1..seed_5 non-greedy layout), or by "
    "lighteval with --save-details (details_*.parquet, results_*.json). Numbers "
    "are recomputed from samples logs when present, else taken from the results files."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="results/samples files or folders")
    p.add_argument("--format", "-f", choices=FORMATS, default="table",
                   help="output format (default: table; html is a whole page with the notes)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")
    p.add_argument("--confidence", type=float, default=0.95, help="CR interval confidence level (default: 0.95)")


def main(args: argparse.Namespace) -> int:
    from scorekit.checks import check_confidence
    from scorekit.files import check_output, emit, note, refuse_input_as_output
    from scorekit.robustness.readers import read_paths
    from scorekit.robustness.report import build_report
    from scorekit.robustness.report_render import render_report
    from scorekit.robustness.report_tables import notes_lines

    check_confidence(args.confidence)
    output = check_output(args.output, args.paths)
    read = read_paths(args.paths)
    refuse_input_as_output(output, [*(f for s in read.samples for f in s.sources), *(a.source for a in read.aggregates)])
    report = build_report(read, confidence=args.confidence)
    text = render_report(report, args.format)
    emit(text, output)
    if args.format in ("csv", "latex"):  # no room for notes: say them on stderr
        note(*notes_lines(report))
    return 0
