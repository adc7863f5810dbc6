"""What ``scorekit compare`` shows, as data (the JSON's source): the runs, their paired
comparisons and each run's values, and the notes. Rendered by :mod:`scorekit.compare.render`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorekit.compare.core import Comparison, Run, Value, compare_runs, run_values
from scorekit.errors import ScorekitError


@dataclass
class CompareReport:
    runs: list[Run]
    comparisons: list[Comparison]
    values: list[Value]
    notes: list[str]
    show_values: bool  # the values are the table shown (one run, or --values); JSON holds both lists
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {"runs": [{"label": r.label, "model": r.model, "source": r.source} for r in self.runs],
                "comparisons": [c.to_json() for c in self.comparisons],
                "values": [v.to_json() for v in self.values], "notes": self.notes}


def build_comparison(runs: list[Run], *, show_values: bool, with_values: bool, confidence: float = 0.95,
                     n_boot: int = 2000, seed: int = 0) -> CompareReport:
    """Every pair of ``runs`` compared (when there are two or more) and, with ``show_values``
    (one run) or ``with_values`` (JSON), each run's values; the reading and pairing notes.

    Raises :class:`ScorekitError` when nothing would be shown: no shared task and metric with
    common questions (the pairing notes say why), or no per-question values at all."""
    notes = [f"{r.label} ({r.source}): {n}" for r in runs for n in r.notes]
    shown = {r.label: r.model for r in runs if r.label.rsplit("#", 1)[0] != r.model}  # a local path, or --label
    if shown:
        notes.append("runs labelled: " + "; ".join(f"{label} = {model}" for label, model in shown.items()))
    show_values = show_values or len(runs) == 1
    values: list[Value] = []  # the values table is shown, or is the JSON's second list; else not computed
    if show_values or with_values:
        values, value_notes = run_values(runs, confidence=confidence, n_boot=n_boot, seed=seed)
        notes.extend(value_notes)
    comparisons: list[Comparison] = []
    if len(runs) > 1:
        comparisons, pair_notes = compare_runs(runs, confidence=confidence, n_boot=n_boot, seed=seed)
        notes.extend(pair_notes)
        if not comparisons and not show_values:  # the cause is in the pairing notes, not in what reading said
            said = "; ".join(pair_notes[:3]) + (f"; and {len(pair_notes) - 3} more" if len(pair_notes) > 3 else "")
            raise ScorekitError("the runs share no task and metric with common questions; nothing to compare"
                                + (f" ({said})" if said else ""))
    if show_values and not values:
        raise ScorekitError("no per-question values found in the samples logs; nothing to show")
    return CompareReport(list(runs), comparisons, values, notes, show_values, confidence)
