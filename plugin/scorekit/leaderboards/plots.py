"""Bar chart of leaderboard rows (needs the ``plots`` extra: matplotlib, Agg backend)."""

from __future__ import annotations

import io
from typing import Sequence

from scorekit.errors import ScorekitError, one_line


def _label(text: str) -> str:
    """A user's string as literal plot text: ``$`` would start matplotlib's math mode."""
    return one_line(text).replace("$", r"\$")


def leaderboard_png(rows: Sequence, columns: Sequence[str], *, title: str | None = None, fmt: str = "png") -> bytes:
    """Grouped bars: one group per model, one bar per column (normalized score, 0-100).

    Missing columns are drawn as no bar and marked ``n/a`` at the baseline. Returns the image
    bytes in ``fmt`` (any format matplotlib's ``savefig`` knows), so callers write it atomically.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError:
        raise ScorekitError("--plot needs matplotlib: pip install 'scorekit[plots]'") from None

    n_models, n_cols = len(rows), len(columns)
    width = 0.8 / max(n_cols, 1)
    x = np.arange(n_models)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.0 + n_models * (0.25 * n_cols + 0.4)), 4.5), layout="constrained")
    try:
        cmap = plt.get_cmap("tab10")
        for j, col in enumerate(columns):
            vals = np.array([np.nan if r.scores.get(col) is None else r.scores[col] for r in rows], dtype=float)
            pos = x - 0.4 + width * (j + 0.5)
            ax.bar(pos, np.nan_to_num(vals, nan=0.0), width, label=_label(col), color=cmap(j % 10))
            for p in pos[np.isnan(vals)]:
                ax.text(p, 0.5, "n/a", rotation=90, ha="center", va="bottom", fontsize=7)
        ax.set_xticks(x, [_label(r.model) for r in rows], rotation=30 if n_models > 3 else 0, ha="right" if n_models > 3 else "center")
        ax.set_ylabel("normalized score (0-100)")
        ax.set_ylim(0, 100)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(ncols=min(n_cols, 4), fontsize=8, loc="upper right")
        if title:
            ax.set_title(_label(title))
        buf = io.BytesIO()
        try:
            fig.savefig(buf, format=fmt, dpi=120)
        except ValueError as exc:  # a format this matplotlib cannot write
            raise ScorekitError(f"--plot: cannot write {fmt!r} images: {one_line(str(exc))}") from None
    finally:
        plt.close(fig)
    return buf.getvalue()
