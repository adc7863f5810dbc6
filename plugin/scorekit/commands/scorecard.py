"""``scorekit scorecard PATH... --config FILE``: good/bad threshold scores rolled up metric → benchmark
→ category → overall (ML-PEG's scheme) from results files. The table goes to stdout or ``--output``
(written atomically); notes go to stderr."""

from __future__ import annotations

import argparse

from scorekit.leaderboards.scorecard_options import add_arguments  # noqa: F401 - the options, their checks beside them

HELP = "good/bad threshold scores per metric, rolled up to benchmark, category and overall"
DESCRIPTION = (
    "Score lm-eval / lighteval results (files, or folders searched recursively) against a "
    "YAML config: per metric clip((value - bad) / (good - bad), 0, 1), then weighted means "
    "metric -> benchmark -> category -> overall. Missing values are never counted as 0: see "
    "--missing. See docs/scorecard.md."
)


def main(args: argparse.Namespace) -> int:
    from scorekit.leaderboards.scorecard_options import build
    from scorekit.files import emit, note

    out = build(args)
    emit(out.text, out.output)
    note(*out.notes)
    return 0
