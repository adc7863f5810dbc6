"""The SCORE robustness report rendered: ``table`` (rich text), ``markdown``, ``latex``
(booktabs), ``csv`` (long format), ``json`` and ``html`` (:mod:`scorekit.robustness.html_report`)."""

from __future__ import annotations

import json

from scorekit.robustness.report_data import Report, report_to_json
from scorekit.robustness.report_tables import long_rows, notes_lines, tables
from scorekit.tables import FORMATS, Fmt, markdown_escape, render, text_escape


def render_report(report: Report, fmt: Fmt = "table") -> str:
    """The report as ``table`` (rich text), ``markdown``, ``html`` (one self-contained page with
    tables, plots and notes: :mod:`scorekit.robustness.html_report`), ``latex`` (booktabs
    tables), ``csv`` (long format) or ``json``."""
    if fmt == "json":
        return json.dumps(report_to_json(report), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    if fmt == "csv":
        return render(*long_rows(report), "csv")
    if fmt == "html":
        from scorekit.robustness.html_report import render_html

        return render_html(report)
    if fmt not in ("table", "markdown", "latex"):
        raise ValueError(f"unknown format {fmt!r}; choose one of {FORMATS}")
    parts = [render(columns, rows, fmt, title=title) for title, columns, rows in tables(report)]
    lines = notes_lines(report)  # notes hold model and file names: escaped for the format below
    if lines and fmt != "latex":  # latex: the tables only (notes go to stderr, as for csv)
        if fmt == "markdown":
            parts.append("### Notes\n\n" + "\n".join(f"- {markdown_escape(line)}" for line in lines) + "\n")
        else:
            parts.append("Notes:\n" + "\n".join(f"  - {text_escape(line)}" for line in lines) + "\n")
    return "\n".join(parts)
