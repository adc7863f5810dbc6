"""``scorekit variants --harness lighteval --budget B [--seed S]``: budgeted lighteval variant tasks.

lighteval runs each variant as its own task (``robust_prompt_<T>:template_<t>``,
``robust_option_order_<T>:position_<L>``; :mod:`scorekit.lighteval.task_variants`). On a budget,
variant v's task keeps only the rows whose question the seeded, balanced design
(:mod:`scorekit.robustness.budget.design`, ``Design.make(V, B, seed)``) gives v: its prompt
function returns None for the others, which lighteval skips
(:func:`scorekit.robustness.budget.variants.rows_by_variant`). Every question is then asked
under B distinct variants, and every variant asks N*B/V questions, +-1.

- **The design's questions** are the row numbers 0..N-1 of the task's evaluation split (the
  question id of every variant document), as for lm-eval's budgeted variant tasks. N is
  counted when the module is written (:func:`count_questions`) and pinned in it beside B and
  the seed (``budget={'per_question': B, 'seed': S}``, ``n_questions={task: N}``), so the run
  asks what the written module says; a split that has grown since stops the run at its first
  row past N (the data changed: write the tasks again). Rows the task's own prompt function
  skips count in the design and are never asked.
- **V** is the number of templates (prompt) or of option arrangements (option order: every
  question of the split must have the same number of choices, since a design has one V).
- **Recorded**: every asked document carries ``design`` ({variants, per_question, seed}) and
  ``design_questions`` (N) in ``doc.specific["robust"]``, hence in lighteval's details, where
  ``scorekit robustness`` reads them (:mod:`scorekit.robustness.readers.lighteval_details`).
- **Not budgeted**: non-greedy (its samples are drawn alike: ``--samples B``) and prompts x
  samples (not available with lighteval at all), refused in one line. B >= V is a full run: no
  design is recorded and every row is asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorekit.errors import ScorekitError
from scorekit.robustness.budget.design import BudgetError, Design

__all__ = ["count_questions", "task_budget", "cost_lines"]


def count_questions(config: Any, family: str) -> int:
    """The number of rows of the task's evaluation split (the design's questions), loaded as
    lighteval does; for option order, every row's prompt must have one number of choices
    (a design has one V), else one line naming the task and the numbers."""
    from datasets import load_dataset

    data = load_dataset(config.hf_repo, config.hf_subset, revision=config.hf_revision)
    [split] = config.evaluation_splits
    rows = data[split]
    if family == "option_order":
        sizes: set[int] = set()
        for i, row in enumerate(rows):
            doc = config.prompt_function({**row, "__index": i, "__few_shots": False}, config.name)
            if doc is not None:
                sizes.add(len(doc.choices))
        if len(sizes) > 1:
            raise ScorekitError(f"--budget needs one number of option arrangements per question, and its questions have "
                                f"{', '.join(map(str, sorted(sizes)[:4]))} options: write variants of a task whose "
                                "questions have one number of options, or run it in full",
                                where=f"lighteval task {config.name}")
    return len(rows)


def task_budget(config: Any, family: str, n_variants: int, budget: Mapping[str, int] | None,
                n_questions: int | None) -> dict[str, int] | None:
    """The budget one family's variant prompts carry: ``{per_question, seed, questions}``, or
    None for a full run (no budget, the non-greedy family, or B >= V). ``n_questions`` None:
    counted from the data (:func:`count_questions`). Raises :class:`BudgetError` (one line)
    when a variant would ask no question."""
    if budget is None or family == "non_greedy":
        return None
    try:
        design = Design.make(n_variants, budget["per_question"], budget.get("seed", 0))
    except (KeyError, TypeError) as exc:
        raise BudgetError(f"lighteval task {config.name}: budget must be {{'per_question': B, 'seed': S}}, got "
                          f"{budget!r} ({exc})") from None
    if design.full:
        return None
    n = n_questions if n_questions is not None else count_questions(config, family)
    from scorekit.robustness.budget.variants import rows_by_variant

    rows_by_variant(n, design.variants, design.per_question, design.seed, f"lighteval task {config.name}")
    return {"per_question": design.per_question, "seed": design.seed, "questions": n}


def cost_lines(configs: Any, per_question: int) -> list[str]:
    """One cost line per (task, family) of the variant configs, as the lm-eval path prints them
    (:func:`scorekit.robustness.budget.variants.cost_line`): ``robust_prompt_<T>: asks 2 of 5
    prompts per question: ...``."""
    from scorekit.robustness.budget.variants import cost_line

    out: dict[str, str] = {}
    for c in configs:
        fn = c.prompt_function
        if fn.family == "non_greedy":
            continue
        family_task = c.name.split(":")[0]
        out.setdefault(family_task, f"{family_task}: " + cost_line(fn.family, per_question, fn.n_variants))
    return list(out.values())
