"""The ``scorekit`` command line: a thin dispatcher over :mod:`scorekit.commands`.

Each subcommand lives in its own module exposing ``add_parser(subparsers)``, which adds a
parser whose ``func`` default is called with the parsed arguments and returns an exit code.
Subcommand modules import their heavy dependencies inside ``run`` so ``scorekit --help``
stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from scorekit import __version__
from scorekit.errors import ScorekitError

# Order here is the order in ``scorekit --help``.
COMMAND_MODULES: tuple[str, ...] = (
    "scorekit.commands.paths",
    "scorekit.commands.leaderboard",
    "scorekit.commands.lighteval_offline",
    "scorekit.commands.rank",
    "scorekit.commands.score",
    "scorekit.commands.robustness",
    "scorekit.commands.compare",
    "scorekit.commands.demo",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scorekit",
        description=(
            "Robustness and consistency metrics, SCORE robustness tasks and leaderboard-exact "
            "aggregation for lm-evaluation-harness and lighteval outputs."
        ),
    )
    parser.add_argument("--version", action="version", version=f"scorekit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except ScorekitError as exc:
        print(f"scorekit: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # A file the user named could not be read or written (permissions, disk full, ...).
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"scorekit: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("scorekit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
