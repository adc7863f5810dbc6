"""``scorekit plan``'s answer (the JSON of :func:`scorekit.compare.plan.plan`, or of
:func:`scorekit.robustness.plan_budget.plan_robustness` with ``--robustness``) rendered: JSON,
or one table in the other formats with its notes (after the table in table and markdown, the
page's notes in html, standard error for csv and latex)."""

from __future__ import annotations

import json
from typing import Any

from scorekit.tables import render_with_notes

TITLE = "scorekit plan (paired comparison of two models)"


def render(out: dict[str, Any], fmt: str) -> str:
    """``out`` as JSON, or as one table: (quantity, value) for a paired comparison, one row per
    budget (and quantile) for ``--robustness``."""
    if fmt == "json":
        return json.dumps(out, indent=2) + "\n"
    table = _robustness_table(out) if out.get("robustness") else _table(out)
    return render_with_notes([table], fmt, notes=plan_notes(out), page="scorekit plan", digits=4)


def plan_notes(out: dict[str, Any]) -> list[str]:
    """The notes; with ``--robustness --pilot`` after a line saying what the pilot was."""
    pilot = out.get("pilot") if out.get("robustness") else None
    lines = list(out.get("notes") or [])
    if pilot:
        lines.insert(0, f"pilot: {pilot['task']} ({pilot['family']}), {pilot['model']}, {pilot['questions']} questions, "
                        + ("full run" if pilot["design"] is None else
                           f"budgeted ({pilot['design']['per_question']} of {pilot['design']['variants']})"))
    return lines


def _table(out: dict[str, Any]) -> tuple[list[str], list[list[Any]], str]:
    rows: list[list[Any]] = []
    for key, value in out.items():
        if key == "notes":
            continue
        if isinstance(value, dict):
            rows.extend([f"{key}.{k}", v] for k, v in value.items())
        else:
            rows.append([key, "-" if value is None else value])
    return ["quantity", "value"], rows, TITLE


def _robustness_table(out: dict[str, Any]) -> tuple[list[str], list[list[Any]], str]:
    quantiles = out["target"] == "quantiles"
    columns = [*(["quantile"] if quantiles else []), "variants per question", "questions", "evaluations",
               "half-width"]
    rows = [[*([r["quantile"]] if quantiles else []), r["per_question"], r["questions"], r["evaluations"],
             r["half_width"]] for r in out["rows"]]
    what = "consistency rate" if not quantiles else "quantiles of accuracy across variants"
    pct = round(out["confidence"] * 100)
    title = (f"scorekit plan --robustness: {what}, {pct}% interval of half-width {out['half_width']}, "
             f"{out['variants']} variants")
    return columns, rows, title
