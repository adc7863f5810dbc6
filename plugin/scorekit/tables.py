"""Render a simple table (column names + rows) as text, markdown, CSV, HTML or LaTeX.

Commands build their rows once and choose the format at the end; JSON output is shaped by
each command itself, since its structure is part of that command's contract.

Every cell, header and title is a user's string (model names, config names, file names) and is
escaped here for its format, so renderers elsewhere need no escaping of their own:
:func:`text_escape` (terminal text: control characters as backslash escapes; rich markup is
never parsed), :func:`markdown_escape` (also ``\\`` and ``|``) and :func:`html_escape` (also
``<>&"'``). CSV is quoted by the :mod:`csv` module.
"""

from __future__ import annotations

import csv
import html
import io
import math
from typing import Any, Literal, Sequence, get_args

from scorekit.errors import one_line

# Every command's --format choices, in the order --help lists them (JSON is shaped per command).
Fmt = Literal["table", "markdown", "csv", "json", "html", "latex"]
FORMATS: tuple[Fmt, ...] = get_args(Fmt)
TEXT_FORMATS = tuple(f for f in FORMATS if f != "json")
__all__ = ["Fmt", "FORMATS", "TEXT_FORMATS", "format_cell", "render", "html_document", "latex_table", "text_escape", "markdown_escape", "html_escape"]


def text_escape(text: str) -> str:
    """``text`` for a terminal or a plain-text table: newlines, tabs, escape sequences and other
    control characters shown as backslash escapes, so a row stays one row.

    >>> text_escape("org/model[v2]\\nx")
    'org/model[v2]\\\\nx'
    """
    return one_line(text)


def markdown_escape(text: str) -> str:
    """``text`` for a markdown table cell: :func:`text_escape`, then ``\\`` and ``|`` escaped.

    >>> markdown_escape("a|b")
    'a\\\\|b'
    """
    return one_line(text).replace("\\", "\\\\").replace("|", "\\|")


def html_escape(text: str) -> str:
    """``text`` for HTML: :func:`text_escape`, then ``& < > " '`` as entities.

    >>> html_escape("<b>m[/]</b>")
    '&lt;b&gt;m[/]&lt;/b&gt;'
    """
    return html.escape(one_line(text))


def format_cell(value: Any, digits: int = 2) -> str:
    """Numbers with ``digits`` decimals; None and NaN as an empty-looking ``-``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def render(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: Fmt = "table",
    *,
    title: str | None = None,
    digits: int = 2,
) -> str:
    """Render ``rows`` under ``columns`` in ``fmt`` (one of :data:`TEXT_FORMATS`).

    CSV keeps full precision (``repr`` of floats) so it can be re-read exactly; the other
    formats round to ``digits`` decimals.
    """
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        # the csv module quotes a field holding "\n" (the line terminator) but not a lone "\r"
        quoted = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)
        for row in [list(columns), *rows]:
            cells = ["" if v is None else (repr(v) if isinstance(v, float) else v) for v in row]
            (quoted if any(isinstance(c, str) and "\r" in c for c in cells) else writer).writerow(cells)
        return buf.getvalue()
    cells = [[format_cell(v, digits) for v in row] for row in rows]
    if fmt == "latex":
        return latex_table(columns, cells, title=title)
    if fmt == "markdown":
        lines = ["| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in [columns, *cells]]
        out = [f"### {markdown_escape(title)}\n"] if title else []
        return "\n".join([*out, lines[0], "|" + "|".join(" --- " for _ in columns) + "|", *lines[1:]]) + "\n"
    if fmt == "html":
        out = ["<table>"]
        if title:
            out.append(f"<caption>{html_escape(title)}</caption>")
        out.append("<thead><tr>" + "".join(f"<th>{html_escape(c)}</th>" for c in columns) + "</tr></thead>")
        out.append("<tbody>")
        out += ["<tr>" + "".join(f"<td>{html_escape(c)}</td>" for c in row) + "</tr>" for row in cells]
        out.append("</tbody></table>")
        return "\n".join(out) + "\n"
    if fmt == "table":
        from rich import box
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        # Text objects: rich never reads user strings as markup ("m[/]", "org/model[v2]")
        table = Table(title=Text(text_escape(title)) if title else None, box=box.SIMPLE_HEAVY)
        for i, col in enumerate(columns):
            table.add_column(Text(text_escape(col)), justify="left" if i == 0 else "right")
        for row in cells:
            table.add_row(*(Text(text_escape(c)) for c in row))
        buf = io.StringIO()
        # wide enough for the widest cell of every column (cells like "0.33 [0.00, 0.50]" must not wrap)
        widths = [max([len(c)] + [len(row[i]) for row in cells if i < len(row)]) + 3 for i, c in enumerate(columns)]
        Console(file=buf, width=max(80, 14 * len(columns) + 20, sum(widths) + 4), color_system=None,
                force_terminal=False).print(table)
        return buf.getvalue()
    raise ValueError(f"unknown format {fmt!r}; choose one of {TEXT_FORMATS + ('json',)}")


def html_document(title: str, parts: Sequence[str], *, notes: Sequence[str] = (), style: str = "") -> str:
    """A whole HTML page: ``title`` as heading, the ``parts`` (HTML the caller built, e.g. tables
    from :func:`render`, which escape their own cells), then ``notes`` as a list; ``style`` is an
    inline stylesheet. Title and notes are escaped here."""
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{html_escape(title)}</title>", *([f"<style>{style}</style>"] if style else []),
           "</head>", "<body>", f"<h1>{html_escape(title)}</h1>"]
    out.extend(part.rstrip("\n") for part in parts)
    if notes:
        out += ["<h2>Notes</h2>", '<ul class="notes">', *(f"<li>{html_escape(note)}</li>" for note in notes), "</ul>"]
    out.extend(["</body>", "</html>"])
    return "\n".join(out) + "\n"


def render_with_notes(tables: Sequence[tuple[Sequence[str], Sequence[Sequence[Any]], str]], fmt: str, *,
                      notes: Sequence[str] = (), page: str, digits: int = 2) -> str:
    """``(columns, rows, title)`` tables in ``fmt`` with their notes: in ``html`` one page titled
    ``page`` with the notes at its foot; in ``table`` and ``markdown`` the notes follow the tables
    (``note: `` / ``- `` lines); ``csv`` and ``latex`` have no place for them (the caller says
    them on standard error)."""
    if fmt == "html":
        return html_document(page, [render(c, r, "html", title=t, digits=digits) for c, r, t in tables], notes=notes)
    text = "\n".join(render(c, r, fmt, title=t, digits=digits) for c, r, t in tables)
    if notes and fmt in ("table", "markdown"):
        bullet = "- " if fmt == "markdown" else "note: "
        text += "\n" + "\n".join(bullet + n for n in notes) + "\n"
    return text


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_table(columns: Sequence[str], cells: Sequence[Sequence[str]], *, title: str | None = None) -> str:
    """A booktabs ``tabular`` (``\\usepackage{booktabs}``) of already formatted cells: first
    column left-aligned, the others right-aligned; TeX's special characters escaped; the
    title, if any, as a ``%`` comment line (captions belong to the surrounding document)."""

    def tex(text: str) -> str:
        return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in one_line(str(text)))

    out = [f"% {one_line(title)}"] if title else []
    out += [r"\begin{tabular}{l" + "r" * (len(columns) - 1) + "}", r"\toprule", " & ".join(tex(c) for c in columns) + r" \\",
            r"\midrule", *(" & ".join(tex(c) for c in row) + r" \\" for row in cells), r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"
