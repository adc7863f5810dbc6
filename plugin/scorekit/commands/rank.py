"""``scorekit rank [FILE]``: one ranking from many leaderboards' ranks by mean percentile."""

from __future__ import annotations

import argparse

from scorekit.tables import FORMATS

DEFAULT_FILE = "ranks_general.txt"


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


def main(args: argparse.Namespace) -> int:
    from scorekit.leaderboards import rank
    from scorekit.errors import ScorekitError
    from scorekit.files import check_output, emit, note

    path = rank.rank_file(args.file, DEFAULT_FILE)
    output = check_output(args.output, [path])
    data = rank.read_rank_file(path)
    rows = rank.compute_ranking(data)
    if not rows:
        raise ScorekitError("no model has a rank in any benchmark: nothing to rank", path=path)
    emit(rank.render_ranking(rows, args.format), output)
    note(*rank.ranking_notes(data, rows), prefix="scorekit rank: note: ")
    return 0
