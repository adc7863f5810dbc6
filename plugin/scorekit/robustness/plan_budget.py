"""``scorekit plan --robustness``, built: questions and variants per question for a robustness interval.

How many questions N, each asked B of its V variants, give a budgeted run's consistency rate
(``--target consistency_rate``) or quantiles of accuracy across variants (``--target
quantiles``) an interval of half-width ``--half-width h`` (:mod:`scorekit.robustness.budget.plan`
has the formulas). Inputs: ``--pilot RUN`` (a run ``scorekit robustness`` reads, full or
budgeted; ``--task`` / ``--family`` choose the family when it has several), or for the
consistency rate without a pilot ``--variants V --consistency-rate R`` (a guessed CR,
planned conservatively). One row per budget (``--budgets``, default 2, 3, 4, 5, 10, 20 below
V, and V). JSON (docs/plan.md)::

    {"robustness": true, "target": "consistency_rate" | "quantiles", "half_width": h,
     "confidence": c, "variants": V, "pilot": {...} | null,
     "rows": [{"per_question": B, "questions": N, "evaluations": N*B, "half_width": h_N,
               "quantile": "5" .. "95" (quantiles only)}], "notes": [str]}
"""

from __future__ import annotations

import argparse
import math
from dataclasses import asdict
from typing import Any

from scorekit.checks import check_confidence
from scorekit.errors import ScorekitError

TARGETS = ("consistency_rate", "quantiles")


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("robustness (--robustness)")
    g.add_argument("--robustness", action="store_true",
                   help="plan a budgeted robustness run: questions and variants per question for an interval of "
                   "half-width --half-width (docs/plan.md, docs/budget.md)")
    g.add_argument("--half-width", type=float, metavar="H", help="--robustness: the interval's half-width (e.g. 0.02)")
    g.add_argument("--target", choices=TARGETS, default="consistency_rate",
                   help="--robustness: the consistency rate (default) or the quantiles of accuracy across variants")
    g.add_argument("--variants", type=int, metavar="V", help="--robustness without --pilot: variants per question")
    g.add_argument("--consistency-rate", type=float, metavar="R",
                   help="--robustness without --pilot: a guessed consistency rate to plan from")
    g.add_argument("--budgets", metavar="B,B,...", help="--robustness: the budgets to plan (default 2,3,4,5,10,20 below V, and V)")
    g.add_argument("--family", choices=("prompt", "option_order", "non_greedy"),
                   help="--robustness --pilot: the family to use (needed when the run has several)")
    g.add_argument("--confidence", type=float, default=0.95, help="--robustness: the interval's level (default 0.95)")


_PAIRED_ONLY = ("difference", "discordance", "accuracies", "correlation", "sd", "questions", "metric")
_ROBUST_ONLY = ("half_width", "variants", "consistency_rate", "budgets", "family")


def check_mode(args: argparse.Namespace) -> None:
    """Options of the other mode are refused in one line, as is a pilot of the wrong size."""
    flag = lambda name: "--" + name.replace("_", "-")  # noqa: E731
    if args.robustness:
        used = [flag(n) for n in _PAIRED_ONLY if getattr(args, n, None) is not None]
        if used:
            raise ScorekitError(f"{', '.join(used)} is for the paired comparison, not --robustness")
        if args.pilot is not None and len(args.pilot) != 1:
            raise ScorekitError(f"--robustness --pilot takes one run, got {len(args.pilot)}")
    else:
        used = [flag(n) for n in _ROBUST_ONLY if getattr(args, n, None) is not None]
        if args.target != "consistency_rate" or args.confidence != 0.95:
            used.append("--target" if args.target != "consistency_rate" else "--confidence")
        if used:
            raise ScorekitError(f"{', '.join(used)} is for --robustness")
        if args.pilot is not None and len(args.pilot) != 2:
            raise ScorekitError(f"--pilot takes two runs RUN_A RUN_B (one with --robustness), got {len(args.pilot)}")


def _budgets(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()] or None
    except ValueError:
        raise ScorekitError(f"--budgets must be integers separated by commas, got {text!r}") from None


def _pilot_family(args: argparse.Namespace) -> tuple[Any, dict[str, Any], list[str], Any]:
    """The pilot's family as a :class:`~scorekit.robustness.budget.runs.FamilyMatrix`, what it was,
    notes, and the answers' equality (:func:`scorekit.robustness.grading.equal_for`)."""
    from scorekit.robustness.budget.runs import check_family, family_matrix
    from scorekit.robustness.grading import equal_for
    from scorekit.robustness.readers import read_paths

    read = read_paths(args.pilot)
    sets = [s for s in read.samples if (args.task in (None, s.task.name)) and (args.family in (None, s.task.family))]
    if len(sets) != 1:
        shown = ", ".join(f"{s.task.name} ({s.task.family})" for s in read.samples[:8]) or "none with samples"
        why = "no task with samples matches" if not sets else f"{len(sets)} tasks match"
        raise ScorekitError(f"--pilot: {why} (--task / --family choose one of: {shown})")
    s = sets[0]
    path = s.sources[0] if s.sources else None
    matrix = family_matrix(s.records, equal=equal_for(s.task.benchmark))
    notes = list(s.notes)
    if s.design is not None and not s.design.full:
        matrix = check_family(matrix, s.design, s.design_questions, path=path, design_ids=s.design_ids)
        notes.extend(matrix.notes)
    else:
        complete = [q for q, a in zip(matrix.question_ids, matrix.answers) if len(a) == matrix.n_variants]
        if len(complete) < len(matrix.question_ids):
            notes.append(f"{len(matrix.question_ids) - len(complete)} pilot question(s) lack some variants; left out")
            matrix = matrix.subset(complete)
    if not matrix.question_ids:
        raise ScorekitError("--pilot: no question with all its variants", path=path)
    from scorekit.robustness.budget.design import design_json

    info = {"run": str(args.pilot[0]), "task": s.task.name, "family": s.task.family, "model": s.model,
            "questions": len(matrix.question_ids), "design": design_json(s.design)}
    return matrix, info, notes, equal_for(s.task.benchmark)


def plan_robustness(args: argparse.Namespace) -> dict[str, Any]:
    """The JSON answer of ``--robustness`` (module docstring); ScorekitError on bad input."""
    import numpy as np

    from scorekit.robustness.budget.plan import plan_consistency, plan_quantiles
    from scorekit.robustness.budget.runs import answer_counts

    h = args.half_width
    if h is None:
        raise ScorekitError("--robustness needs --half-width H (the interval's half-width, e.g. 0.02)")
    if not (math.isfinite(h) and 0 < h < 1):
        raise ScorekitError(f"--half-width must be a number in (0, 1), got {h}")
    check_confidence(args.confidence)
    budgets = _budgets(args.budgets)
    out: dict[str, Any] = {"robustness": True, "target": args.target, "half_width": h, "confidence": args.confidence}
    notes: list[str] = []
    if args.pilot:
        if args.variants is not None or args.consistency_rate is not None:
            raise ScorekitError("--pilot gives the variants and the rates; leave out --variants and --consistency-rate")
        matrix, info, notes, equal = _pilot_family(args)
        v = matrix.n_variants
        out.update(variants=v, pilot=info)
        budgeted_pilot = bool(np.isnan(matrix.correct).any())
        if args.target == "consistency_rate":
            if budgeted_pilot:
                rows = plan_consistency(h, variants=v, budgets=budgets, pilot_correct=matrix.correct,
                                        pilot_agree=matrix.agree, confidence=args.confidence)
            else:
                counts = [answer_counts(a, equal) for a in matrix.answers]
                rows = plan_consistency(h, variants=v, budgets=budgets, pilot_counts=counts, confidence=args.confidence)
        else:
            quantile_rows = plan_quantiles(h, matrix.correct, budgets=budgets, confidence=args.confidence)
            rows = [(q, r) for q, rs in quantile_rows.items() for r in rs]
            notes.append("quantile plans scale the pilot's interval as 1/sqrt(questions): optimistic far below the "
                         "pilot's half-widths (docs/budget.md)")
    else:
        if args.target == "quantiles":
            raise ScorekitError("--target quantiles needs --pilot RUN (the spread of the variants comes from a run)")
        if args.variants is None or args.consistency_rate is None:
            raise ScorekitError("--robustness without --pilot needs --variants V and --consistency-rate R")
        v = args.variants
        out.update(variants=v, pilot=None)
        rows = plan_consistency(h, variants=v, budgets=budgets, rate=args.consistency_rate, confidence=args.confidence)
        notes.append("planned from a guessed consistency rate, conservatively (every question at that rate)")
    out["rows"] = [{**({"quantile": r[0]} if isinstance(r, tuple) else {}),  # a PlanRow's fields are the JSON's
                    **asdict(r[1] if isinstance(r, tuple) else r)} for r in rows]
    if any(r["per_question"] >= v for r in out["rows"]):
        notes.append(f"a row with {v} variants per question is a full run: exact on the questions it asks, whatever "
                     "their number (its interval over other questions is another matter: docs/metrics.md)")
    out["notes"] = notes
    return out
