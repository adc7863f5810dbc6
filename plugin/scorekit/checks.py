"""Checks of command-line values that argparse's types cannot express, shared by the commands.

Each raises :class:`~scorekit.errors.ScorekitError` (one line, exit code 2) naming the option.
"""

from __future__ import annotations

import argparse
import os

from scorekit.errors import ScorekitError, shown

DIGITS_MAX = 15  # a double holds about 15-17 significant decimal digits
SEED_MAX = 2**32 - 1  # numpy's and lm-eval's seeds are unsigned 32-bit
# matplotlib's savefig formats with the Agg backend (matplotlib.figure.Figure.canvas.get_supported_filetypes())
PLOT_FORMATS = ("avif", "eps", "gif", "jpeg", "jpg", "pdf", "pgf", "png", "ps", "raw", "rgba", "svg", "svgz", "tif", "tiff", "webp")


def check_digits(value: int, option: str = "--digits") -> int:
    """``value`` when 0 <= value <= :data:`DIGITS_MAX`."""
    if not 0 <= value <= DIGITS_MAX:
        raise ScorekitError(f"{option} must be between 0 and {DIGITS_MAX}, got {shown(value)}")
    return value


def check_seed(value: int, option: str = "--seed") -> int:
    """``value`` when 0 <= value <= 2**32 - 1 (the range numpy and lm-eval accept)."""
    if not 0 <= value <= SEED_MAX:
        raise ScorekitError(f"{option} must be between 0 and {SEED_MAX}, got {shown(value)}")
    return value


def check_plot(path: str, option: str = "--plot") -> str:
    """The image format of ``path`` from its suffix (``png`` without one); an unknown suffix
    is refused before any work is done."""
    suffix = os.path.splitext(path)[1].lstrip(".").lower()
    fmt = suffix or "png"
    if fmt not in PLOT_FORMATS:
        raise ScorekitError(f"{option}: unknown image format {shown(suffix)} (use one of {', '.join(PLOT_FORMATS)})", path=path)
    return fmt


def add_bootstrap(p: argparse.ArgumentParser, seed_help: str) -> None:
    """``--confidence``, ``--n-boot`` and ``--seed``, for the commands that compute intervals."""
    p.add_argument("--confidence", type=float, default=0.95, help="interval confidence level (default: 0.95)")
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap draws (default: 2000)")
    p.add_argument("--seed", type=int, default=0, help=seed_help)


def add_allow_code(p: argparse.ArgumentParser) -> None:
    """``--allow-code``, for the commands that read a scoring config."""
    p.add_argument("--allow-code", action="store_true",
                   help="let the config's normalizer import a .py module that sits beside the config (runs that code); "
                   "without it only installed modules are imported")


def check_confidence(value: float) -> float:
    """``value`` when 0 < value < 1."""
    if not 0 < value < 1:
        raise ScorekitError(f"--confidence must be between 0 and 1, got {value}")
    return value


def check_bootstrap(args: argparse.Namespace) -> None:
    """The values of :func:`add_bootstrap`: the seed, the confidence, 100 <= n-boot <= 100000."""
    check_seed(args.seed)
    check_confidence(args.confidence)
    if not 100 <= args.n_boot <= 100_000:
        raise ScorekitError(f"--n-boot must be between 100 and 100000, got {args.n_boot}")
