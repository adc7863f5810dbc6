"""``scorekit compare``'s report rendered: ``table``, ``markdown``, ``latex``, ``html``, ``csv``
(every field, one row per comparison or value) and ``json``
(:meth:`scorekit.compare.report.CompareReport.to_json`)."""

from __future__ import annotations

import json

from scorekit.compare.report import CompareReport
from scorekit.tables import render as render_table
from scorekit.tables import render_with_notes


def _p_text(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


COMPARISON_FIELDS = ["task", "metric", "a", "b", "n_paired", "a_value", "b_value", "difference", "ci_low", "ci_high",
                     "p_value", "p_value_adjusted_pairs", "p_value_adjusted", "family", "test",
                     "min_detectable_difference", "kind", "a_only", "b_only", "note"]
VALUE_FIELDS = ["task", "metric", "run", "model", "n", "value", "ci_low", "ci_high", "method", "kind", "note"]
_FAMILY_TITLE = {"logged": "Paired comparison of the metrics in the logs",
                 "derived": "Paired comparison of pass@k derived from the epochs (a Holm family of its own)"}


def _comparison_table(comparisons: list, level: str, several_pairs: bool, family: str) -> tuple[list[str], list[list], str]:
    """(columns, rows, title) of one Holm family's comparisons."""
    columns = ["task", "metric", "a", "b", "n", "a value", "b value", "difference", f"{level} CI", "p",
               *(["p adj. (pairs)"] if several_pairs else []), "p adj. (table)", "test", "MDD (80%)"]
    rows = []
    for c in comparisons:
        d = c.to_json()
        ci = "-" if d["ci_low"] is None else f"[{c.ci_low:+.3f}, {c.ci_high:+.3f}]"
        diff = "-" if d["difference"] is None else f"{c.difference:+.3f}"
        mdd = "-" if d["min_detectable_difference"] is None else f"{c.min_detectable_difference:.3f}"
        pairs = [_p_text(d["p_value_adjusted_pairs"])] if several_pairs else []
        rows.append([c.task, c.metric, c.a, c.b, c.n_paired, c.a_value, c.b_value, diff, ci, _p_text(d["p_value"]),
                     *pairs, _p_text(d["p_value_adjusted"]), c.test, mdd])
    tested = sum(c.to_json()["p_value"] is not None for c in comparisons)
    title = (f"{_FAMILY_TITLE[family]}. p: exact McNemar for 0/1 metrics, box of spread intervals for "
             "spreads, else paired bootstrap; it agrees with the CI beside it"
             + ("; p adj. (pairs): Holm over the pairs of runs of each task and metric" if several_pairs else "")
             + f"; p adj. (table): Holm over the {tested} p-value(s) of this table"
             + "; MDD: smallest difference detectable with 80% power; -: not given, the notes say why")
    return columns, rows, title


def render(report: CompareReport, fmt: str) -> str:
    """The comparison rows (or with ``show_values`` the values rows) in ``fmt``; JSON is
    ``{"runs": [...], "comparisons": [...], "values": [...], "notes": [...]}`` whatever
    ``show_values`` says. Comparisons of derived pass@k rows (their own Holm family) are a
    table of their own in the text formats and have ``family: "derived"`` in CSV and JSON."""
    if fmt == "json":
        return json.dumps(report.to_json(), indent=2) + "\n"
    comparisons, values, notes, show_values = report.comparisons, report.values, report.notes, report.show_values
    level = f"{report.confidence:.0%}"
    if fmt == "csv":  # every field, nan empty
        fields = VALUE_FIELDS if show_values else COMPARISON_FIELDS
        return render_table(fields, [[x.to_json()[k] for k in fields] for x in (values if show_values else comparisons)], "csv")
    if show_values:
        title = f"Values on each run's questions ({level} intervals over questions; -: not given, the notes say why)"
        columns = ["task", "metric", "run", "n", "value", f"{level} CI", "method"]
        rows = [[v.task, v.metric, v.run, v.n, v.value,
                 "-" if v.to_json()["ci_low"] is None else f"[{v.ci_low:.3f}, {v.ci_high:.3f}]", v.method]
                for v in values]
        tables = [(columns, rows, title)]
    else:
        several_pairs = len({(c.a, c.b) for c in comparisons}) > 1
        tables = [_comparison_table(members, level, several_pairs, family)
                  for family in ("logged", "derived") if (members := [c for c in comparisons if c.family == family])]
    return render_with_notes(tables, fmt, notes=notes, page="scorekit compare", digits=3)
