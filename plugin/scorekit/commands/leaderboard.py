"""``scorekit leaderboard PATH...``: Open LLM Leaderboard v2 columns (or any config's) from lm-eval /
lighteval results files, built by :mod:`scorekit.leaderboards.leaderboard_options`. Output (stdout or
``--output``) is the table; notes go to stderr. Everything is rendered in memory first and written
atomically, so an error never leaves a partial file."""

from __future__ import annotations

import argparse

from scorekit.leaderboards.leaderboard_options import add_arguments  # noqa: F401 - the options, their checks beside them


HELP = "Open LLM Leaderboard v2 columns (IFEval ... Average) from results files"
DESCRIPTION = (
    "Compute the Open LLM Leaderboard v2 columns exactly as the leaderboard does, from "
    "lm-eval and lighteval results JSON files (files, or folders searched recursively). "
    "Files of one model are merged; a task found twice is taken from the newest file "
    "(time in the file name, else lm-eval's 'date', else modification time). A model "
    "missing a benchmark is listed with what is missing and no Average."
)


def main(args: argparse.Namespace) -> int:
    from scorekit.leaderboards.leaderboard_options import build, convert
    from scorekit.files import emit, note, write_bytes_atomic

    if args.convert:
        emit(*convert(args))
        return 0
    out = build(args)
    # the main output, then the side output (each atomically), then the notes: a failing --output leaves no plot behind
    emit(out.text, out.output)
    if out.image is not None:
        write_bytes_atomic(args.plot, out.image)
    note(*out.notes)
    return 0
