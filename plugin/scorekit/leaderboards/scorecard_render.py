"""The scorecard (ranked rows of :func:`scorekit.leaderboards.scorecard.build_scorecard`) rendered:
``table``, ``markdown``, ``latex``, ``html``, ``csv`` to the level ``detail`` asks, and ``json``
with every level (docs/scorecard.md)."""

from __future__ import annotations

import json
import math
from typing import Any

from scorekit.tables import render as render_table

PARTIAL_MARK = "*"


def _columns(config, detail: str) -> list[tuple[str, Any]]:
    """(header, getter) pairs; a getter maps a scored model to its node dict."""
    cols: list[tuple[str, Any]] = [("Overall", lambda m: m)]
    for cat in config.categories:
        cols.append((cat.name, lambda m, c=cat.name: m["categories"][c]))
    if detail in ("benchmark", "metric"):
        for b in config.benchmarks:
            cols.append((b.path, lambda m, c=b.category, n=b.name: m["categories"][c]["benchmarks"][n]))
    if detail == "metric":
        for s in config.metrics:
            cols.append(
                (s.path, lambda m, c=s.category, b=s.benchmark, n=s.name: m["categories"][c]["benchmarks"][b]["metrics"][n])
            )
    return cols


def render(
    scored: list[dict[str, Any]], config, fmt: str, *, detail: str = "category", digits: int = 3, policy: str = "partial"
) -> str:
    """Text of the scores in ``fmt``; JSON holds every level (see docs/scorecard.md)."""
    if fmt == "json":
        doc = {"config": config.path, "missing_policy": policy, "models": _json_safe(scored)}
        return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    cols = _columns(config, detail)
    ci_cols = ["Overall_ci_low", "Overall_ci_high"] if fmt == "csv" else ["Overall 95% CI"]
    header = ["Model"] + [h for h, _ in cols[:1]] + ci_cols + ["Tied with best"] + [h for h, _ in cols[1:]] + ["Missing"]
    rows = []
    any_partial = False
    for m in scored:
        row: list[Any] = [m["model"]]
        for _, get in cols:
            node = get(m)
            score = node["overall"] if node is m else node["score"]
            if fmt == "csv":
                row.append(score)
            elif score is None:
                row.append("-")
            else:
                mark = PARTIAL_MARK if isinstance(node.get("missing"), dict) and node["missing"] else ""
                any_partial = any_partial or bool(mark)
                row.append(f"{score:.{digits}f}{mark}")
            if node is m:  # the overall score's interval (stderr propagated, threshold.roll_up_stderr)
                lo, hi = m.get("overall_ci_low"), m.get("overall_ci_high")
                if fmt == "csv":
                    row += [lo, hi]
                else:
                    row.append("-" if lo is None else f"[{lo:.{digits}f}, {hi:.{digits}f}]")
                tied = m.get("indistinguishable_from_best")
                row.append(tied if fmt == "csv" else ("-" if tied is None else ("yes" if tied else "no")))
        # narrow terminal table: paths only (reasons: stderr notes, json)
        missing = ", ".join(m["missing"]) if fmt == "table" else "; ".join(f"{p} ({r})" for p, r in m["missing"].items())
        row.append(missing if missing or fmt == "csv" else "-")
        rows.append(row)
    text = render_table(header, rows, fmt, digits=digits)
    if any_partial and fmt in ("table", "markdown"):
        text += f"\n{PARTIAL_MARK} partial: computed without the metrics under Missing (weights renormalized)\n"
    return text


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value
