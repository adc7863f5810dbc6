"""The robustness report's rows of budgeted runs, and the quantiles of full runs (issue 32).

A family whose samples logs record a design (``scorekit variants --budget``:
:mod:`scorekit.robustness.budget.runs`) is not summarized question by question (every
question lacks V - B variants): its numbers are :func:`scorekit.robustness.budget.estimate_robustness`'s
estimates of the values a full run on the same questions would report, each with its
interval, and the row says so (``estimated: true``, ``design: {variants, per_question, seed}``).
A full run's row gets the quantiles across variants of per-variant accuracy too, exact
(``accuracy_quantiles_ci_low == _ci_high == the value``; the run's intervals over *other*
questions are ``variant_accuracy_ci``).
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from typing import Any

import numpy as np

from scorekit.robustness.budget.design import DesignError, design_json
from scorekit.robustness.budget.estimate import QUANTILES

__all__ = ["budgeted", "from_budgeted", "refuse_lost_design", "exact_quantiles", "design_label"]


def budgeted(chosen: list[Any]) -> bool:
    """Whether any of a family's sample sets records a budgeted (not full) design."""
    return any(getattr(s, "design", None) is not None and not s.design.full for s in chosen)


def design_label(design: dict[str, int] | None) -> str:
    """``"2 of 100 variants per question, seed 0"`` (tables and notes), ``"full"`` without a design."""
    if not design:
        return "full"
    return f"{design['per_question']} of {design['variants']} variants per question, seed {design['seed']}"


def refuse_lost_design(chosen: list[Any]) -> None:
    """One line (:class:`DesignError`) for a variant log without a design whose every question
    (of two or more) was asked the same k of its V variants, 2 <= k < V: a budgeted log that
    lost its design (:func:`scorekit.robustness.budget.runs.lost_design`). A full run cut by
    ``--limit`` lacks variants of its last question only. lighteval runs each variant as its own
    task, so a run of some of them asks every question the same k: there, only questions asked
    different variants (a design's) make a log budgeted."""
    from scorekit.robustness.budget.runs import lost_design_message

    for s in chosen:
        if (s.layout not in ("variants", "scorekit", "lighteval") or not s.records or s.task.family == "non_greedy"
                or s.samples_per_variant > 1):  # a prompt family sampled N times: variants are template x sample
            continue
        per_q: Counter[str] = Counter(r.question_id for r in s.records)
        nvar = {r.n_variants for r in s.records}
        counts = set(per_q.values())
        if len(per_q) >= 2 and len(counts) == 1 and len(nvar) == 1:
            if s.layout == "lighteval" and len(_asked_sets(s.records)) == 1:
                continue
            why = lost_design_message(counts.pop(), nvar.pop(),
                                      "doc.specific.robust.design" if s.layout == "lighteval" else "_robust.design")
            if why:
                raise DesignError(why, path=s.sources[0] if s.sources else None)


def _asked_sets(records: list[Any]) -> set[frozenset[int]]:
    """The distinct sets of variants the questions were asked."""
    asked: dict[str, set[int]] = {}
    for r in records:
        asked.setdefault(r.question_id, set()).add(int(r.variant))
    return {frozenset(v) for v in asked.values()}


def from_budgeted(model: str, benchmark: str, family: str, chosen: list[Any], notes: list[str], *, macro: bool,
                  confidence: float) -> Any:
    """The report row of a budgeted family (module docstring)."""
    from scorekit.robustness.budget.estimate import estimate_robustness
    from scorekit.robustness.budget.runs import check_family, family_matrix
    from scorekit.robustness.grading import equal_for
    from scorekit.robustness.report_data import FamilyReport, _subset_coverage, _variant_key

    subsets, missing_subsets = _subset_coverage(benchmark, {s.task.subset for s in chosen if s.task.subset})
    rep = FamilyReport(
        model=model, benchmark=benchmark, family=family, source="samples", layout="+".join(sorted({s.layout for s in chosen})),
        tasks=sorted({s.task.name for s in chosen}), subsets=subsets, missing_subsets=missing_subsets, macro=macro,
        sources=[p for s in chosen for p in s.sources], notes=list(notes), estimated=True)
    for s in chosen:
        rep.notes.extend(s.notes)
    budgeted_sets = [s for s in chosen if s.design is not None and not s.design.full]
    mine = budgeted_sets[0]
    first = mine.design
    other = next((s for s in budgeted_sets if s.design.variants != first.variants), None)
    if other is not None:  # one matrix, one V: AGIEval's 4- and 5-option subsets cannot be pooled
        raise DesignError(f"{benchmark} {family}: {mine.task.name} was budgeted over {first.variants} variants, "
                          f"{other.task.name} ({other.sources[0] if other.sources else '?'}) over {other.design.variants}; "
                          "a budgeted report pools one number of variants: give the logs of tasks with one number",
                          path=mine.sources[0] if mine.sources else None)
    rep.design = design_json(first)
    designs = {s.design for s in budgeted_sets}  # a Design is a frozen (variants, per_question, seed)
    if len(designs) > 1:
        rep.notes.append(f"its tasks have {len(designs)} different designs; design shows the first")
    equal = equal_for(benchmark)
    keep: list[str] = []
    records = []
    left_out = 0
    for s in chosen:
        if not s.records:
            continue
        matrix = family_matrix(s.records, equal=equal)
        if s.design is not None and not s.design.full:
            checked = check_family(matrix, s.design, s.design_questions, path=s.sources[0] if s.sources else None,
                                   design_ids=s.design_ids)
            left_out += len(matrix.question_ids) - len(checked.question_ids)
            rep.notes.extend(checked.notes)
            keep.extend(checked.question_ids)
        else:
            complete = [q for q, a in zip(matrix.question_ids, matrix.answers) if len(a) == matrix.n_variants]
            left_out += len(matrix.question_ids) - len(complete)
            keep.extend(complete)
        records.extend(s.records)
    wanted = set(keep)
    records = [r for r in records if r.question_id in wanted]
    rep.n_incomplete = left_out
    if left_out:
        rep.missing.append(f"{left_out} question(s) lack some of their variants and are left out of every number")
    if not records:
        rep.missing.append("no scorable records in the samples logs; every number is unknown")
        return rep
    matrix = family_matrix(records, equal=equal, macro=macro)
    rep.n_questions, rep.n_records = len(matrix.question_ids), matrix.n_records
    rep.unparsed_rate = matrix.unparsed / matrix.n_records if matrix.n_records else math.nan
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = estimate_robustness(matrix.correct, agree=matrix.agree, weights=matrix.weights, confidence=confidence,
                                  parsed=matrix.parsed())
    rep.notes.extend(str(w.message) for w in caught if issubclass(w.category, RuntimeWarning))
    ci = lambda e: (e.ci_low, e.ci_high)  # noqa: E731
    keys = [_variant_key(family, v) for v in range(matrix.n_variants)]
    rep.variant_accuracy = {k: e.value for k, e in zip(keys, est.variant_accuracy)}
    rep.variant_accuracy_ci = {k: ci(e) for k, e in zip(keys, est.variant_accuracy)}
    for name in ("accuracy", "accuracy_min", "accuracy_max", "accuracy_range", "accuracy_std"):
        e = getattr(est, name)
        setattr(rep, name, e.value)
        setattr(rep, name + "_ci", ci(e))
    rep.accuracy_quantiles = {k: e.value for k, e in est.accuracy_quantiles.items()}
    rep.accuracy_quantiles_ci = {k: ci(e) for k, e in est.accuracy_quantiles.items()}
    if est.consistency_rate is not None:
        rep.consistency_rate, rep.consistency_rate_ci = est.consistency_rate.value, ci(est.consistency_rate)
    if est.variance_shares is not None:
        rep.variance_shares = {k: {"value": e.value, "ci_low": e.ci_low, "ci_high": e.ci_high}
                               for k, e in est.variance_shares.items()}
    rep.notes.insert(0, f"budgeted run ({design_label(rep.design)}): every number is an estimate of what a full run "
                        f"on the same {rep.n_questions} questions would report, with its {round(confidence * 100)}% "
                        "interval (docs/budget.md)")
    if family == "option_order":
        rep.notes.append("circular accuracy needs every arrangement of a question: not reported for a budgeted run")
    elif family == "prompt" and any(s.samples_per_variant > 1 for s in chosen):
        rep.notes.append("prompt sensitivity needs every template of a question: not reported for a budgeted run")
    return rep


def exact_quantiles(rep: Any) -> None:
    """A full run's quantiles across variants of per-variant accuracy (``numpy.percentile``,
    linear), with the value as its own interval: exact."""
    values = [x for x in rep.variant_accuracy.values() if x is not None and not math.isnan(x)]
    if len(values) < 2:
        return
    q = np.percentile(np.array(values, dtype=float), QUANTILES)
    rep.accuracy_quantiles = {str(p): float(x) for p, x in zip(QUANTILES, q)}
    rep.accuracy_quantiles_ci = {str(p): (float(x), float(x)) for p, x in zip(QUANTILES, q)}
