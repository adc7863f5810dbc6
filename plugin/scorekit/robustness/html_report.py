"""The SCORE robustness report as ONE self-contained HTML file (``report.html``).

Everything is inside the file: the tables of :mod:`scorekit.robustness.report_tables` (whatever
columns they have), the plots of :mod:`scorekit.robustness.plots` as base64 PNG ``data:``
URLs, the notes, and a small inline stylesheet. No script, font, stylesheet or image is
fetched from anywhere, so the file opens the same offline, from an e-mail or from CI
artifacts. Every model name, value and note is escaped.

Without matplotlib the page has no plots and says so in a note.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from typing import Any, NamedTuple

__all__ = ["render_html", "Section"]

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto;
       max-width: 75rem; padding: 0 1rem; color: #1b1b1b; line-height: 1.4; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; }
p.intro { color: #444; margin: 0.2rem 0; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: right; }
th { background: #f0f3f7; } td:first-child, th:first-child { text-align: left; }
tbody tr:nth-child(even) { background: #fafafa; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #444; font-size: 0.9rem; }
ul.notes { font-size: 0.85rem; color: #333; }
"""


class Section(NamedTuple):
    """An extra part of the page: a heading (escaped here) and HTML the caller built with
    :func:`scorekit.tables.render` (which escapes its cells)."""

    heading: str
    body_html: str


def _image(name: str, caption: str, png: bytes) -> str:
    data = base64.b64encode(png).decode("ascii")
    return (f'<figure id="{html.escape(name)}"><img alt="{html.escape(caption)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}</figcaption></figure>')


def render_html(report: Any, *, title: str = "SCORE robustness", intro: Sequence[str] = (),
                sections: Sequence[Section] = (), plots: bool = True) -> str:
    """The whole page for ``report`` (a :class:`scorekit.robustness.report_data.Report`).

    ``intro`` lines are shown under the title (escaped); ``sections`` follow the robustness
    tables; ``plots=False`` leaves the figures out. Layout: title, intro, the robustness
    tables, the figures, the sections, then every note of :func:`notes_lines` (plus one when
    matplotlib is missing).
    """
    from scorekit.robustness.report_data import report_to_json
    from scorekit.robustness.report_tables import notes_lines, tables
    from scorekit.tables import html_document, render

    out = [f'<p class="intro">{html.escape(line)}</p>' for line in intro]
    out += [render(columns, rows, "html", title=caption) for caption, columns, rows in tables(report)]
    notes = list(notes_lines(report))
    if plots:
        try:
            from scorekit.robustness.plots import report_plots

            figures = report_plots(report_to_json(report))
        except ImportError:
            figures = []
            notes.append('plots left out: they need matplotlib (pip install "scorekit[plots]")')
        if figures:
            out.append("<h2>Plots</h2>")
            out.extend(_image(p.name, p.caption, p.png) for p in figures)
    for section in sections:
        out.extend((f"<h2>{html.escape(section.heading)}</h2>", section.body_html))
    return html_document(title, out, notes=notes, style=_STYLE)
