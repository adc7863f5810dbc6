"""``scorekit compare``'s options: declared, and checked before any run is read."""

from __future__ import annotations

import argparse
from pathlib import Path

from scorekit.checks import add_bootstrap, check_bootstrap
from scorekit.errors import ScorekitError
from scorekit.files import check_output
from scorekit.tables import FORMATS


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders or samples files")
    p.add_argument("--values", action="store_true",
                   help="show each run's values with their intervals instead of the paired comparisons")
    p.add_argument("--label", action="append", metavar="NAME",
                   help="name a run in the tables (once per RUN, in order; default: its model, a local path "
                        "shown by its last folder; JSON keeps the full model name)")
    p.add_argument("--format", "-f", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    add_bootstrap(p, "bootstrap seed (default: 0; results are reproducible)")


def check_options(args: argparse.Namespace) -> tuple[Path | None, list[str] | None]:
    """``--output`` checked, the bootstrap's options, and the ``--label`` of each run (None: not given)."""
    output = check_output(args.output, args.runs)
    check_bootstrap(args)
    return output, check_labels(args.label, len(args.runs))


def check_labels(labels: list[str] | None, n_runs: int) -> list[str] | None:
    """``--label`` given once per RUN, each non-empty and its own (None: not given)."""
    if labels is not None:
        if len(labels) != n_runs:
            raise ScorekitError(f"--label given {len(labels)} time(s) for {n_runs} run(s): give one per RUN, in order")
        if any(not label.strip() for label in labels) or len(set(labels)) != len(labels):
            raise ScorekitError("--label: each run needs its own non-empty label")
    return labels
