"""Pair runs on shared questions and compare them (pure: per-question tables in, rows out).

A run is a table ``{task: {metric: MetricValues}}`` with one row of numbers per question id.
The ``kind`` of a metric says how its corpus value is made from the rows, and so which
comparison applies:

``binary``
    one 0/1 value per question (acc, acc_norm, exact_match, one prompt's or one answer
    position's SCORE accuracy); value = mean. Difference with the exact McNemar p-value
    (``test = "mcnemar"``) and the interval inverted from the same conditional binomial test
    (:func:`scorekit.metrics.intervals.mcnemar_interval`): it excludes 0 exactly when p < alpha.
``mean``
    one number per question (a non-0/1 score, the non-greedy accuracy over samples);
    value = mean. A metric that is 0/1 in one run and not in the other is compared as mean.
``ratio``
    (agreeing pairs, pairs, pairs of two parsed answers) per question; value = sum agreeing /
    sum pairs (the pooled consistency rate). Undefined (nan, never 0) when no question has two
    parsed answers (the third column sums to 0: every answer unparsed): such a value is shown
    as missing with the reason, and no comparison is made with it. Two columns are read as
    every pair being between parsed answers.
``range``, ``std``
    one 0/1 value per prompt or answer position; value = the range or population std of the
    column means (SCORE accuracy spread). Difference interval: the box of the two runs'
    spread intervals (each :func:`scorekit.metrics.intervals.spread_bounds` of the columns'
    Wilson intervals on the shared questions), [lo_a - hi_b, hi_a - lo_b]; p-value: the
    inversion of that box (``test = "spread_box"``; the paired bootstrap of a spread
    difference covered ~75% when one model has a prompt effect and the other not).

``mean`` and ``ratio`` get the paired-bootstrap difference (expanded percentile) and the
p-value inverted from that same interval (``test = "paired_bootstrap"``: the smallest alpha at
which the 1 - alpha interval excludes 0; coarse below 1/n_boot). In every kind ``p_value``
<= alpha exactly when the (1 - alpha) interval excludes 0: it is never adjusted. Adjusted
p-values have fields of their own: ``p_value_adjusted_pairs``, Holm over the pairs of runs of
one (task, metric) (with two runs, the p-value itself); ``p_value_adjusted``, Holm over every
comparison of the call in the same ``family``: ``"logged"`` (the metrics the logs hold, which
the user asked for) or ``"derived"`` (pass@k rows scorekit derives from epochs,
:attr:`MetricValues.derived`), so derived rows never weaken the test of a logged metric.

``min_detectable_difference``: the smallest |difference| the comparison's test would detect
with 80% power at level 1 - confidence, on its paired questions (:mod:`scorekit.compare.power`):
for ``binary`` the exact McNemar power at the observed discordance; otherwise read off the
interval's half-width h as h (1 + z_0.8 / z_{1-alpha/2}).

Undefined is never a number. An interval is shown only when
:func:`scorekit.metrics.intervals.unreported` allows it (the rule of every command: no
resampled interval below 10 questions, none of zero width); otherwise the interval, the p-value
and the MDD read from it are nan, and the row's ``note`` says why. So is an MDD McNemar cannot
give (no discordant question; too few for 80% power), and every number of a comparison with
an undefined value.

Values (:func:`run_values`): each run's own value of every metric on all its questions, with a
confidence interval over questions: Wilson for ``binary`` (and for a ``mean`` of values in
[0, 1] that is exactly 0 or 1, where the bootstrap has zero width:
:func:`scorekit.metrics.intervals.boundary_safe`); the percentile bootstrap over questions for
``mean`` (corpus pass@k, G-Pass@k and mG-Pass@k are means of per-question values); the
Korn-Graubard interval for ``ratio``, as ``scorekit robustness`` gives
(:func:`scorekit.metrics.consistency.korn_graubard_interval`); for ``range`` and ``std`` the
smallest and largest spread of the columns' accuracies inside their Wilson intervals
(:func:`scorekit.metrics.intervals.spread_bounds`). The same rule decides which are shown.

Pairing: two runs are compared on the questions both have, for every task and metric both
have with the same kind; the questions only one run has are named in a note (never dropped
silently). When both runs carry a content fingerprint (lm-eval's ``doc_hash``) for every
question, unique within each run, and pairing by id would leave a question unpaired or pair
different documents, the questions are paired by content instead (a note says so): the same
documents in another order are the same questions. ``difference = a_value - b_value``, both
values on the shared questions only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations, groupby

import numpy as np

from scorekit.harness_outputs.values import KINDS, MetricValues, per_question
from scorekit.compare.power import interval_mdd, mcnemar_mdd
from scorekit.errors import listed
from scorekit.metrics.intervals import (boundary_safe, bootstrap_interval, holm, inverted_p, mcnemar_interval,
                                        mcnemar_p, paired_bootstrap, spread_bounds, spread_statistic, unreported,
                                        wilson_interval)

__all__ = ["KINDS", "FAMILIES", "MetricValues", "per_question", "Run", "Comparison", "Value", "compare_runs", "paired_rows",
           "run_labels", "run_values", "undefined_reason"]

FAMILIES = ("logged", "derived")  # Holm families of p_value_adjusted
_SHOWN = 5  # question ids named in a note before "and N more"


@dataclass
class Run:
    """One run: its label (unique among the compared runs), model and per-task metrics."""

    label: str
    model: str
    source: str
    tasks: dict[str, dict[str, MetricValues]]
    notes: list[str] = field(default_factory=list)


class _Row:
    def to_json(self) -> dict:
        """The row's fields, nan as None."""
        return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in self.__dict__.items()}


@dataclass
class Comparison(_Row):
    """One row of ``scorekit compare`` (the JSON shape documented in docs/compare.md).

    ``p_value`` is the test's own (it agrees with ``ci_low``/``ci_high``); the adjusted ones
    are ``p_value_adjusted_pairs`` and ``p_value_adjusted`` (module docstring). ``note``: why
    a number of the row is nan (None when every number is given)."""

    task: str
    metric: str
    a: str
    b: str
    n_paired: int
    a_value: float
    b_value: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    test: str
    kind: str
    a_only: int
    b_only: int
    min_detectable_difference: float = math.nan
    p_value_adjusted_pairs: float = math.nan
    p_value_adjusted: float = math.nan
    family: str = "logged"
    note: str | None = None


@dataclass
class Value(_Row):
    """One run's value of one metric on all its questions, with its interval (:func:`run_values`)."""

    task: str
    metric: str
    run: str
    model: str
    n: int
    value: float
    ci_low: float
    ci_high: float
    method: str
    kind: str
    note: str | None = None  # why the value or its interval is nan


def undefined_reason(kind: str, rows: np.ndarray) -> str | None:
    """Why the value of these rows is undefined (None when it is defined): a consistency rate
    with no question holding two parsed answers."""
    if kind == "ratio" and len(rows) and rows[:, 2].sum() == 0:
        return "no question has two parsed answers, so the consistency rate is undefined (not 0)"
    return None


def _value_interval(kind: str, rows: np.ndarray, value: float, *, confidence: float, n_boot: int,
                    seed: int | None) -> tuple[float, float, str, bool]:
    """(low, high, method, resampled) of one run's value (module docstring)."""
    if kind == "binary":
        lo, hi = wilson_interval(rows[:, 0].sum(), len(rows), confidence)
        return lo, hi, "wilson", False
    if kind in ("range", "std"):  # from the columns' Wilson intervals (the bootstrap of a spread undercovers)
        return *_spread_interval(kind, rows, confidence), "spread of Wilson intervals", False
    if kind == "ratio":
        from scorekit.metrics.consistency import korn_graubard_interval

        return *korn_graubard_interval(rows[:, 0], rows[:, 1], confidence=confidence), "korn-graubard", True
    boot = bootstrap_interval(rows, n_boot=n_boot, confidence=confidence, seed=seed)
    if value in (0.0, 1.0) and ((rows >= 0) & (rows <= 1)).all():  # all 0 or all 1: zero width, Wilson's instead
        return *boundary_safe(value, (boot.ci_low, boot.ci_high), len(rows), confidence), "wilson", False
    return boot.ci_low, boot.ci_high, "bootstrap", True


def run_values(runs: Sequence[Run], *, confidence: float = 0.95, n_boot: int = 2000,
               seed: int | None = 0) -> tuple[list[Value], list[str]]:
    """Every run's value of every task and metric on all its questions, with the interval of the
    module docstring; a value or interval that is undefined or not reported is nan with the
    reason in ``note``. Returns (values sorted by task, metric, then run order; notes, one per
    reason, naming the values)."""
    out = []
    for order, r in enumerate(runs):
        for task, metrics in r.tasks.items():
            for metric, mv in metrics.items():
                if len(mv.rows) == 0:
                    continue
                reason = undefined_reason(mv.kind, mv.rows)
                value, lo, hi = _value(mv.kind, mv.rows), math.nan, math.nan
                method = "korn-graubard" if mv.kind == "ratio" else ""
                if reason is None:
                    lo, hi, method, resampled = _value_interval(mv.kind, mv.rows, value, confidence=confidence,
                                                                n_boot=n_boot, seed=seed)
                    n = int((mv.rows[:, 1] > 0).sum()) if mv.kind == "ratio" else len(mv.rows)
                    why = unreported(lo, hi, n, resampled=resampled)
                    if why is not None:
                        lo, hi, reason = math.nan, math.nan, f"no interval: {why}"
                out.append((task, metric, order, Value(task, metric, r.label, r.model, len(mv.rows), value, float(lo),
                                                       float(hi), method, mv.kind, reason)))
    out.sort(key=lambda t: t[:3])
    values = [v for *_, v in out]
    return values, _reason_notes([(v.note, f"{v.task} {v.metric} ({v.run})") for v in values])


def _reason_notes(reasons: Sequence[tuple[str | None, str]]) -> list[str]:
    """One note per distinct reason, naming what it applies to (the first five, then a count)."""
    by_reason: dict[str, list[str]] = {}
    for reason, name in reasons:
        if reason is not None:
            by_reason.setdefault(reason, []).append(name)
    return [f"{reason}: {listed(names, _SHOWN)}" for reason, names in by_reason.items()]


def run_labels(models: Sequence[str]) -> list[str]:
    """Model names as labels; runs of one model get ``#1``, ``#2``, ... in the given order.

    >>> run_labels(["m/a", "m/b", "m/a"])
    ['m/a#1', 'm/b', 'm/a#2']
    """
    seen: Counter[str] = Counter()
    out = []
    for m in models:
        seen[m] += 1
        out.append(f"{m}#{seen[m]}" if models.count(m) > 1 else m)
    return out


def _value(kind: str, rows: np.ndarray) -> float:
    if kind == "ratio":
        den = rows[:, 1].sum()
        return float(rows[:, 0].sum() / den) if den and rows[:, 2].sum() else math.nan
    if kind in ("range", "std"):
        return float(spread_statistic(kind)(rows.mean(axis=0)[None, :])[0])
    return float(rows[:, 0].mean())


def _statistic(kind: str):
    if kind == "ratio":
        def ratio(means: np.ndarray) -> np.ndarray:  # nan in a draw without two parsed answers
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(means[..., 2] > 0, means[..., 0] / means[..., 1], np.nan)
        return ratio
    if kind in ("range", "std"):
        return spread_statistic(kind)
    return None


def _by_content(ma: MetricValues, mb: MetricValues) -> bool:
    """Pair by fingerprint: both runs have one for every question, unique within each run, and
    pairing by id would leave out or mismatch a question that content pairing keeps."""
    fa, fb = ma.fingerprints, mb.fingerprints
    if not fa or not fb or not all(fa) or not all(fb) or len(set(fa)) != len(fa) or len(set(fb)) != len(fb):
        return False
    by_id = dict(zip(mb.ids, fb))
    in_b = set(fb)
    return any(by_id.get(q) != f for q, f in zip(ma.ids, fa) if f in in_b)


def paired_rows(task: str, metric: str, ra: Run, rb: Run, ma: MetricValues, mb: MetricValues,
                notes: list[str]) -> tuple[np.ndarray, np.ndarray, int, int] | None:
    """(rows of a, rows of b on the shared questions in one order, a-only count, b-only count),
    by the pairing rules of the module docstring (notes added); None when nothing pairs."""
    shown: dict[str, str] = {}  # content pairing: a hash -> the question id to name in notes
    if _by_content(ma, mb):
        notes.append(f"{task}: question ids of {ra.label} and {rb.label} name different documents; questions "
                     f"paired by content (document hash) instead")
        shown = {**dict(zip(mb.fingerprints, (f"{rb.label}:{q}" for q in mb.ids))),
                 **dict(zip(ma.fingerprints, (f"{ra.label}:{q}" for q in ma.ids)))}
        ma = MetricValues(ma.kind, list(ma.fingerprints), ma.rows)
        mb = MetricValues(mb.kind, list(mb.fingerprints), mb.rows)
    pos_b = {q: i for i, q in enumerate(mb.ids)}
    fa, fb = ma.fingerprints, mb.fingerprints
    ia, ib, differ = [], [], []
    for i, q in enumerate(ma.ids):
        j = pos_b.get(q)
        if j is None:
            continue
        if fa and fb and fa[i] and fb[j] and fa[i] != fb[j]:
            differ.append(q)
            continue
        ia.append(i)
        ib.append(j)
    if differ:
        notes.append(f"{task}: {len(differ)} question id(s) hold different documents in {ra.label} and {rb.label} "
                     f"(document hashes differ), not paired: {listed(differ, _SHOWN)}")
    a_only = [q for q in ma.ids if q not in pos_b]
    in_a = set(ma.ids)
    b_only = [q for q in mb.ids if q not in in_a]
    for label, only in ((ra.label, a_only), (rb.label, b_only)):
        if only:
            other = rb.label if label == ra.label else ra.label
            notes.append(f"{task}: {len(only)} question(s) of {label} not in {other}, left out of their "
                         f"comparison: {listed([shown.get(q, q) for q in only], _SHOWN)}")
    if not ia:
        notes.append(f"{task} {metric}: {ra.label} and {rb.label} share no question; not compared")
        return None
    xa, xb = ma.rows[ia], mb.rows[ib]
    if xa.shape[1] != xb.shape[1]:
        notes.append(f"{task} {metric}: {ra.label} has {xa.shape[1]} columns per question, {rb.label} {xb.shape[1]}; not compared")
        return None
    return xa, xb, len(a_only), len(b_only)


def _mcnemar_mdd(n: int, discordant: int, confidence: float) -> tuple[float, str | None]:
    """(MDD, why it is nan) of a McNemar comparison (module docstring)."""
    if discordant == 0:
        return math.nan, "no MDD: the runs never disagree on these questions, so McNemar's power has no discordance to work with"
    mdd = mcnemar_mdd(n, discordant / n, 1 - confidence)
    if math.isnan(mdd):
        return mdd, (f"no MDD: with {discordant} discordant question(s) of {n}, no difference reaches 80% power "
                     "(not even all of them going one way)")
    return mdd, None


def _compare_metric(task: str, metric: str, ra: Run, rb: Run, ma: MetricValues, mb: MetricValues,
                    notes: list[str], *, confidence: float, n_boot: int, seed: int | None) -> Comparison | None:
    paired = paired_rows(task, metric, ra, rb, ma, mb, notes)
    if paired is None:
        return None
    xa, xb, a_only, b_only = paired
    n = len(xa)
    kind = ma.kind if ma.kind == mb.kind else "mean"
    a_value, b_value = _value(kind, xa), _value(kind, xb)
    family = "derived" if ma.derived or mb.derived else "logged"
    undefined = [(label, why) for label, x in ((ra.label, xa), (rb.label, xb))
                 if (why := undefined_reason(kind, x)) is not None]
    if undefined:
        why = "; ".join(f"for {' and '.join(label for label, r in undefined if r == reason)}, {reason}"
                        for reason in dict.fromkeys(r for _, r in undefined))
        return Comparison(task, metric, ra.label, rb.label, n, a_value, b_value, math.nan, math.nan, math.nan, math.nan,
                          "none", kind, a_only, b_only, family=family, note=f"not compared: {why}")
    reason = None
    if kind == "binary":
        (lo, hi), p, test = mcnemar_interval(xa[:, 0], xb[:, 0], confidence), mcnemar_p(xa[:, 0], xb[:, 0]), "mcnemar"
        mdd, reason = _mcnemar_mdd(n, int(np.sum(xa[:, 0] != xb[:, 0])), confidence)
    else:
        if kind in ("range", "std"):
            def box(conf: float) -> tuple[float, float]:
                return _spread_difference_box(kind, xa, xb, conf)
            (lo, hi), test, resampled = box(confidence), "spread_box", False
            p = inverted_p(box, tol=1e-5) if n > 1 else math.nan
        else:
            boot = paired_bootstrap(xa, xb, _statistic(kind), n_boot=n_boot, confidence=confidence, seed=seed)
            lo, hi, p, test, resampled = boot.ci_low, boot.ci_high, boot.p_value, "paired_bootstrap", True
        why = unreported(lo, hi, n, resampled=resampled)
        if why is not None:  # no interval: neither a p-value nor an MDD read from it
            lo = hi = p = math.nan
            reason = f"no interval, p or MDD: {why}"
        mdd = interval_mdd(lo, hi, confidence)
    return Comparison(task, metric, ra.label, rb.label, n, a_value, b_value, a_value - b_value, lo, hi, p, test, kind,
                      a_only, b_only, mdd, family=family, note=reason)


def _spread_difference_box(kind: str, xa: np.ndarray, xb: np.ndarray, confidence: float) -> tuple[float, float]:
    """[lo_a - hi_b, hi_a - lo_b] from each run's spread interval (box of its columns' Wilson
    intervals); nan below 2 questions."""
    if len(xa) < 2:
        return math.nan, math.nan
    (lo_a, hi_a), (lo_b, hi_b) = _spread_interval(kind, xa, confidence), _spread_interval(kind, xb, confidence)
    return lo_a - hi_b, hi_a - lo_b


def _spread_interval(kind: str, rows: np.ndarray, confidence: float) -> tuple[float, float]:
    """The smallest and largest spread of the columns' accuracies inside their Wilson intervals."""
    return spread_bounds(kind, *wilson_interval(rows.sum(axis=0), len(rows), confidence))


def compare_runs(runs: Sequence[Run], *, confidence: float = 0.95, n_boot: int = 2000,
                 seed: int | None = 0) -> tuple[list[Comparison], list[str]]:
    """Every pair (a, b) of ``runs`` in the given order, every shared task and metric.

    Returns (comparisons sorted by task, metric, then pair order; notes). Tasks or metrics
    that only some runs have are named in a note; so are metrics whose kind differs.
    """
    if len(runs) < 2:
        raise ValueError("compare needs at least two runs")
    labels = [r.label for r in runs]
    if len(set(labels)) != len(labels):
        raise ValueError(f"run labels must be unique, got {labels}")
    notes: list[str] = []
    all_tasks = sorted(set().union(*(r.tasks for r in runs)))
    for task in all_tasks:
        lacking = [r.label for r in runs if task not in r.tasks]
        if lacking:
            rest = "not compared" if len(runs) - len(lacking) < 2 else "compared only between the runs that have it"
            notes.append(f"task {task} is missing from {', '.join(lacking)}; {rest}")
    out: list[Comparison] = []
    for ra, rb in combinations(runs, 2):
        for task in sorted(set(ra.tasks) & set(rb.tasks)):
            ta, tb = ra.tasks[task], rb.tasks[task]
            for metric in sorted(set(ta) | set(tb)):
                if metric not in ta or metric not in tb:
                    has = ra.label if metric in ta else rb.label
                    notes.append(f"{task} {metric}: only {has} has it (of {ra.label}, {rb.label}); not compared")
                    continue
                if ta[metric].kind != tb[metric].kind and {ta[metric].kind, tb[metric].kind} != {"binary", "mean"}:
                    notes.append(f"{task} {metric}: {ra.label} has {ta[metric].kind} values, {rb.label} "
                                 f"{tb[metric].kind}; not compared")
                    continue
                c = _compare_metric(task, metric, ra, rb, ta[metric], tb[metric], notes,
                                    confidence=confidence, n_boot=n_boot, seed=seed)
                if c is not None:
                    out.append(c)
    order = {label: i for i, label in enumerate(labels)}
    out.sort(key=lambda c: (c.task, c.metric, order[c.a], order[c.b]))
    for _, group in groupby(out, key=lambda c: (c.task, c.metric)):  # Holm over the pairs: rows sorted by them
        pairs = list(group)
        for c, adjusted in zip(pairs, holm([c.p_value for c in pairs])):
            c.p_value_adjusted_pairs = adjusted
    for name in FAMILIES:  # Holm over the call, logged metrics and derived pass@k apart
        members = [c for c in out if c.family == name]
        for c, adjusted in zip(members, holm([c.p_value for c in members])):
            c.p_value_adjusted = adjusted
    notes.extend(_reason_notes([(c.note, f"{c.task} {c.metric} ({c.a} vs {c.b})") for c in out]))
    return out, list(dict.fromkeys(notes))
