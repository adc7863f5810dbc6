"""``scorekit variants TASK...``: robustness variants of any lm-eval task (docs/variants.md)."""

from __future__ import annotations

import argparse

from scorekit.robustness.task_variants_options import add_arguments  # noqa: F401 - the options, their checks beside them


HELP = "write lm-eval tasks that ask any task's questions under other option orders, prompts or samples"
DESCRIPTION = (
    "Write lm-eval task YAMLs robust_<FAMILY>_<TASK> and a group robust_<TASK> into DIR; run them "
    "with lm_eval --include_path DIR --tasks robust_<FAMILY>_<TASK> --log_samples, then report "
    "with scorekit robustness. option_order: every arrangement of a multiple_choice task's "
    "choices; prompt: every doc_to_text template of --templates, or --formats N formats of the "
    "task's own; non_greedy: --samples samples."
)


def main(args: argparse.Namespace) -> int:
    from scorekit.files import note
    from scorekit.lm_eval import score_suite_budget, task_variants_build
    from scorekit.robustness import task_variants_options as options
    from scorekit.lm_eval.task_variants_yaml import write

    families = list(dict.fromkeys(args.family))
    budget = options.seed_and_budget(args, families)
    score = budget is not None and score_suite_budget.wants(args)  # the shipped SCORE tasks on a budget
    templates = [] if score else options.check_options(args, families)  # lighteval's refusals too
    if args.harness == "lighteval":
        from scorekit.lighteval.task_variants import write_module

        costs: list[str] = []
        print(write_module(str(options.output_dir(args)), args.tasks, families, custom_tasks=args.custom_tasks,
                           permutations=args.permutations, templates=templates, samples=args.samples or 5,
                           budget=None if budget is None else {"per_question": budget[0], "seed": budget[1]}, costs=costs))
        note(*costs)
        return 0
    include, out_dir = options.include_path(args), options.output_dir(args)  # no --include-path for SCORE's
    built = (score_suite_budget.budgeted_suite(args.tasks, families, budget, out_dir) if score
             else task_variants_build.build(args, families, templates, budget, include, out_dir))
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = write(out_dir, built.files)
    note(*built.notes)
    print(*paths, sep="\n")
    note(*built.after)
    return 0
