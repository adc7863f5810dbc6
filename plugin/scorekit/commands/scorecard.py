"""``scorekit scorecard PATH... --config FILE``: good/bad threshold scores rolled up
metric → benchmark → category → overall (ML-PEG's scheme) from results files.

The table goes to stdout or ``--output`` (written atomically); notes go to stderr.
"""

from __future__ import annotations

import argparse
from typing import Any

from scorekit import checks
from scorekit.tables import FORMATS

DETAILS = ("category", "benchmark", "metric")
DEFAULT_CONFIG = "llm_benchmarks_scoring.yaml"


HELP = "good/bad threshold scores per metric, rolled up to benchmark, category and overall"
DESCRIPTION = (
    "Score lm-eval / lighteval results (files, or folders searched recursively) against a "
    "YAML config: per metric clip((value - bad) / (good - bad), 0, 1), then weighted means "
    "metric -> benchmark -> category -> overall. Missing values are never counted as 0: see "
    "--missing. See docs/scorecard.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="results files or folders (searched recursively)")
    p.add_argument("--config", metavar="FILE", default=DEFAULT_CONFIG,
                   help=f"scoring config: a YAML file, or the name of a shipped one (default: {DEFAULT_CONFIG})")
    p.add_argument("--missing", choices=("partial", "strict"), default="partial",
                   help="partial (default): leave a missing metric out, renormalize the weights and flag every score "
                   "above it as partial; strict: a missing metric leaves its benchmark, category and overall without a score")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--detail", choices=DETAILS, default="category",
                   help="deepest level shown as columns in table/markdown/csv/html (default: category); json always has every level")
    p.add_argument("--digits", type=int, default=3, help="decimals in table/markdown/html (default: 3)")
    p.add_argument("--output", metavar="FILE", help="write the output to FILE (atomically) instead of stdout")
    checks.add_allow_code(p)


def run(args: argparse.Namespace) -> int:
    from scorekit.aggregate.results_files import load_results
    from scorekit.aggregate.scorecard import build_scorecard
    from scorekit.aggregate.scorecard_config import load_scorecard_config
    from scorekit.aggregate.scorecard_render import render
    from scorekit.checks import check_digits
    from scorekit.files import check_output, emit, refuse_input_as_output
    from scorekit.resources import find_config

    check_digits(args.digits)
    config_path = find_config(args.config)
    output = check_output(args.output, [*args.paths, config_path])
    config = load_scorecard_config(config_path, allow_code=args.allow_code)
    loaded = load_results(args.paths)
    refuse_input_as_output(output, [f.path for f in loaded.files])
    scored, inputs = build_scorecard(loaded.models.values(), config, missing=args.missing)
    emit(render(scored, config, args.format, detail=args.detail, digits=args.digits, policy=args.missing), output)
    _notes(loaded, scored, inputs, args.verbose)
    return 0


def _notes(loaded, scored: list[dict[str, Any]], inputs, verbose: bool = False) -> None:
    from scorekit.aggregate.leaderboard import override_notes
    from scorekit.aggregate.scorecard import note_lines
    from scorekit.files import note

    note(*override_notes(loaded.models.values()))
    note(*note_lines(inputs.notes, every=verbose))
    for m in scored:
        if m["missing"]:
            what = "partial" if m["partial"] else "no overall score"
            note(f"{m['model']}: {what}, without {', '.join(f'{p} ({r})' for p, r in m['missing'].items())}")
    if summary := loaded.skipped_summary():
        note(summary)
