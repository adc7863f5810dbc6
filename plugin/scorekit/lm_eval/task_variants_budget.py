"""The task YAML of a budgeted variant task (``scorekit variants --budget B [--seed S]``).

The YAML is :func:`scorekit.lm_eval.task_variants_yaml.render_task`'s with
``metadata.robust.budget: {per_question: B, seed: S}``; :class:`scorekit.lm_eval.task_variants.RobustTask`
keeps each question's B variants of the seeded design
(:func:`scorekit.robustness.budget.variants.select`) and writes the design into every
document it asks, where ``scorekit robustness`` reads it.
"""

from __future__ import annotations

from scorekit.lm_eval.task_variants_yaml import CLASS, HEADER, VERSION, RobustSpec, _dump, render_task, task_name

__all__ = ["render_budgeted"]


def render_budgeted(spec: RobustSpec, budget: tuple[int, int] | None) -> str:
    """YAML text of ``robust_<family>_<task>``, with the budget when ``budget`` = (B, seed) is given."""
    if budget is None:
        return render_task(spec)
    b, seed = budget
    body = _dump({"task": task_name(spec.family, spec.task)})
    meta = _dump({"metadata": {"version": VERSION, "robust": {**spec.params(),
                                                               "budget": {"per_question": b, "seed": seed}}}})
    return HEADER + body + f"class: {CLASS}\n" + meta
