"""Asking the shipped SCORE tasks on a budget (written by :mod:`scorekit.lm_eval.score_suite_budget`).

:func:`select_docs`, called by :class:`scorekit.lm_eval.score_suite.SCORETask`: each question
keeps the documents of the B variants the seeded design gives it
(:func:`scorekit.robustness.budget.variants.select`), the design made over the row numbers 0..N-1
of the split (a SCORE question id is the dataset's, not a row number). Every kept document
records ``design`` ({variants, per_question, seed}), ``design_questions`` (N) and ``design_row``
(its question's row), which ``scorekit robustness`` reads back
(:mod:`scorekit.robustness.budget.runs`).
"""

from __future__ import annotations

from typing import Any

from scorekit.robustness.budget.design import BudgetError

__all__ = ["select_docs"]


def select_docs(docs: Any, budget: dict[str, Any], task: str) -> Any:
    """The expanded SCORE documents (question-major) each question keeps under ``budget``
    ({per_question, seed}), with ``design``, ``design_questions`` and ``design_row`` added; the
    documents unchanged when B >= V (a full run). :class:`BudgetError` (one line) when the
    questions have different numbers of variants (option order on MMLU-Pro, 3-10 options)."""
    from scorekit.robustness.budget.variants import select

    b, seed = budget.get("per_question"), budget.get("seed")
    if isinstance(b, bool) or not isinstance(b, int) or isinstance(seed, bool) or not isinstance(seed, int):
        raise BudgetError(f"task {task}: metadata.budget needs integers per_question and seed, got {budget!r}")
    qids, variants, family = docs["question_id"], docs["variant"], docs["family"][0] if len(docs) else "prompt"
    metas: list[list[dict[str, Any]]] = []
    last = None
    for row, (q, v) in enumerate(zip(qids, variants)):
        if q != last:
            metas.append([])
            last = q
        metas[-1].append({"variant": int(v), "template": int(v), "_row": row})
    indices, kept, design = select(metas, b, seed, family, task)
    if design is None:
        return docs
    out = docs.select([m["_row"] for m in kept]).flatten_indices()
    out = out.add_column("design", [design.to_json()] * len(kept))
    out = out.add_column("design_questions", [len(metas)] * len(kept))
    return out.add_column("design_row", indices)
