"""``scorekit compare`` on budgeted runs (``scorekit variants --budget``): question by question.

A budgeted run asks each question B of its V variants, by a seeded design
(:mod:`scorekit.robustness.budget.design`). Two runs with the same design asked every question
the same variants, so they pair question by question:

- ``<family>_<variant>_accuracy`` (0/1, exact McNemar): on the questions the design gives
  that variant (about N·B/V);
- ``accuracy`` (a question's mean correctness over its B variants; paired bootstrap): its mean
  over questions is unbiased for the full run's accuracy, since each question's B variants are a
  uniformly random subset;
- the consistency rate (agreeing pairs among a question's B answers, of C(B, 2)): unbiased for
  the full run's CR question by question, for the same reason.

The spread across variants (range, std) needs every variant of every question, or the model
of ``scorekit robustness``: it is not compared here (a note says so). Runs of one task with
different designs (another seed or budget, or a full run beside a budgeted one) asked
different variants of the same question: refused in one line, with the way to make them
comparable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scorekit.compare.core import MetricValues
from scorekit.errors import ScorekitError

__all__ = ["BudgetMetrics", "budget_metrics", "check_designs"]


class BudgetMetrics(dict):
    """A task's metrics (``{name: MetricValues}``) with the ``design`` they were read under
    (``None``: a full run)."""

    design: Any = None


def budget_metrics(sample_set: Any) -> BudgetMetrics:
    """Per-question tables of a budgeted SCORE or variant task (module docstring); the design is
    checked against the log (:func:`scorekit.robustness.budget.runs.check_family`)."""
    from scorekit.robustness.analysis import cr_name, variant_metric_name
    from scorekit.robustness.budget.runs import check_family, family_matrix
    from scorekit.robustness.grading import equal_for

    design = sample_set.design
    matrix = family_matrix(sample_set.records, equal=equal_for(sample_set.task.benchmark))
    matrix = check_family(matrix, design, sample_set.design_questions,
                          path=sample_set.sources[0] if sample_set.sources else None,
                          design_ids=sample_set.design_ids)
    out = BudgetMetrics()
    out.design = design
    if not matrix.question_ids:
        return out
    family, ids, y = sample_set.task.family, matrix.question_ids, matrix.correct
    b = design.per_question
    parsed = matrix.parsed()
    out[cr_name(family)] = MetricValues("ratio", ids, np.column_stack([matrix.agree, np.full(len(ids), b * (b - 1) / 2),
                                                                       parsed * (parsed - 1) / 2]))
    out["accuracy"] = MetricValues("mean", ids, np.nanmean(y, axis=1))
    for v in range(matrix.n_variants):
        asked = ~np.isnan(y[:, v])
        if asked.any():
            out[variant_metric_name(family, v, macro=False)] = MetricValues(
                "binary", [q for q, a in zip(ids, asked) if a], y[asked, v])
    return out


def _said(design: Any) -> str:
    if design is None or design.full:
        return "a full run"
    return f"budgeted, {design.per_question} of {design.variants} variants per question, seed {design.seed}"


def check_designs(runs: list[Any]) -> None:
    """One line (:class:`ScorekitError`) when a task is budgeted in one run and has another design
    (or none) in another; a note on each run with a budgeted task that the spread is not compared."""
    tasks = sorted({t for r in runs for t, m in r.tasks.items() if isinstance(m, BudgetMetrics)})
    for task in tasks:
        having = [r for r in runs if task in r.tasks]
        designs = [getattr(r.tasks[task], "design", None) for r in having]
        keys = {None if d is None or d.full else (d.variants, d.per_question, d.seed) for d in designs}
        if len(keys) > 1:
            (ra, da), (rb, db) = next(((a, b) for a, b in zip(zip(having, designs), list(zip(having, designs))[1:])
                                       if _said(a[1]) != _said(b[1])))
            raise ScorekitError(
                f"task {task}: run {ra.label} is {_said(da)}, run {rb.label} {_said(db)}: their questions were asked "
                "different variants, so they cannot be compared question by question; run both with one design "
                "(scorekit variants --budget B --seed S on the same task), or compare their scorekit robustness estimates")
        if len(having) > 1:
            having[0].notes.append(f"{task}: budgeted ({_said(designs[0]).removeprefix('budgeted, ')}): compared question by "
                                   "question on the variants the design asked; the accuracy spread across variants is not "
                                   "(scorekit robustness estimates it)")
