"""``scorekit plan``, built: questions needed to detect a difference between two models, or the smallest
difference N questions can detect (paired designs; docs/plan.md); with ``--robustness``
:mod:`scorekit.robustness.plan_budget`. The answer is a JSON-ready dict
(:mod:`scorekit.compare.plan_render` renders it)."""

from __future__ import annotations

import argparse
import math

from scorekit.errors import ScorekitError
from scorekit.robustness import plan_budget
from scorekit.tables import FORMATS


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The paired comparison's options, then ``--robustness``'s (:mod:`scorekit.robustness.plan_budget`)."""
    p.add_argument("--difference", type=float, metavar="D", help="difference to detect (fraction, e.g. 0.02)")
    p.add_argument("--discordance", type=float, metavar="P",
                   help="share of questions on which the two models disagree (0/1 metrics)")
    p.add_argument("--accuracies", type=float, nargs=2, metavar=("A", "B"),
                   help="the two models' accuracies (with --correlation, instead of --discordance; D = A - B unless --difference)")
    p.add_argument("--correlation", type=float, metavar="R",
                   help="correlation (phi) of the two models' correctness over questions (with --accuracies)")
    p.add_argument("--sd", type=float, metavar="S",
                   help="standard deviation of the per-question differences (scores that are not 0/1: paired t)")
    p.add_argument("--questions", type=int, metavar="N", help="number of questions: gives the minimum detectable difference")
    p.add_argument("--pilot", nargs="+", metavar="RUN",
                   help="estimate the inputs from two runs RUN_A RUN_B (with --robustness: from one run)")
    p.add_argument("--task", help="with --pilot: the task to use (needed when the runs share several)")
    p.add_argument("--metric", help="with --pilot: the metric to use (needed when the task has several)")
    p.add_argument("--alpha", type=float, default=0.05, help="two-sided significance level (default: 0.05)")
    p.add_argument("--power", type=float, default=0.8, help="target power (default: 0.8)")
    p.add_argument("--format", "-f", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    plan_budget.add_arguments(p)


def _fraction(value: float | None, option: str, *, zero: bool = False) -> None:
    if value is not None and not (math.isfinite(value) and (0 <= value if zero else 0 < value) and value <= 1):
        raise ScorekitError(f"{option} must be a fraction in {'[' if zero else '('}0, 1], got {value}")


def _pilot(args: argparse.Namespace) -> dict:
    """Paired rows of the chosen task and metric of the two pilot runs -> estimates."""
    import numpy as np

    from scorekit.compare.core import paired_rows
    from scorekit.compare.inputs import read_runs
    ra, rb = read_runs(args.pilot)
    choices = [(t, m) for t in sorted(set(ra.tasks) & set(rb.tasks)) for m in sorted(set(ra.tasks[t]) & set(rb.tasks[t]))
               if ra.tasks[t][m].kind in ("binary", "mean") and rb.tasks[t][m].kind in ("binary", "mean")]
    picked = [(t, m) for t, m in choices if (args.task in (None, t)) and (args.metric in (None, m))]
    if len(picked) != 1:
        shown = ", ".join(f"{t} {m}" for t, m in choices[:8]) + (" ..." if len(choices) > 8 else "")
        why = "no shared task and metric with one number per question" if not picked else "several"
        raise ScorekitError(f"--pilot: {why} match (--task/--metric choose one of: {shown or 'none'})")
    task, metric = picked[0]
    notes = [f"{r.label} ({r.source}): {n}" for r in (ra, rb) for n in r.notes]  # what reading left out
    paired = paired_rows(task, metric, ra, rb, ra.tasks[task][metric], rb.tasks[task][metric], notes)
    if paired is None or len(paired[0]) < 2:
        raise ScorekitError(f"--pilot: {task} {metric}: fewer than 2 shared questions")
    xa, xb = paired[0][:, 0], paired[1][:, 0]
    binary = ra.tasks[task][metric].kind == rb.tasks[task][metric].kind == "binary"
    out = {"pilot": {"a": ra.label, "b": rb.label, "task": task, "metric": metric, "n_paired": int(len(xa)),
                     "a_value": float(xa.mean()), "b_value": float(xb.mean())},
           "difference": float(xa.mean() - xb.mean()), "notes": notes}
    if binary:
        out["discordance"] = float(np.mean(xa != xb))
    else:
        out["sd"] = float(np.std(xa - xb, ddof=1))
    return out


def plan(args: argparse.Namespace) -> dict:
    """The JSON answer (see docs/plan.md); raises ScorekitError on inconsistent inputs."""
    from scorekit.compare import power as pw

    plan_budget.check_mode(args)
    if args.robustness:
        return plan_budget.plan_robustness(args)
    if not 0 < args.alpha < 1 or not 0 < args.power < 1:
        raise ScorekitError(f"--alpha and --power must be between 0 and 1, got {args.alpha} and {args.power}")
    if args.questions is not None and args.questions < 2:
        raise ScorekitError(f"--questions must be at least 2, got {args.questions}")
    _fraction(args.discordance, "--discordance")
    if args.difference is not None and not (math.isfinite(args.difference) and 0 < abs(args.difference) <= 1):
        raise ScorekitError(f"--difference must be a non-zero fraction in [-1, 1], got {args.difference}")
    if args.sd is not None and not (math.isfinite(args.sd) and args.sd > 0):
        raise ScorekitError(f"--sd must be positive, got {args.sd}")
    out: dict = {"alpha": args.alpha, "power": args.power}
    difference, discordance, sd, questions = args.difference, args.discordance, args.sd, args.questions
    if args.correlation is not None and args.accuracies is None:
        raise ScorekitError("--correlation goes with --accuracies A B (the correlation of the two models' correctness)")
    if args.accuracies is not None:
        if args.correlation is None:
            raise ScorekitError("--accuracies needs --correlation R (phi of the two models' correctness)")
        clash = [o for o, v in (("--discordance", discordance), ("--sd", sd), ("--pilot", args.pilot)) if v is not None]
        if clash:
            raise ScorekitError(f"--accuracies with --correlation gives the discordance; leave out {' and '.join(clash)}")
        pa, pb = args.accuracies
        for value in args.accuracies:
            _fraction(value, "--accuracies", zero=True)
        if not (math.isfinite(args.correlation) and -1 <= args.correlation <= 1):
            raise ScorekitError(f"--correlation must be between -1 and 1, got {args.correlation}")
        both = pa * pb + args.correlation * math.sqrt(pa * (1 - pa) * pb * (1 - pb))  # P(both right)
        if not (max(0.0, pa + pb - 1) - 1e-12 <= both <= min(pa, pb) + 1e-12):
            raise ScorekitError(f"--correlation {args.correlation} is impossible for accuracies {pa} and {pb}")
        discordance = pa + pb - 2 * both
        if difference is None:  # the accuracies' own difference, unless --difference names another target
            difference = round(pa - pb, 12) or None  # 0.7 - 0.65 is 0.05, not 0.04999999999999993
        out.update(accuracies=[pa, pb], correlation=args.correlation)
    target = difference  # the difference whose power at --questions is reported (given or from --accuracies)
    if args.pilot:
        est = _pilot(args)
        out["pilot"], out["notes"] = est["pilot"], est["notes"]
        discordance = est.get("discordance", discordance) if sd is None else discordance
        sd = est.get("sd", sd)
        if difference is None:
            difference = abs(est["difference"]) or None
        if questions is None:
            questions = est["pilot"]["n_paired"]
    if sd is None and discordance is None:
        raise ScorekitError("give --discordance (0/1 metrics), --accuracies with --correlation, --sd (scores) or --pilot")
    if difference is None and questions is None:
        raise ScorekitError("give --difference (questions needed) or --questions (minimum detectable difference)")
    binary = sd is None  # exact McNemar on the discordance, else the paired t test on the sd
    out.update({"test": "mcnemar_exact", "discordance": discordance} if binary else {"test": "paired_t", "sd": sd})
    if difference is not None and (questions is None or args.pilot or args.accuracies):
        if binary and abs(difference) > discordance:
            raise ScorekitError(f"the difference ({abs(difference)}) cannot exceed the discordance ({discordance}): "
                                "a difference needs questions on which the models disagree")
        n, achieved, approximate = (pw.mcnemar_sample_size(abs(difference), discordance, args.alpha, args.power) if binary
                                    else pw.paired_t_sample_size(abs(difference), sd, args.alpha, args.power))
        out.update(difference=abs(difference), achieved_power=achieved, questions_approximation=math.ceil(approximate),
                   approximation="Connor (1987), normal approximation of McNemar's test" if binary
                   else "normal approximation ((z_{1-alpha/2} + z_power) sd / D)^2", questions=n)
    if questions is not None:
        if binary:
            mdd = pw.mcnemar_mdd(questions, discordance, args.alpha, args.power)
            out.update(min_detectable_difference=None if math.isnan(mdd) else mdd, at_questions=questions)
            if target is not None and abs(target) <= discordance:
                out["power_at_questions"] = pw.mcnemar_power(questions, abs(target), discordance, args.alpha)
        else:
            out.update(min_detectable_difference=pw.paired_t_mdd(questions, sd, args.alpha, args.power), at_questions=questions)
            if target is not None:
                out["power_at_questions"] = pw.paired_t_power(questions, target, sd, args.alpha)
    return out

