"""``scorekit plan``: questions needed to detect a difference between two models, or the smallest
difference N questions can detect (paired designs; docs/plan.md). Built by :mod:`scorekit.compare.plan`
(with ``--robustness`` :mod:`scorekit.robustness.plan_budget`), rendered by
:mod:`scorekit.compare.plan_render`."""

from __future__ import annotations

import argparse

from scorekit.compare.plan import add_arguments  # noqa: F401 - the options, their checks beside them


HELP = "sample size and minimum detectable difference of a paired comparison (exact McNemar, paired t)"
DESCRIPTION = (
    "Size a comparison of two models before running it. With --difference D: the number of "
    "questions the exact McNemar test (0/1 metrics; --discordance P, the share of questions "
    "on which the two models disagree) or the paired t test (per-question scores; --sd S of "
    "the per-question differences) needs to detect D at level --alpha with --power. With "
    "--questions N: the minimum detectable difference. Instead of P, --accuracies A B with "
    "--correlation R (phi of the two models' correctness) give P and D = A - B (--difference "
    "names another D). --pilot RUN_A RUN_B estimates P (or S) and D from two runs that "
    "`scorekit compare` reads. D, P, A, B are fractions "
    "(0.05 = 5 points). With --robustness: the questions, and variants per question, that give a "
    "budgeted robustness run's consistency rate (or quantiles of accuracy across variants, "
    "--target quantiles) an interval of half-width --half-width, from --pilot RUN or --variants V "
    "--consistency-rate R. Formulas and sources: docs/plan.md."
)


def main(args: argparse.Namespace) -> int:
    from scorekit.compare.plan import plan
    from scorekit.compare.plan_render import render
    from scorekit.files import check_output, emit, note

    output = check_output(args.output, args.pilot or [])
    out = plan(args)
    emit(render(out, args.format), output)
    if args.format in ("csv", "latex"):  # no room for notes in the file: say them on stderr
        note(*(out.get("notes") or []))  # (without the line naming the pilot)
    return 0
