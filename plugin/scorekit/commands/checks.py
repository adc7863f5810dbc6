"""Checks of command-line values that argparse's types cannot express, shared by the commands.

Each raises :class:`~scorekit.errors.ScorekitError` (one line, exit code 2) naming the option.
"""

from __future__ import annotations

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
