"""``scorekit variants <SCORE task or group> --family F --budget B``: the shipped SCORE tasks on a budget.

Called by :mod:`scorekit.commands.variants` when ``--budget`` is given with a SCORE name; the
writing is :mod:`scorekit.lm_eval.score_suite_budget` (docs/budget.md, "The SCORE suite on a budget").
"""

from __future__ import annotations

import argparse
from pathlib import Path

# options of scorekit variants that shape a wrapped task; the SCORE tasks have their own
_NOT_FOR_SCORE = (("templates", None, "--templates"), ("formats", None, "--formats"), ("samples", None, "--samples"),
                  ("permutations", "cyclic", "--permutations"), ("show_options", False, "--show-options"),
                  ("choice_score", "acc", "--choice-score"), ("include_path", None, "--include-path"),
                  ("custom_tasks", None, "--custom-tasks"), ("temperature", 0.7, "--temperature"))


def wants(args: argparse.Namespace) -> bool:
    """Whether this call writes SCORE tasks on a budget (a SCORE name and ``--budget``)."""
    from scorekit.lm_eval.score_suite_budget import is_score_name

    return args.budget is not None and any(is_score_name(t) for t in args.tasks)


def run(args: argparse.Namespace, families: list[str], budget: tuple[int, int]) -> int:
    from scorekit.errors import ScorekitError
    from scorekit.files import note
    from scorekit.lm_eval.score_suite_budget import is_score_name, render_budgeted_suite, score_leaves
    from scorekit.lm_eval.task_variants_yaml import write
    from scorekit.robustness.benchmarks import BENCHMARKS
    from scorekit.robustness.budget.variants import cost_line
    from scorekit.robustness.templates import N_PROMPT_TEMPLATES

    names = list(dict.fromkeys(args.tasks))
    others = [t for t in names if not is_score_name(t)]
    if others:
        raise ScorekitError(f"{others[0]} is not a SCORE task: write the SCORE tasks and other tasks in separate calls")
    if args.harness != "lm_eval":
        raise ScorekitError("--budget with --harness lighteval is not available (docs/budget.md, lighteval)")
    for attr, default, flag in _NOT_FOR_SCORE:
        if getattr(args, attr, default) != default:
            raise ScorekitError(f"{flag} does not apply to the SCORE tasks (they ask SCORE's own prompts, positions "
                                "and samples)")
    out_dir = Path(args.output)
    if out_dir.exists() and not out_dir.is_dir():
        raise ScorekitError("exists and is not a folder", path=out_dir, where="--output-dir")
    leaves, notes = score_leaves(names, families)
    files = render_budgeted_suite(names, leaves, budget)
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in write(out_dir, files):
        print(path)
    for text in notes:
        note(text)
    costs = {}  # one line per family of a benchmark (its subsets share it)
    for bench, family, _ in leaves:
        v = N_PROMPT_TEMPLATES if family == "prompt" else None
        costs[BENCHMARKS[bench].lm_eval_group(family)] = cost_line(family, budget[0], v)
    note(*(f"{name}: {line}" for name, line in costs.items()))
    note(f"run them with lm_eval --include_path {out_dir} (not scorekit tasks-dir) --tasks "
         f"{','.join(names)} --log_samples; then scorekit robustness")
    return 0
