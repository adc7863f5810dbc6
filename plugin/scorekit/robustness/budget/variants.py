"""``scorekit variants --budget B [--seed S]``: which expanded documents a budgeted variant task keeps.

Harness-free; the lm-eval adapter (:class:`scorekit.lm_eval.task_variants.RobustTask`) calls
:func:`select` on its expanded documents and :func:`harness_metrics` in its aggregations.

- **prompt**: V = the number of templates; each question keeps the B templates the design
  gives it (:mod:`scorekit.robustness.budget.design`).
- **option_order**: V = the number of arrangements (a question's number of options); every
  question must have the same V (a design has one), else the run stops in one line.
- **non_greedy** has no budget: its samples are drawn alike, so asking B of V samples is
  ``--samples B`` (refused with that advice).

B >= V is a full run (nothing is left out and no design is recorded). Every kept document's
``_robust`` records the design, which ``scorekit robustness`` reads back: where and how,
:mod:`scorekit.robustness.budget.runs`.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from scorekit.robustness.budget.design import BudgetError, Design, assign, check_budget

__all__ = ["BUDGET_FAMILIES", "check_budget_args", "cost_line", "select", "harness_metrics", "rows_by_variant"]

BUDGET_FAMILIES = ("prompt", "option_order")
_UNIT = {"prompt": "prompts", "option_order": "option arrangements"}


def check_budget_args(budget: Any, seed: Any, families: Sequence[str], samples: int | None) -> tuple[int, int] | None:
    """(B, seed) from the command line, or None without ``--budget``; :class:`BudgetError` (one
    line) for B < 2, non-integer or negative B or seed, the non-greedy family, or a prompt family
    sampled several times per template."""
    if budget is None:
        if seed is not None:
            raise BudgetError("--seed is for --budget (the seed of the budgeted design)")
        return None
    b = check_budget(budget, 2**62)  # an integer of at least 2; B >= V (known later) is a full run
    if "non_greedy" in families:
        raise BudgetError("--budget does not apply to --family non_greedy: its samples are drawn alike, so asking B "
                          "of them is --samples B")
    if samples is not None and samples > 1:
        raise BudgetError("--budget with --samples > 1 is not supported: budget the templates of a family asked once each")
    s = Design.make(2, 2, 0 if seed is None else seed).seed  # checks the seed (a non-negative integer)
    return b, s


def cost_line(family: str, budget: int, variants: int | None) -> str:
    """What a budgeted family costs, in words: ``asks 2 of 100 prompts per question: 2.0
    evaluations' worth (2% of the full run's 100)``; V unknown (option order before its
    documents are read): per question's arrangements."""
    unit = _UNIT.get(family, "variants")
    if variants is None:
        return (f"asks {budget} of each question's {unit}: {float(budget):.1f} evaluations' worth (a full run asks "
                "all of them; questions with no more than that are asked in full)")
    if budget >= variants:
        return f"asks all {variants} {unit} per question: --budget {budget} is not less than {variants}, a full run"
    share = 100 * budget / variants
    return (f"asks {budget} of {variants} {unit} per question: {float(budget):.1f} evaluations' worth "
            f"({share:.3g}% of the full run's {variants})")


@functools.lru_cache(maxsize=16)
def rows_by_variant(n_questions: int, variants: int, per_question: int, seed: int,
                    task: str = "") -> tuple[frozenset[int], ...]:
    """Per variant v, the questions (row numbers 0..N-1) the design ``Design.make(V, B, seed)``
    asks under v: a harness that runs each variant as its own task (lighteval) keeps those rows
    in variant v's task. Every variant gets N*B/V rows, +-1; one with none (N*B < V) raises
    :class:`BudgetError` (a task with no documents cannot run): ask more questions, a larger
    budget or fewer variants. Cached: the variant tasks of one family share one assignment.

    >>> [sorted(r) for r in rows_by_variant(4, 4, 2, 0)]
    [[2, 3], [0, 1], [0, 2], [1, 3]]
    """
    design = Design.make(variants, per_question, seed)
    plan = assign([str(i) for i in range(n_questions)], design)
    rows: list[set[int]] = [set() for _ in range(design.variants)]
    for q, vs in plan.items():
        for v in vs:
            rows[v].add(int(q))
    empty = [v for v, r in enumerate(rows) if not r]
    if empty:
        raise BudgetError(f"{task + ': ' if task else ''}{n_questions} question(s) x --budget {design.per_question} "
                          f"is fewer than its {design.variants} variants, so variant {empty[0]} would ask no question "
                          "(lighteval refuses a task with no documents): ask more questions, a larger budget or fewer "
                          "variants")
    return tuple(frozenset(r) for r in rows)


def select(metas: Sequence[Sequence[dict[str, Any]]], budget: int, seed: int, family: str,
           task: str) -> tuple[list[int], list[dict[str, Any]], Design | None]:
    """Documents kept under the budget: ``metas[i]`` are question i's expanded documents (one per
    variant, ``variant`` / ``template`` their index). Returns (question index of each kept
    document, its meta with the design, the design or None for a full run). Raises
    :class:`BudgetError` when the questions have different numbers of variants."""
    sizes = sorted({len(m) for m in metas if m})
    if not sizes:
        return [], [], None
    if len(sizes) > 1:
        raise BudgetError(f"task {task}: --budget needs one number of {_UNIT.get(family, 'variants')} per question, "
                          f"and its questions have {', '.join(map(str, sizes[:4]))}: write variants of a task whose "
                          "questions have one number of options, or run it in full")
    v = sizes[0]
    design = Design.make(v, budget, seed) if v >= 2 else None  # B >= V: a full design
    if design is None or design.full:
        return [i for i, m in enumerate(metas) for _ in m], [x for m in metas for x in m], None
    plan = assign([str(i) for i in range(len(metas))], design)
    record = {"design": design.to_json(), "design_questions": len(metas)}
    key = "template" if family == "prompt" else "variant"
    indices: list[int] = []
    kept: list[dict[str, Any]] = []
    for i, m in enumerate(metas):
        wanted = set(plan[str(i)])
        for x in m:
            if int(x[key]) in wanted:
                indices.append(i)
                kept.append({**x, **record})
    return indices, kept, design


def harness_metrics(records: Sequence[Any], family: str, *, equal: Any = None, macro: bool = False) -> dict[str, float]:
    """What a budgeted variant or SCORE task reports to lm-eval: plain means of what was asked,
    each unbiased for the full run's value (the design gives each question a uniformly random
    B-subset): ``accuracy`` (mean over questions of a question's mean), the per-variant
    accuracies on the questions asked each (``macro``: the mean over categories of the
    per-category accuracy, MMLU-Pro's), the consistency rate (mean over questions of the share of
    agreeing pairs among a question's B answers; ``equal`` compares two answers, default ``==``:
    MATH's answers need :func:`scorekit.metrics.math_equivalent`) and ``unparsed_rate``. The
    spread across variants needs the model: ``scorekit robustness`` estimates it, with intervals
    (the spread keys are absent here)."""
    from scorekit.robustness.analysis import cr_name, variant_metric_name

    same = equal or (lambda a, b: a == b)
    by_q: dict[str, dict[int, Any]] = defaultdict(dict)
    for r in records:
        by_q[r.question_id][r.variant] = r
    if not by_q:
        return {}
    acc = [sum(x.correct for x in d.values()) / len(d) for d in by_q.values()]
    rates = []
    for d in by_q.values():
        answers = [x.answer for x in d.values()]
        pairs = len(answers) * (len(answers) - 1) / 2
        if pairs:
            agree = sum(a is not None and b is not None and bool(same(a, b))
                        for i, a in enumerate(answers) for b in answers[i + 1:])
            rates.append(agree / pairs)
    out = {"accuracy": sum(acc) / len(acc), cr_name(family): sum(rates) / len(rates) if rates else math.nan,
           "unparsed_rate": sum(x.answer is None for d in by_q.values() for x in d.values()) / sum(map(len, by_q.values()))}
    per_v: dict[int, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for d in by_q.values():
        for v, x in d.items():
            per_v[v][str(x.category) if macro else ""].append(bool(x.correct))
    for v, cats in per_v.items():
        means = [sum(xs) / len(xs) for xs in cats.values()]
        out[variant_metric_name(family, v, macro=macro)] = sum(means) / len(means)
    return out
