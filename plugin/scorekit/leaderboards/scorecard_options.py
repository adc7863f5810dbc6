"""``scorekit scorecard``, built: the options declared and checked, the results files read, scored
(:func:`scorekit.leaderboards.scorecard.build_scorecard`) and rendered, and the notes."""

from __future__ import annotations

import argparse

from scorekit import checks
from scorekit.leaderboards.leaderboard_options import Output, results_notes
from scorekit.tables import FORMATS

DETAILS = ("category", "benchmark", "metric")
DEFAULT_CONFIG = "llm_benchmarks_scoring.yaml"


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


def build(args: argparse.Namespace) -> Output:
    """Everything ``scorekit scorecard PATH...`` says, computed; one line for bad input."""
    from scorekit.leaderboards.results_files import load_results
    from scorekit.leaderboards.scorecard import build_scorecard
    from scorekit.leaderboards.scorecard_config import load_scorecard_config
    from scorekit.leaderboards.scorecard_render import render
    from scorekit.files import check_output, refuse_input_as_output
    from scorekit.resources import find_config

    checks.check_digits(args.digits)
    config_path = find_config(args.config)
    output = check_output(args.output, [*args.paths, config_path])
    config = load_scorecard_config(config_path, allow_code=args.allow_code)
    loaded = load_results(args.paths)
    refuse_input_as_output(output, [f.path for f in loaded.files])
    scored, inputs = build_scorecard(loaded.models.values(), config, missing=args.missing)
    text = render(scored, config, args.format, detail=args.detail, digits=args.digits, policy=args.missing)
    missing = [f"{m['model']}: {'partial' if m['partial'] else 'no overall score'}, without "
               f"{', '.join(f'{p} ({r})' for p, r in m['missing'].items())}" for m in scored if m["missing"]]
    return Output(text, output, results_notes(loaded, inputs.notes, missing, every=args.verbose))
