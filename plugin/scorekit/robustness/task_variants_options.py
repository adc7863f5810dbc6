"""``scorekit variants``' options: each one declared, and every combination that cannot be
written refused in one line before any work (the --help text is docs/variants.md's)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from scorekit.errors import ScorekitError

FAMILIES = ("option_order", "prompt", "non_greedy")  # scorekit.robustness.task_variants.ROBUST_FAMILIES


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tasks", nargs="+", metavar="TASK", help="lm-eval task names (built-in or under --include-path)")
    p.add_argument("--family", required=True, action="append", choices=FAMILIES,
                   help="robustness family (repeat the option for several)")
    p.add_argument("--templates", metavar="FILE", help="YAML list of doc_to_text templates (jinja) for --family prompt")
    p.add_argument("--formats", type=int, default=None, metavar="N",
                   help="--family prompt: N format variations of each task's own prompt as its templates (its "
                   "separators, casing, spacing, answer cue and option labels; never its words), the prompt as "
                   "written first")
    p.add_argument("--samples", type=int, default=None, metavar="N",
                   help="samples per question (non_greedy; default 5) or per template (prompt, generate_until; default 1)")
    p.add_argument("--temperature", type=float, default=0.7, help="sampling temperature (default 0.7, as SCORE)")
    p.add_argument("--permutations", choices=("cyclic", "swap"), default="cyclic",
                   help="option_order: all rotations (cyclic, CircularEval; default) or the gold swapped "
                   "into each position (swap, SCORE)")
    p.add_argument("--choice-score", choices=("acc", "acc_norm"), default="acc",
                   help="multiple choice: pick the highest log-likelihood (acc) or per character (acc_norm)")
    p.add_argument("--show-options", action="store_true",
                   help="option_order on a cloze task (options scored as continuations, never shown: arc_easy, "
                   "hellaswag, boolq): ask it as lettered options scored on the letters (docs/variants.md)")
    p.add_argument("--include-path", metavar="DIR", help="folder of your own lm-eval task YAMLs")
    p.add_argument("--harness", choices=("lm_eval", "lighteval"), default="lm_eval",
                   help="write lm-eval task YAMLs (default) or a lighteval custom-tasks module")
    p.add_argument("--custom-tasks", metavar="FILE", help="lighteval: your custom-tasks file holding TASK")
    p.add_argument("--output-dir", dest="output", required=True, metavar="DIR", help="folder to write the task YAMLs into")
    p.add_argument("--budget", metavar="B",
                   help="ask each question B of its V variants (prompt, option_order; at least 2), by a seeded, balanced "
                   "design written into the task files; scorekit robustness estimates the full run (docs/budget.md)")
    p.add_argument("--seed", metavar="S", help="the seed of --formats' draw and of --budget's design (default 0)")


def seed_and_budget(args: argparse.Namespace, families: list[str]) -> Any:
    """``--seed`` (for --formats or --budget) as an int, and the checked ``--budget`` (None without)."""
    from scorekit.robustness.budget.variants import check_budget_args

    if args.seed is not None:
        if args.budget is None and args.formats is None:
            raise ScorekitError("--seed is for --formats or --budget (the seed of their draw and design)")
        if not str(args.seed).isdigit():
            raise ScorekitError(f"--seed must be a non-negative integer, got {args.seed!r}")
        args.seed = int(args.seed)
    return check_budget_args(args.budget, args.seed if args.budget is not None else None, families, args.samples)


def check_options(args: argparse.Namespace, families: list[str]) -> list[str]:
    """The options that go with some families or harnesses only, checked before any work; the
    ``--templates`` read."""
    if args.samples is not None and args.samples < 1:
        raise ScorekitError(f"--samples must be >= 1, got {args.samples}")
    if args.samples is not None and families == ["option_order"]:
        raise ScorekitError("--samples applies to the prompt and non_greedy families, not option_order")
    if not args.temperature > 0:
        raise ScorekitError(f"--temperature must be > 0, got {args.temperature}")
    templates: list[str] = []
    if args.templates:
        if "prompt" not in families:
            raise ScorekitError("--templates is for --family prompt")
        from scorekit.robustness.task_variants import read_templates

        templates = read_templates(args.templates)
    _check_formats(args, families)
    if args.show_options and "option_order" not in families:
        raise ScorekitError("--show-options is for --family option_order")
    if args.harness == "lighteval":
        _check_lighteval(args, families, templates)
    elif args.custom_tasks:
        raise ScorekitError("--custom-tasks is for --harness lighteval (lm-eval tasks: --include-path)")
    return templates


def _check_formats(args: argparse.Namespace, families: list[str]) -> None:
    """One line for a ``--formats`` combination that cannot be written (``--seed`` is checked by
    :func:`seed_and_budget`: it also seeds ``--budget``)."""
    if args.formats is None:
        return
    if "prompt" not in families:
        raise ScorekitError("--formats is for --family prompt")
    if args.templates:
        raise ScorekitError("--formats and --templates both give the prompt family its templates; give one of them")
    if args.formats < 2:
        raise ScorekitError(f"--formats must be >= 2 (the prompt as written and at least one other format), got {args.formats}")
    if args.harness == "lighteval":
        raise ScorekitError("--formats is not available with --harness lighteval (write the formats with --templates)")


def _check_lighteval(args: argparse.Namespace, families: list[str], templates: list[str]) -> None:
    """``--harness lighteval`` writes one custom-tasks module (:mod:`scorekit.lighteval.task_variants`):
    the lm-eval-only options are refused."""
    for flag, bad in (("--show-options", args.show_options), ("--include-path", args.include_path),
                      ("--choice-score acc_norm", args.choice_score == "acc_norm"),
                      ("--samples with --family prompt", args.samples is not None and "prompt" in families)):
        if bad:
            raise ScorekitError(f"{flag} is not available with --harness lighteval (see docs/variants.md, lighteval)")
    if args.custom_tasks and not Path(args.custom_tasks).is_file():
        raise ScorekitError("no such file", path=args.custom_tasks, where="--custom-tasks")
    if "prompt" in families and not templates:
        raise ScorekitError("--family prompt needs --templates FILE")


def include_path(args: argparse.Namespace) -> str | None:
    """``--include-path`` resolved (None without), checked."""
    include = str(Path(args.include_path).resolve()) if args.include_path else None
    if include and not Path(include).is_dir():
        raise ScorekitError("not a folder", path=args.include_path, where="--include-path")
    return include


def output_dir(args: argparse.Namespace) -> Path:
    """``--output-dir``, refused when it is something else than a folder."""
    out_dir = Path(args.output)
    if out_dir.exists() and not out_dir.is_dir():
        raise ScorekitError("exists and is not a folder", path=out_dir, where="--output-dir")
    return out_dir
