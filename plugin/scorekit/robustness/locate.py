"""Name the file and line of a record that breaks a family's shape, for the error message.

:func:`scorekit.robustness.analysis.summarize` refuses a question whose records disagree on
``n_variants`` or repeat a variant, but it sees records only, not where they were read. When it
refuses, :func:`locate_conflict` finds the first such record again among the sample sets (in
the order they were merged) and, in a JSONL samples log, the line that holds it. This runs
only on the error path, so reading stays as fast as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from scorekit.errors import ScorekitError


def first_conflict(sets: Iterable[Any]) -> tuple[Any, str, int, int, str] | None:
    """``(sample set, question id, variant, n_variants, problem)`` of the first record that
    repeats a (question, variant) seen before, or disagrees with the question's first record on
    ``n_variants``; None when there is none. ``problem`` is ``"duplicate"`` or ``"n_variants"``."""
    seen: set[tuple[str, int]] = set()
    n_variants: dict[str, int] = {}
    for sample_set in sets:
        for rec in sample_set.records:
            first = n_variants.setdefault(rec.question_id, rec.n_variants)
            if first != rec.n_variants:
                return sample_set, rec.question_id, rec.variant, rec.n_variants, "n_variants"
            key = (rec.question_id, rec.variant)
            if key in seen:
                return sample_set, rec.question_id, rec.variant, rec.n_variants, "duplicate"
            seen.add(key)
    return None


def _line_of(path: Path, question_id: str, variant: int, n_variants: int, problem: str) -> int | None:
    """The 1-based line of a JSONL samples log whose ``doc`` (scorekit's layout) is the record:
    for a duplicate, the last line with that question and variant (the repeat, when both are in
    this file); for a disagreement, the first line of the question with that ``n_variants``."""
    from scorekit.files import loads_json

    found = None
    try:
        with open(path, "rb") as fh:
            for lineno, line in enumerate(fh, start=1):
                try:
                    doc = loads_json(line).get("doc")
                except (ScorekitError, AttributeError):
                    continue
                if not isinstance(doc, dict) or str(doc.get("question_id")) != question_id:
                    continue
                if problem == "n_variants" and doc.get("n_variants") == n_variants:
                    return lineno
                if problem == "duplicate" and doc.get("variant") == variant:
                    found = lineno
    except OSError:
        return None
    return found


def locate_conflict(error: ScorekitError, sets: list[Any]) -> ScorekitError:
    """``error`` (from ``summarize``) again, naming the samples file (and line, in a JSONL log in
    scorekit's layout) of the first conflicting record; ``error`` itself when none is found."""
    conflict = first_conflict(sets)
    if conflict is None:
        return error
    sample_set, question_id, variant, n_variants, problem = conflict
    for source in sample_set.sources:
        path = Path(source)
        line = _line_of(path, question_id, variant, n_variants, problem) if path.suffix == ".jsonl" else None
        if line is not None:
            return ScorekitError(str(error), path=source, where=f"line {line}")
    if sample_set.sources:
        return ScorekitError(str(error), path=", ".join(sample_set.sources))
    return error
