"""The ``scorekit`` command line: a thin dispatcher over :mod:`scorekit.commands`.

Each subcommand lives in its own module (named as the command, ``-`` written ``_``) exposing
``HELP``, ``DESCRIPTION``, ``add_arguments(parser)`` and ``main(args)``, which is called with the
parsed arguments and returns an exit code; a module that adds several parsers exposes
``add_parser(subparsers)`` instead. Subcommand modules import their heavy dependencies inside
``main`` so ``scorekit --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from scorekit import __version__
from scorekit import cli_options as options
from scorekit.errors import ScorekitError, one_line
from scorekit.files import note, silence_stdout

# Order here is the order in ``scorekit --help``.
COMMAND_MODULES: tuple[str, ...] = (
    "scorekit.commands.paths",
    "scorekit.commands.leaderboard",
    "scorekit.commands.lighteval_offline",
    "scorekit.commands.rank",
    "scorekit.commands.scorecard",
    "scorekit.commands.robustness",
    "scorekit.commands.variants",
    "scorekit.commands.compare",
    "scorekit.commands.export",
    "scorekit.commands.plan",
    "scorekit.commands.demo",
)


class _CommandParser(argparse.ArgumentParser):
    """A command's parser, with the options every command has: ``-v`` / ``--verbose``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.add_argument("-v", "--verbose", action="store_true",
                          help="notes list every name and case (default: the first ten, then 'and N more')")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scorekit",
        description=(
            "Robustness and consistency metrics, SCORE robustness tasks and leaderboard-exact "
            "aggregation for lm-evaluation-harness and lighteval outputs."
        ),
    )
    parser.add_argument("--version", action="version", version=f"scorekit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(module_name)
        if hasattr(module, "add_parser"):
            module.add_parser(subparsers)
            continue
        p = subparsers.add_parser(module_name.rsplit(".", 1)[1].replace("_", "-"), help=module.HELP,
                                  description=module.DESCRIPTION)
        module.add_arguments(p)
        p.set_defaults(func=module.main)
    options.apply_spellings(parser)  # -o/-f, lm-eval's spellings and old names, for every command
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure the user can cause ends as one line on stderr.

    Exit codes: 0 success, 2 bad input or arguments (``scorekit: error: ...``), 130 interrupted
    (Ctrl-C), 0 when the reader of standard output went away (``| head``).
    """
    from scorekit import errors

    names_shown = errors.NAMES_SHOWN  # -v lists every name in notes, for this call only
    try:
        parser = build_parser()
        args, extras = parser.parse_known_args(argv)
        command = getattr(args, "command", None)
        if extras:
            raise ScorekitError(options.unknown_arguments(parser, command, extras))
        note(*options.renamed_notes(command, sys.argv[1:] if argv is None else argv))
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        if args.verbose:
            errors.NAMES_SHOWN = None
        return int(args.func(args) or 0)
    except ScorekitError as exc:
        _error(str(exc))
        return 2
    except BrokenPipeError:
        silence_stdout()
        return 0
    except OSError as exc:
        # A file the user named could not be read or written (permissions, disk full, ...).
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        if not where:  # most likely standard output (a plain print): do not fail again at exit
            silence_stdout()
        _error(f"{where}{exc.strerror or exc}")
        return 2
    except KeyboardInterrupt:
        _error("interrupted", kind="")
        return 130
    except RecursionError:
        _error("input nested too deeply to process")
        return 2
    except MemoryError:
        _error("out of memory (is an input file unexpectedly large or deeply repetitive?)")
        return 2
    finally:
        errors.NAMES_SHOWN = names_shown


def _error(message: str, kind: str = "error: ") -> None:
    try:
        sys.stderr.write(f"scorekit: {kind}{one_line(message)}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr itself is gone: the exit code still says it
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
