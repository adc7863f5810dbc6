"""A leaderboard (:class:`scorekit.leaderboards.leaderboard.Leaderboard`) rendered: ``table``,
``markdown``, ``latex``, ``html``, ``csv`` (every interval in two columns) and ``json``."""

from __future__ import annotations

import math

from scorekit.leaderboards.leaderboard import Leaderboard
from scorekit.harness_outputs.identity import display_names
from scorekit.tables import render as render_table


def render(board: Leaderboard, fmt: str, *, raw: bool = False, digits: int = 2) -> str:
    """Text of the leaderboard in ``fmt``; JSON follows the documented shape."""
    rows, columns, bench_columns = board.rows, board.columns, board.bench_columns
    if fmt == "json":
        import orjson

        doc = board.to_json()
        try:
            return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"
        except orjson.JSONEncodeError:  # a lone surrogate (non-UTF-8 folder name): written escaped
            import json

            return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    header = ["Model"]
    for c in columns:  # every score with its 95% interval (stderr propagated, module leaderboard)
        header += [c, f"{c}_ci_low", f"{c}_ci_high"] if fmt == "csv" else [c, f"{c} 95% CI"]
    header.append("Tied with best")
    if raw:
        header += [f"{c} Raw" for c in bench_columns]
    any_missing = any(r.missing for r in rows)
    if any_missing:
        header.append("Missing")
    # a local path by its last folder, as compare and robustness show it; CSV keeps it whole
    names = [r.model for r in rows] if fmt == "csv" else display_names([r.model for r in rows])
    body = []
    for r, name in zip(rows, names):
        line = [name]
        cis = r.intervals()
        for c in columns:
            ci = cis.get(c)
            if fmt == "csv":
                line += [r.scores.get(c), ci[0] if ci else None, ci[1] if ci else None]
            else:
                line += [r.scores.get(c), f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else None]
        best = r.indistinguishable_from_best
        line.append(None if best is None else ("yes" if best else "no"))
        if raw:
            for c in bench_columns:
                v = r.raw.get(c)
                # raw values are fractions: show more decimals than the 0-100 scores
                line.append(v if fmt == "csv" or v is None or math.isnan(v) else f"{v:.{digits + 2}f}")
        if any_missing:
            line.append(", ".join(r.missing) if r.missing else ("" if fmt == "csv" else "-"))
        body.append(line)
    return render_table(header, body, fmt, digits=digits)
