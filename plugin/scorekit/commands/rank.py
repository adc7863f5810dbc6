"""``scorekit rank [FILE]``: one ranking from many leaderboards' ranks by mean percentile."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

from scorekit.tables import FORMATS

DEFAULT_FILE = "ranks_general.txt"
SAMPLE_FILE = "ranking_sample.txt"


HELP = "aggregate per-leaderboard ranks into one ranking (mean percentile, sparse-data penalty)"
DESCRIPTION = (
    "Read benchmark dictionaries name={model: rank or None, ..., 'known_totals': N} and a "
    "final cost dictionary, and print models best first by mean percentile rank/known_totals, "
    "plus 0.25 for models on 1 benchmark and 0.10 on 2. Ties: more benchmarks first, then "
    "model name. 95% intervals of the average and the std, a rank range and a 'tied with best' "
    "column come from the spread of each model's percentiles across the leaderboards (Student t, "
    "chi-square, Welch; docs/uncertainty.md). The file is parsed as literals only and never runs code. "
    "See docs/rank.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", default=DEFAULT_FILE, metavar="FILE", help=f"input file (default: {DEFAULT_FILE})")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table, the ASCII table)")
    p.add_argument("--output", metavar="FILE", help="write to FILE (atomically) instead of standard output")


def run(args: argparse.Namespace) -> int:
    from scorekit.aggregate import rank
    from scorekit.errors import ScorekitError, listed
    from scorekit.files import check_output, emit, note
    from scorekit.resources import config_path

    path = Path(args.file)
    if not os.path.lexists(path):  # the file, the usage and how to run the shipped example, on one line
        try:
            sample = str(config_path(SAMPLE_FILE))
        except FileNotFoundError:
            sample = SAMPLE_FILE
        raise ScorekitError(f"file not found (usage: scorekit rank [FILE], FILE defaults to {DEFAULT_FILE}; "
                            f"for an example run: scorekit rank {shlex.quote(sample)})", path=args.file)
    output = check_output(args.output, [path])
    data = rank.read_rank_file(path)
    rows = rank.compute_ranking(data)
    if not rows:
        raise ScorekitError("no model has a rank in any benchmark: nothing to rank", path=path)
    text = rank.render_ranking(rows, args.format)
    emit(text, output)
    for models, why in (
        (rank.unranked_models(data), "have no rank in any benchmark (all None) and are left out"),
        (rank.costs_without_ranks(data), "have a cost but no rank in any benchmark and are not shown"),
        ([r.model for r in rows if r.score_ci is None],
         "are on one benchmark only: one percentile shows no spread, so they have no intervals (N/A) and "
         "are never counted as ahead of or behind another model"),
    ):
        if models:
            note(f"{len(models)} model(s) {why}: {listed(models)}", prefix="scorekit rank: note: ")
    with_ci = sum(r.score_ci is not None for r in rows)
    if with_ci > rank.RANK_RANGE_MODELS_MAX:
        note(f"{with_ci} models have intervals, more than {rank.RANK_RANGE_MODELS_MAX}: their rank ranges (every "
             "pair compared) are left out (N/A); the other columns are complete", prefix="scorekit rank: note: ")
    return 0
