"""Accuracy and consistency of one SCORE family from per-answer records (numpy, no harness).

Definitions (Q = complete questions of the family, see "Incomplete questions"):

- per-variant accuracy ``acc_v`` = mean of ``correct`` over the records with variant v (micro),
  or with ``macro=True`` the mean over categories of each category's accuracy among those
  records (MMLU-Pro's ``N_macro_accuracy``; categories without a record for v do not count);
- ``accuracy`` = the same over all records of the family (``non_greedy_(macro_)accuracy``);
- ``accuracy_min/max/range/std`` = min, max, max-min and population standard deviation
  (ddof=0) of the ``acc_v`` values (prompts or answer positions);
- ``consistency_rate`` = pooled CR (SCORE/lm-eval): sum over questions of agreeing answer pairs
  / sum of C(n_k, 2); answers agree when their canonical content is equal (``equal`` for MATH);
  an unparsed answer (None) agrees with nothing, not even another unparsed answer; when no
  question has two parsed answers (e.g. every answer unparsed) CR is undefined (nan, with a
  warning), not 0 (:func:`scorekit.metrics.consistency_rate`);
- ``consistency_rate_ci`` = confidence interval over questions
  (:func:`scorekit.metrics.consistency_rate_interval`, Korn-Graubard, deterministic); (nan, nan)
  with a warning below 10 complete questions;
- ``unparsed_rate`` = share of records whose answer is None.

Intervals (with ``intervals=True``; :mod:`scorekit.metrics.intervals`, at ``confidence``): ``variant_accuracy_ci`` per
variant is Wilson when micro (one 0/1 per complete question), and a bootstrap over questions of
the macro mean when ``macro=True`` (categories are then weighted equally, which Wilson does not
know about); ``accuracy_ci`` (the family's accuracy over all its records, e.g. the non-greedy
accuracy over 5 samples per question) is a percentile bootstrap over questions (a question's
answers resampled together). A bootstrapped accuracy of exactly 0 or 1 gets Wilson's interval
over the questions instead (:func:`scorekit.metrics.intervals.boundary_safe`). ``accuracy_range_ci`` and ``accuracy_std_ci`` are the smallest and largest spread
of per-variant accuracies inside their intervals (:func:`scorekit.metrics.intervals.spread_bounds`):
conservative, where the bootstrap of a spread undercovered (50-68% for equally accurate
variants).
Fewer than 2 complete questions: (nan, nan).

Incomplete questions: a question with fewer records than its ``n_variants`` (``--limit`` cut
through it, or a crashed run) is left out of *every* number above, with a ``RuntimeWarning``,
and counted in ``n_incomplete``; so ``--limit`` can never make the per-variant accuracies
cover different questions, and a half question cannot add a spurious agreeing pair. Two
records for the same (question, variant), or records of one question disagreeing on
``n_variants``, raise :class:`~scorekit.errors.ScorekitError`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.robustness.records import FAMILIES, Family, Record, as_record

__all__ = ["FamilySummary", "summarize", "accuracy", "accuracy_name", "unparsed_rate", "metric_names", "spread_metric_names"]

SPREAD = ("accuracy_min", "accuracy_max", "accuracy_range", "accuracy_std")
_NAN = float("nan")
LIMIT_HINT = "with --limit use a multiple of the variants per question"  # lm-eval's flag; reports of other harnesses replace it


def accuracy_name(macro: bool) -> str:
    """``macro_accuracy`` when accuracy is the mean over categories, else ``accuracy``."""
    return "macro_accuracy" if macro else "accuracy"


def cr_name(family: Family) -> str:
    """Upstream name of a family's consistency rate: ``consistency_rate`` (prompt),
    ``options_consistency_rate``, ``non_greedy_consistency_rate``."""
    return {"prompt": "consistency_rate", "option_order": "options_consistency_rate",
            "non_greedy": "non_greedy_consistency_rate"}[family]


def variant_metric_name(family: Family, variant: int, *, macro: bool) -> str:
    """Upstream name of one variant's accuracy: ``3_macro_accuracy``, ``per_option_accuracy_C``."""
    if family == "prompt":
        return f"{variant}_{accuracy_name(macro)}"
    if family == "option_order":
        from scorekit.robustness.shown_options import letters

        return f"per_option_{accuracy_name(macro)}_{letters(variant + 1)[-1]}"  # past Z: AA, AB, ...
    raise ValueError(f"family {family!r} has no per-variant accuracy metrics")


def spread_metric_names(family: Family) -> tuple[str, ...]:
    """Spread metrics across variants (prompt and option_order families only)."""
    return SPREAD if family in ("prompt", "option_order") else ()


def spread(accuracies: Iterable[float]) -> dict[str, float]:
    """``{name: value}`` of :data:`SPREAD` over per-variant accuracies: min, max, max - min and
    the population standard deviation (ddof=0); nan values are left out, all nan without any.

    >>> spread([0.5, 0.75, float("nan")])
    {'accuracy_min': 0.5, 'accuracy_max': 0.75, 'accuracy_range': 0.25, 'accuracy_std': 0.125}
    """
    arr = np.array([a for a in accuracies if not math.isnan(a)], dtype=np.float64)
    if arr.size == 0:
        return dict.fromkeys(SPREAD, _NAN)
    return dict(zip(SPREAD, (float(arr.min()), float(arr.max()), float(arr.max() - arr.min()), float(arr.std()))))


def metric_names(family: Family, *, macro: bool, n_variants: int = 10) -> list[str]:
    """Every metric name a family reports, in display order.

    prompt: ``N_(macro_)accuracy`` (N < n_variants), spread, ``consistency_rate`` (+``_ci_low``,
    ``_ci_high``), ``unparsed_rate``; option_order: ``per_option_(macro_)accuracy_X`` for the
    first n_variants letters, spread, ``options_consistency_rate`` (+CI), ``unparsed_rate``;
    non_greedy: ``non_greedy_(macro_)accuracy``, ``non_greedy_consistency_rate`` (+CI),
    ``unparsed_rate``.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}")
    cr = cr_name(family)
    if family == "non_greedy":
        head = [f"non_greedy_{accuracy_name(macro)}"]
    else:
        head = [variant_metric_name(family, v, macro=macro) for v in range(n_variants)]
    return [*head, *spread_metric_names(family), cr, f"{cr}_ci_low", f"{cr}_ci_high", "unparsed_rate"]


@dataclass(frozen=True)
class FamilySummary:
    """Numbers of one family on one set of records (see the module docstring)."""

    family: Family
    macro: bool
    n_questions: int
    n_incomplete: int
    n_records: int
    variant_accuracy: dict[int, float]
    accuracy: float
    accuracy_min: float
    accuracy_max: float
    accuracy_range: float
    accuracy_std: float
    consistency_rate: float
    consistency_rate_ci: tuple[float, float]
    agree_pairs: int
    total_pairs: int
    unparsed_rate: float
    incomplete_questions: tuple[str, ...] = field(default=(), repr=False)
    variant_accuracy_ci: dict[int, tuple[float, float]] = field(default_factory=dict)
    accuracy_range_ci: tuple[float, float] = (_NAN, _NAN)
    accuracy_std_ci: tuple[float, float] = (_NAN, _NAN)
    accuracy_ci: tuple[float, float] = (_NAN, _NAN)

    def metrics(self) -> dict[str, float]:
        """Flat ``{metric name: value}`` under the upstream SCORE names (see :func:`metric_names`).

        Per-variant entries exist only for variants that have records.
        """
        out: dict[str, float] = {}
        if self.family == "non_greedy":
            out[f"non_greedy_{accuracy_name(self.macro)}"] = self.accuracy
        else:
            for v in sorted(self.variant_accuracy):
                out[variant_metric_name(self.family, v, macro=self.macro)] = self.variant_accuracy[v]
            out.update({name: getattr(self, name) for name in SPREAD})
        cr = cr_name(self.family)
        out[cr] = self.consistency_rate
        out[f"{cr}_ci_low"], out[f"{cr}_ci_high"] = self.consistency_rate_ci
        out["unparsed_rate"] = self.unparsed_rate
        return out


def _factorize(values: Sequence[Any]) -> tuple[list[Any], np.ndarray]:
    """(distinct values in order of appearance, int code per value); dict passes at C speed,
    much faster than ``np.unique`` on object arrays of strings."""
    table: dict[Any, int] = dict.fromkeys(values, 0)
    for code, value in enumerate(table):
        table[value] = code
    codes = np.fromiter(map(table.__getitem__, values), dtype=np.int64, count=len(values))
    return list(table), codes


def _accuracy(correct: np.ndarray, cat: np.ndarray, n_cat: int, macro: bool) -> float:
    if correct.size == 0:
        return _NAN
    if not macro:
        return float(correct.mean())
    counts = np.bincount(cat, minlength=n_cat)
    sums = np.bincount(cat, weights=correct, minlength=n_cat)
    with np.errstate(invalid="ignore", divide="ignore"):  # mean per category, nan for one without records
        return float(np.nanmean(np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)))


def accuracy(records: Sequence[Record], *, macro: bool = False) -> float:
    """Accuracy of ``records`` as they are (no completeness check): the mean of ``correct``, or
    with ``macro`` the mean over categories of each category's mean; nan without records.

    >>> from scorekit.robustness.records import Record
    >>> recs = [Record("q1", "prompt", 0, 10, "law", 1, True), Record("q2", "prompt", 0, 10, "law", 0, False),
    ...         Record("q3", "prompt", 0, 10, "math", 2, True)]
    >>> accuracy(recs), accuracy(recs, macro=True)
    (0.6666666666666666, 0.75)
    """
    cat_names, cat_idx = _factorize([r.category for r in records])
    correct = np.fromiter((bool(r.correct) for r in records), dtype=np.float64, count=len(records))
    return _accuracy(correct, cat_idx, len(cat_names), macro)


def unparsed_rate(records: Sequence[Record]) -> float:
    """Share of ``records`` whose answer is None; nan without records."""
    return float(np.mean([r.answer is None for r in records])) if records else _NAN


def _intervals(q: np.ndarray, variant: np.ndarray, correct: np.ndarray, cat: np.ndarray, n_cat: int, macro: bool,
               confidence: float) -> tuple[dict[int, tuple[float, float]], tuple[float, float], tuple[float, float],
                                           tuple[float, float]]:
    """Intervals of the per-variant accuracies, the spreads and the family's accuracy (module
    docstring), from the records of complete questions (every question has all of *its*
    variants; option order gives a question as many as it has options, so a position such as
    J is present only in the questions that have it, and its accuracy counts only those)."""
    from scorekit.metrics.intervals import bootstrap_intervals, spread_bounds, wilson_interval

    nan2 = (_NAN, _NAN)
    if correct.size == 0:
        return {}, nan2, nan2, nan2
    qs, q_code = np.unique(q, return_inverse=True)
    vs = np.unique(variant)
    v_code = np.searchsorted(vs, variant)
    n_q, n_v = len(qs), len(vs)
    matrix = np.zeros((n_q, n_v))
    matrix[q_code, v_code] = correct
    present = np.zeros((n_q, n_v))
    present[q_code, v_code] = 1.0
    everywhere = bool(present.all())  # every question has every variant (prompts, samples)
    if not macro:
        variant_ci = {int(v): tuple(float(x) for x in wilson_interval(matrix[:, j].sum(), present[:, j].sum(), confidence))
                      for j, v in enumerate(vs)}
    else:
        # columns: correct x category one-hot per variant, then the category one-hot; the macro
        # accuracy of variant j = mean over present categories of (correct share / question share)
        q_cat = np.zeros(n_q, dtype=np.int64)
        q_cat[q_code] = cat
        onehot = np.eye(n_cat)[q_cat]
        # one category-share block for all variants, or (some variants missing) one per variant;
        # filled in place (no temporaries of the whole matrix)
        n_share = 1 if everywhere else n_v
        columns = np.empty((n_q, (n_v + n_share) * n_cat))
        for j in range(n_v):
            np.multiply(matrix[:, j:j + 1], onehot, out=columns[:, j * n_cat:(j + 1) * n_cat])
        if everywhere:
            columns[:, n_v * n_cat:] = onehot
        else:
            for j in range(n_v):
                np.multiply(present[:, j:j + 1], onehot, out=columns[:, (n_v + j) * n_cat:(n_v + j + 1) * n_cat])

        def per_variant(means: np.ndarray) -> np.ndarray:
            accs = []
            for j in range(n_v):
                k = n_v if everywhere else n_v + j
                share = means[..., k * n_cat:(k + 1) * n_cat]
                with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # a draw without the variant: nan
                    accs.append(np.nanmean(np.where(share > 0, means[..., j * n_cat:(j + 1) * n_cat] / share, np.nan),
                                           axis=-1))
            return np.stack(accs, axis=-1)

        stats = [lambda m, j=j: per_variant(m)[..., j] for j in range(n_v)]
        results = bootstrap_intervals(columns, stats, confidence=confidence)
        estimates = per_variant(columns.mean(axis=0))
        reported = {int(v): _reported(float(estimates[j]), (r.ci_low, r.ci_high), int(present[:, j].sum()), confidence)
                    for j, (v, r) in enumerate(zip(vs, results))}
        variant_ci = {v: ci for v, (ci, _) in reported.items()}
        for why in dict.fromkeys(why for _, why in reported.values() if why):
            warnings.warn(f"per-variant (macro) accuracy intervals (bootstrap over questions): none given, {why}",
                          RuntimeWarning, stacklevel=2)
    acc_ci = _accuracy_interval(q_code, n_q, correct, cat, n_cat, macro, confidence)
    if n_v < 2:
        return variant_ci, nan2, nan2, acc_ci
    # a spread's interval from the accuracies' own (its bootstrap undercovers: intervals.spread_bounds)
    lows, highs = zip(*variant_ci.values())
    return variant_ci, spread_bounds("range", lows, highs), spread_bounds("std", lows, highs), acc_ci


def _accuracy_interval(q_code: np.ndarray, n_q: int, correct: np.ndarray, cat: np.ndarray, n_cat: int, macro: bool,
                       confidence: float) -> tuple[float, float]:
    """Percentile bootstrap over questions of the family's accuracy (all records of complete
    questions, as ``accuracy``): per question its correct answers and its records, split by
    category when ``macro``; the statistic is total correct / total records (micro) or the mean
    over categories of that ratio (macro), so questions with different numbers of variants
    (answer positions) weigh as their records do."""
    from scorekit.metrics.intervals import bootstrap_interval

    groups = cat if macro else np.zeros_like(cat)
    n_g = n_cat if macro else 1
    cell = q_code * n_g + groups
    right = np.bincount(cell, weights=correct, minlength=n_q * n_g).reshape(n_q, n_g)
    count = np.bincount(cell, minlength=n_q * n_g).reshape(n_q, n_g).astype(np.float64)

    def ratio(means: np.ndarray) -> np.ndarray:
        num, den = means[..., :n_g], means[..., n_g:]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.nanmean(np.where(den > 0, num / den, np.nan), axis=-1)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a draw without some category: nanmean of the rest
        r = bootstrap_interval(np.hstack([right, count]), ratio, confidence=confidence)
    ci, why = _reported(r.estimate, (r.ci_low, r.ci_high), n_q, confidence)
    if why:
        warnings.warn(f"accuracy interval (bootstrap over questions): none given, {why}", RuntimeWarning, stacklevel=2)
    return ci


def _reported(estimate: float, interval: tuple[float, float], n: int,
              confidence: float) -> tuple[tuple[float, float], str | None]:
    """(interval, why it is withheld) of a bootstrapped accuracy as every command reports it:
    Wilson's at an accuracy of 0 or 1 (:func:`~scorekit.metrics.intervals.boundary_safe`), else
    the bootstrap's when :func:`~scorekit.metrics.intervals.unreported` allows it, else
    (nan, nan) and the reason (the caller warns: the report turns warnings into notes)."""
    from scorekit.metrics.intervals import boundary_safe, unreported

    safe = boundary_safe(estimate, interval, n, confidence)
    if safe != interval:
        return safe, None
    why = unreported(*interval, n, resampled=True)
    return (interval, None) if why is None else ((_NAN, _NAN), why)


def summarize(records: Iterable[Record | Any], *, macro: bool = False, equal: Callable[[Any, Any], bool] | None = None,
              confidence: float = 0.95, intervals: bool = False) -> FamilySummary:
    """Summarize the records of ONE family (mixing families raises ScorekitError).

    ``intervals=True`` also computes the per-variant and spread intervals (a bootstrap: off by
    default, since the harness aggregation does not report them); without it they are nan.

    ``equal`` compares two non-None answers (default: ``==`` on the canonical content; MATH
    passes :func:`scorekit.metrics.math_equivalent`). Records may be :class:`Record` objects
    or anything :func:`scorekit.robustness.records.as_record` accepts.
    """
    from scorekit.metrics import consistency_summary

    recs = [r if isinstance(r, Record) else as_record(r) for r in records]
    n = len(recs)
    families = {r.family for r in recs}
    if len(families) > 1:
        raise ScorekitError(f"records of several families given together: {sorted(families)}; summarize each family")
    family = recs[0].family if recs else "prompt"

    questions, q_idx = _factorize([r.question_id for r in recs])
    q_names = np.array(questions, dtype=object)
    variant = np.fromiter((r.variant for r in recs), dtype=np.int64, count=n)
    nvar = np.fromiter((r.n_variants for r in recs), dtype=np.int64, count=n)
    correct = np.fromiter((bool(r.correct) for r in recs), dtype=bool, count=n)
    answers_all = [r.answer for r in recs]
    parsed = np.fromiter((a is not None for a in answers_all), dtype=bool, count=n)
    n_q = len(q_names)

    if n and (variant.min() < 0 or np.any(variant >= nvar)):
        bad = int(np.flatnonzero((variant < 0) | (variant >= nvar))[0])
        raise ScorekitError(f"question {recs[bad].question_id!r}: variant {recs[bad].variant} outside 0..{recs[bad].n_variants - 1}")
    nv_max = np.zeros(n_q, dtype=np.int64)
    nv_min = np.full(n_q, np.iinfo(np.int64).max)
    np.maximum.at(nv_max, q_idx, nvar)
    np.minimum.at(nv_min, q_idx, nvar)
    if np.any(nv_max != nv_min):
        q = int(np.flatnonzero(nv_max != nv_min)[0])
        raise ScorekitError(f"question {q_names[q]!r}: records disagree on n_variants ({nv_min[q]} vs {nv_max[q]})")
    counts = np.bincount(q_idx, minlength=n_q)
    if n:
        key = q_idx * (int(variant.max()) + 1) + variant
        uniq_keys = np.unique(key)
        if uniq_keys.size != n:
            dup = np.setdiff1d(np.arange(n), np.unique(key, return_index=True)[1])[0]
            raise ScorekitError(f"question {recs[dup].question_id!r}: variant {recs[dup].variant} appears more than once")
    complete_q = counts == nv_max
    n_incomplete = int(n_q - complete_q.sum())
    incomplete_names = tuple(str(x) for x in q_names[~complete_q])
    if n_incomplete:
        warnings.warn(
            f"SCORE {family}: {n_incomplete} question(s) with missing variants left out of every metric "
            f"(e.g. {incomplete_names[0]!r}); {LIMIT_HINT}",
            RuntimeWarning,
            stacklevel=2,
        )
    keep = complete_q[q_idx] if n else np.zeros(0, dtype=bool)
    idx = np.flatnonzero(keep)

    categories, cat_idx = _factorize([recs[i].category for i in idx.tolist()])
    n_cat = len(categories)
    c_keep, v_keep, p_keep = correct[idx].astype(np.float64), variant[idx], parsed[idx]

    variant_accuracy: dict[int, float] = {}
    for v in np.unique(v_keep):
        sel = v_keep == v
        variant_accuracy[int(v)] = _accuracy(c_keep[sel], cat_idx[sel], n_cat, macro)
    # Answers of each complete question, in variant order.
    order = idx[np.lexsort((variant[idx], q_idx[idx]))]
    answers = [answers_all[i] for i in order.tolist()]
    sizes = nv_max[complete_q]
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    groups = [answers[bounds[k]:bounds[k + 1]] for k in range(len(sizes))]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agree_sum, total_sum, cr, ci = consistency_summary(groups, equal=equal, confidence=confidence)
    if total_sum:
        for message in dict.fromkeys((str(w.message), w.category) for w in caught):
            warnings.warn(f"SCORE {family}: {message[0]}", message[1], stacklevel=2)
    else:
        if n:
            warnings.warn(f"SCORE {family}: no complete question with two or more answers; CR is nan", RuntimeWarning, stacklevel=2)
        cr, ci = _NAN, (_NAN, _NAN)

    variant_ci, range_ci, std_ci, acc_ci = (_intervals(q_idx[idx], v_keep, c_keep, cat_idx, n_cat, macro, confidence)
                                            if intervals else ({}, (_NAN, _NAN), (_NAN, _NAN), (_NAN, _NAN)))
    return FamilySummary(
        accuracy_ci=acc_ci, variant_accuracy_ci=variant_ci, accuracy_range_ci=range_ci, accuracy_std_ci=std_ci,
        family=family, macro=macro, n_questions=int(complete_q.sum()), n_incomplete=n_incomplete,
        n_records=int(idx.size), variant_accuracy=variant_accuracy, accuracy=_accuracy(c_keep, cat_idx, n_cat, macro),
        **spread(variant_accuracy.values()), consistency_rate=float(cr), consistency_rate_ci=(float(ci[0]), float(ci[1])),
        agree_pairs=agree_sum, total_pairs=total_sum, unparsed_rate=float((~p_keep).mean()) if idx.size else _NAN,
        incomplete_questions=incomplete_names,
    )
