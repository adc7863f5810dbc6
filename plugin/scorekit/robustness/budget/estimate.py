"""Robustness of a family from a budgeted (or full) run: estimates with honest intervals.

Input: the (N questions, V variants) matrix of correctness, 1/0 where the question was asked
under the variant and NaN where it was not (a budgeted run asks B of V per question), and
optionally each question's number of agreeing answer pairs among its asked variants (for the
consistency rate). Every estimate is of the value a *full run on the same questions* would
report, and every interval (95% by default) is for that value:

- ``variant_accuracy``: each variant's accuracy over the N questions (weighted by the question
  weights when given, e.g. 1/(categories x category size) for a macro accuracy);
- ``accuracy``: the mean of the V per-variant accuracies;
- ``accuracy_quantiles``: the 5/25/50/75/95 quantiles across variants of the per-variant
  accuracy (``numpy.percentile``, linear interpolation between order statistics), keyed
  "5" .. "95";
- ``accuracy_min/max/range/std``: min, max, max - min and population standard deviation
  (ddof=0) of the per-variant accuracies (as the report computes them for full runs);
- ``variance_shares``: question / variant / within shares of the variance of correctness,
  by the definitions of :mod:`scorekit.robustness.variance` (unweighted);
- ``consistency_rate``: pooled CR (:mod:`scorekit.metrics.consistency`): the full run's share
  of agreeing answer pairs, sum_q agree_q / sum_q C(V, 2) = the mean over questions of R_q, the
  question's share of agreeing pairs among its V answers.

**Full runs** (no NaN): every value is computed exactly and its interval is the value itself
(``exact`` is True): there is nothing to estimate about the run. (The report's other intervals,
over *other* questions, answer another question and are computed elsewhere.)

**Budgeted runs** (:mod:`scorekit.robustness.budget.model`): the IRT model is fitted to the
asked cells, then ``draws`` joint draws of the full run are made (the asked cells as they are,
the others drawn from the fitted model with the doubt about every parameter but the shape of
the question distribution). Each quantity is computed on every draw; the estimate is the
median of the draws, the interval their central ``confidence`` range. Because 20 questions per
variant (N = 1,000, V = 100, B = 2) cannot tell a small spread of the variants from none, the
spread is integrated under two priors: flat in tau, and the same with half its mass on
"no variant effect" (tau = 0). The estimate is the flat prior's median; the interval is the
union of the two priors' intervals, so it holds the no-spread answer when the data allow it
(bench/sim_budget.py: coverage of the flat prior alone was 75-85% when the variants truly do
not differ). One set of draws serves both: the (nu, tau) of a draw is drawn from the mixture
of the two posteriors and each prior's quantiles are importance-weighted (weights at most 2).

**Consistency rate** (budgeted): design-based, no model in the estimate. The design gives each
question a uniformly random B-subset of its V variants (:mod:`~scorekit.robustness.budget.design`),
so a question's share of agreeing pairs among its B answers, r_q = agree_q / C(B, 2), is
unbiased for R_q, and the mean of the r_q for the full run's CR. Its variance is the design
variance, sum_q Var(r_q) / N^2, with Var(r_q) = the variance of a U-statistic of B answers
drawn without replacement from V (Hoeffding):

    Var(r_q) = 2/(B(B-1)) (z2 + 2(B-2) z1) - 2/(V(V-1)) (z2 + 2(V-2) z1)

z2 = s2 - s2^2, z1 = s3 - s2^2, s2 (s3) the chance that two (three) of the question's answers
agree, which one pair per question cannot measure: they come from the model: two answers
agree when both are right, or both wrong with the same wrong answer, s2 = mean over variant
pairs of p_v p_w + rho (1 - p_v)(1 - p_w), s3 likewise with rho3 = 2 rho^2 / (1 + rho) (the
Dirichlet-process relation), p_v = the model's P(correct) at the question's easiness
(averaged over its posterior), rho = the pooled share of agreeing pairs among the asked
pairs of two wrong answers. A question asked all V variants has Var 0. The interval is
normal, clipped to [0, 1].
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from scorekit.robustness.budget import model
from scorekit.robustness.budget.design import BudgetError
from scorekit.robustness.variance import COMPONENTS, _components

__all__ = ["QUANTILES", "Estimate", "RobustnessEstimates", "estimate_robustness", "MIN_QUESTIONS", "DRAWS"]

QUANTILES = (5, 25, 50, 75, 95)
DRAWS = 500
MIN_QUESTIONS = 10
SPREAD = ("accuracy_min", "accuracy_max", "accuracy_range", "accuracy_std")


@dataclass(frozen=True)
class Estimate:
    """A value with its interval (``ci_low == value == ci_high`` for an exact value)."""

    value: float
    ci_low: float
    ci_high: float

    @classmethod
    def exact(cls, value: float) -> Estimate:
        return cls(float(value), float(value), float(value))


_NAN_ESTIMATE = Estimate(math.nan, math.nan, math.nan)


@dataclass
class RobustnessEstimates:
    """What :func:`estimate_robustness` returns; :meth:`to_json` gives the report's fields."""

    exact: bool
    n_questions: int
    n_variants: int
    per_question: int | None
    confidence: float
    variant_accuracy: list[Estimate]
    accuracy: Estimate
    accuracy_quantiles: dict[str, Estimate]
    accuracy_min: Estimate
    accuracy_max: Estimate
    accuracy_range: Estimate
    accuracy_std: Estimate
    variance_shares: dict[str, Estimate] | None
    consistency_rate: Estimate | None
    draws: int = 0
    notes: list[str] = field(default_factory=list)

    def to_json(self, labels: Sequence[str] | None = None) -> dict[str, Any]:
        """The issue's JSON fields. ``labels``: the variants' keys (default "0".."V-1"; the
        report uses "A".. for answer positions). NaN becomes None.

        ``{"estimated": bool, "per_question": B | None,
        "variant_accuracy": {label: x}, "variant_accuracy_ci_low": {...}, "variant_accuracy_ci_high": {...},
        "accuracy", "accuracy_ci_low", "accuracy_ci_high",
        "accuracy_quantiles": {"5": x, ..., "95": x}, "accuracy_quantiles_ci_low": {...}, "accuracy_quantiles_ci_high": {...},
        "accuracy_min", "accuracy_min_ci_low", "accuracy_min_ci_high", (same for max, range, std),
        "consistency_rate", "consistency_rate_ci_low", "consistency_rate_ci_high" (None without answers),
        "variance_shares": {"question"|"variant"|"within": {"value", "ci_low", "ci_high"}} | None}``
        """
        keys = list(labels) if labels is not None else [str(i) for i in range(self.n_variants)]
        if len(keys) != self.n_variants:
            raise ValueError(f"labels has {len(keys)} entries for {self.n_variants} variants")
        out: dict[str, Any] = {"estimated": not self.exact, "per_question": self.per_question}

        def put(name: str, est: Estimate | None) -> None:
            out[name] = None if est is None else _num(est.value)
            out[name + "_ci_low"] = None if est is None else _num(est.ci_low)
            out[name + "_ci_high"] = None if est is None else _num(est.ci_high)

        def put_map(name: str, ests: dict[str, Estimate]) -> None:
            out[name] = {k: _num(e.value) for k, e in ests.items()}
            out[name + "_ci_low"] = {k: _num(e.ci_low) for k, e in ests.items()}
            out[name + "_ci_high"] = {k: _num(e.ci_high) for k, e in ests.items()}

        put_map("variant_accuracy", dict(zip(keys, self.variant_accuracy)))
        put("accuracy", self.accuracy)
        put_map("accuracy_quantiles", self.accuracy_quantiles)
        for name in SPREAD:
            put(name, getattr(self, name))
        put("consistency_rate", self.consistency_rate)
        out["variance_shares"] = None if self.variance_shares is None else {
            k: {"value": _num(e.value), "ci_low": _num(e.ci_low), "ci_high": _num(e.ci_high)}
            for k, e in self.variance_shares.items()}
        return out


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _check_inputs(correct: Any, agree: Any, weights: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    y = np.asarray(correct, dtype=np.float64)
    if y.ndim != 2:
        raise ValueError(f"correct must be a (questions, variants) matrix, got shape {y.shape}")
    n, v = y.shape
    if n < 1 or v < 2:
        raise BudgetError(f"a family needs at least 1 question and 2 variants, got {n} x {v}")
    observed = ~np.isnan(y)
    bad = observed & (y != 0) & (y != 1)
    if bad.any():
        q, j = map(int, np.argwhere(bad)[0])
        raise BudgetError(f"question {q}, variant {j}: correctness must be 0, 1 or NaN (not asked), got {y[q, j]!r}")
    asked = observed.sum(axis=1)
    if (asked == 0).any():
        raise BudgetError(f"question {int(np.argmin(asked))} was asked no variant; leave it out")
    a = None
    if agree is not None:
        a = np.asarray(agree, dtype=np.float64)
        if a.shape != (n,):
            raise ValueError(f"agree must have one count per question ({n}), got shape {a.shape}")
        pairs = asked * (asked - 1) / 2
        if np.any(a < 0) or np.any(a != np.round(a)) or np.any(a > pairs):
            q = int(np.argmax((a < 0) | (a != np.round(a)) | (a > pairs)))
            raise BudgetError(f"question {q}: {a[q]!r} agreeing pairs is not a count of at most C({int(asked[q])}, 2)")
    w = np.full(n, 1.0 / n)
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ValueError("weights must be one positive finite number per question")
        w = w / w.sum()
    return y, observed, a, w


def _shares(components: np.ndarray) -> np.ndarray:
    total = components.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, components / total, np.nan)


def _exact(y: np.ndarray, agree: np.ndarray | None, w: np.ndarray, confidence: float) -> RobustnessEstimates:
    n, v = y.shape
    acc = w @ y
    spread = (acc.min(), acc.max(), acc.max() - acc.min(), acc.std())
    shares = None
    if n >= 2:
        by_question = y.mean(axis=1)
        m1, m2 = by_question.mean(), (by_question**2).mean()
        means = np.concatenate([[m1, m2, v * (m1 - m2), 0.0], y.mean(axis=0)])
        s = _shares(_components(means[None, :], n, v, 1))[0]
        shares = {k: Estimate.exact(x) for k, x in zip(COMPONENTS, s)}
    cr = None
    if agree is not None:
        cr = Estimate.exact(agree.sum() / (n * v * (v - 1) / 2))
    return RobustnessEstimates(
        exact=True, n_questions=n, n_variants=v, per_question=v, confidence=confidence,
        variant_accuracy=[Estimate.exact(x) for x in acc], accuracy=Estimate.exact(acc.mean()),
        accuracy_quantiles={str(p): Estimate.exact(x) for p, x in zip(QUANTILES, np.percentile(acc, QUANTILES))},
        accuracy_min=Estimate.exact(spread[0]), accuracy_max=Estimate.exact(spread[1]),
        accuracy_range=Estimate.exact(spread[2]), accuracy_std=Estimate.exact(spread[3]),
        variance_shares=shares, consistency_rate=cr)


def _weighted_quantile(x: np.ndarray, weights: np.ndarray, probs: Sequence[float]) -> np.ndarray:
    """Quantiles of the columns of x (D, m) under draw weights (D,): the smallest value whose
    cumulative weight reaches p."""
    order = np.argsort(x, axis=0, kind="stable")
    cum = np.cumsum(weights[order], axis=0)
    cum /= cum[-1]
    out = np.empty((len(probs), x.shape[1]))
    for i, p in enumerate(probs):
        idx = np.minimum((cum < p).sum(axis=0), x.shape[0] - 1)
        out[i] = np.take_along_axis(x, order, axis=0)[idx, np.arange(x.shape[1])]
    return out


def _summarise(x: np.ndarray, flat: np.ndarray, spike: np.ndarray, confidence: float) -> list[Estimate]:
    """Estimates of the columns of draws x (D, m): the flat prior's median; the union of the
    two priors' central intervals."""
    lo_p, hi_p = (1 - confidence) / 2, (1 + confidence) / 2
    qf = _weighted_quantile(x, flat, (0.5, lo_p, hi_p))
    qs = _weighted_quantile(x, spike, (lo_p, hi_p))
    return [Estimate(float(m), float(min(a, c)), float(max(b, d))) for m, a, b, c, d in zip(qf[0], qf[1], qf[2], qs[0], qs[1])]


def _pair_rate(kernel_pairs: np.ndarray, observed: np.ndarray, fitted: model.Fit, rho: float) -> tuple[float, float]:
    """(mean of the questions' pair rates, its design standard error) over the questions with a
    pair. ``kernel_pairs``: per question, its kernel-1 pairs among its asked answers (agreeing
    answers; concordant correctness), r_q = kernel_pairs / C(asked, 2); s2/s3 (the chance that
    two / three of a question's V answers are all kernel-equal, per theta grid point) from
    :func:`_kernel_moments` with ``rho``; Var(r_q) = :func:`_subset_variance`, averaged over the
    question's posterior (``fitted.w``)."""
    v = observed.shape[1]
    asked = observed.sum(axis=1)
    has = asked >= 2
    s2, s3 = _kernel_moments(fitted.pbar, rho)
    var = 0.0
    for b in np.unique(asked[has]):
        var += float((fitted.w[has & (asked == b)] @ _subset_variance(s2, s3, b, v)).sum())
    rate_q = kernel_pairs / np.maximum(asked * (asked - 1) / 2, 1)
    return float(np.mean(rate_q[has])), math.sqrt(var) / int(has.sum())


def _subset_variance(s2: Any, s3: Any, b: int, v: int) -> Any:
    """Var(r_q) of B answers drawn without replacement from V (module docstring), from s2 and
    s3 (numbers or arrays); clipped at 0 (rounding)."""
    z2, z1 = s2 - s2**2, s3 - s2**2
    return np.maximum(2 / (b * (b - 1)) * (z2 + 2 * (b - 2) * z1) - 2 / (v * (v - 1)) * (z2 + 2 * (v - 2) * z1), 0.0)


def _kernel_moments(p: np.ndarray, rho: float) -> tuple[np.ndarray, np.ndarray]:
    """(s2, s3) per grid row of p (K x V: P(correct) of each variant): the chance that two /
    three answers of distinct variants agree, when right answers agree and two (three) wrong
    ones do with chance rho (rho3 = 2 rho^2 / (1 + rho), the Dirichlet-process relation; rho =
    1 for agreement of correctness)."""
    rho3 = 2 * rho**2 / (1 + rho)
    s2 = _mean_products(p, 2) + rho * _mean_products(1 - p, 2)
    s3 = _mean_products(p, 3) + rho3 * _mean_products(1 - p, 3) if p.shape[1] >= 3 else s2**2
    return s2, s3


def _consistency(y: np.ndarray, observed: np.ndarray, agree: np.ndarray, fitted: model.Fit,
                 confidence: float) -> Estimate:
    if not (observed.sum(axis=1) >= 2).any():
        return _NAN_ESTIMATE
    rate, se = _pair_rate(agree, observed, fitted, _wrong_agreement(y, observed, agree))
    from scorekit.metrics.intervals import z_value

    z = z_value(confidence)
    return Estimate(rate, max(0.0, rate - z * se), min(1.0, rate + z * se))


def _wrong_agreement(y: np.ndarray, observed: np.ndarray, agree: np.ndarray) -> float:
    """rho: the pooled share of agreeing pairs among the asked pairs of two wrong answers (right
    answers all agree, so those are agree_q - C(right_q, 2)), with half a pair of prior."""
    asked = observed.sum(axis=1)
    right = np.where(observed, y, 0.0).sum(axis=1)
    wrong = asked - right
    wrong_agree = np.maximum(agree - right * (right - 1) / 2, 0.0)
    return float((wrong_agree.sum() + 0.5) / ((wrong * (wrong - 1) / 2).sum() + 1.0))


def _within_question(y: np.ndarray, observed: np.ndarray, fitted: model.Fit) -> tuple[float, float]:
    """(ms1, its standard error): ms1 = mean over questions of sum_v (y_qv - m_q)^2, the full
    run's within-question sum of squares, = (V - 1)/2 x the mean share of discordant pairs
    (one right, one wrong) among a question's V answers; estimated from the asked pairs, without
    the model (its variance with it), as the consistency rate."""
    v = y.shape[1]
    asked = observed.sum(axis=1)
    right = np.where(observed, y, 0.0).sum(axis=1)
    concordant = right * (right - 1) / 2 + (asked - right) * (asked - right - 1) / 2
    rate, se = _pair_rate(concordant, observed, fitted, 1.0)
    return (v - 1) / 2 * (1 - rate), (v - 1) / 2 * se


def _mean_products(p: np.ndarray, order: int) -> np.ndarray:
    """Mean over the pairs (order 2) or triples (order 3) of distinct columns of the product of
    p's entries, per row: elementary symmetric polynomials from power sums (Newton)."""
    v = p.shape[1]
    s1, s2 = p.sum(axis=1), (p**2).sum(axis=1)
    if order == 2:
        return (s1**2 - s2) / (v * (v - 1))
    s3 = (p**3).sum(axis=1)
    return (s1**3 - 3 * s1 * s2 + 2 * s3) / (v * (v - 1) * (v - 2))


def estimate_robustness(correct: Any, *, agree: Any = None, weights: Any = None, confidence: float = 0.95,
                        draws: int = DRAWS, seed: int = 0, parsed: Any = None) -> RobustnessEstimates:
    """Robustness estimates of one family from its (N, V) correctness matrix (module docstring).

    ``correct``: 1/0 (or True/False) where question q was asked variant v, NaN where not.
    ``agree``: per question, the agreeing pairs among its asked answers
    (:func:`scorekit.metrics.consistency_counts` over them), or None (no consistency rate).
    ``parsed``: per question, how many of its asked answers parsed (default: all); when no
    question has two, the consistency rate is undefined (NaN with a ``RuntimeWarning``), as
    :func:`scorekit.metrics.consistency_rate` says, not 0.
    ``weights``: per question (macro accuracy), default equal. ``draws`` and ``seed``: the
    Monte Carlo draws of a budgeted run (a fixed seed gives the same numbers on a given numpy).

    Raises :class:`~scorekit.robustness.budget.design.BudgetError` for values other than 0, 1,
    NaN, a question asked nothing, or impossible agreement counts. With fewer than
    :data:`MIN_QUESTIONS` questions a budgeted run's estimates are NaN (a ``RuntimeWarning``).

    >>> y = np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1], [1, 0, 0]], dtype=float)
    >>> est = estimate_robustness(y, agree=[1, 3, 1, 1])
    >>> est.exact, [round(e.value, 2) for e in est.variant_accuracy], est.consistency_rate.value
    (True, [0.75, 0.25, 0.75], 0.5)
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    y, observed, a, w = _check_inputs(correct, agree, weights)
    n, v = y.shape
    if a is not None and parsed is not None and not (np.asarray(parsed) >= 2).any():
        warnings.warn("consistency rate: no question has two parsed answers; the rate is undefined, not 0", RuntimeWarning,
                      stacklevel=2)
        return replace(estimate_robustness(correct, agree=None, weights=weights, confidence=confidence,
                                                       draws=draws, seed=seed), consistency_rate=_NAN_ESTIMATE)
    if observed.all():
        return _exact(y, a, w, confidence)
    asked = observed.sum(axis=1)
    per_question = int(asked[0]) if np.all(asked == asked[0]) else None
    if n < MIN_QUESTIONS:
        warnings.warn(f"budgeted robustness: {n} question(s); estimates need at least {MIN_QUESTIONS}", RuntimeWarning,
                      stacklevel=2)
        nan_q = {str(p): _NAN_ESTIMATE for p in QUANTILES}
        return RobustnessEstimates(
            exact=False, n_questions=n, n_variants=v, per_question=per_question, confidence=confidence,
            variant_accuracy=[_NAN_ESTIMATE] * v, accuracy=_NAN_ESTIMATE, accuracy_quantiles=nan_q,
            accuracy_min=_NAN_ESTIMATE, accuracy_max=_NAN_ESTIMATE, accuracy_range=_NAN_ESTIMATE,
            accuracy_std=_NAN_ESTIMATE, variance_shares=None, consistency_rate=None if a is None else _NAN_ESTIMATE)
    yz = np.where(observed, y, 0.0)
    fitted = model.fit(yz, observed)
    drawn = model.draws(fitted, yz, observed, w, draws, seed)
    acc = drawn.accuracy
    stats = np.column_stack([acc.mean(axis=1), np.percentile(acc, QUANTILES, axis=1).T, acc.min(axis=1),
                             acc.max(axis=1), acc.max(axis=1) - acc.min(axis=1), acc.std(axis=1)])
    m1 = drawn.plain.mean(axis=1)
    # the within-question sum of squares comes from the asked pairs (design-based; the model
    # alone is too sure of it when prompts interact with questions): one normal draw per draw
    ms1, ms1_se = _within_question(y, observed, fitted)
    ms1_draws = np.random.default_rng([seed, 1]).normal(ms1, ms1_se, len(m1))
    means = np.column_stack([m1, m1 - ms1_draws / v, ms1_draws, np.zeros(len(m1)), drawn.plain])
    shares = _shares(_components(means, n, v, 1))
    flat, spike = drawn.weights_flat, drawn.weights_spike
    overall = _summarise(np.column_stack([stats, shares, acc]), flat, spike, confidence)
    k = 1 + len(QUANTILES)
    return RobustnessEstimates(
        exact=False, n_questions=n, n_variants=v, per_question=per_question, confidence=confidence,
        variant_accuracy=overall[k + 4 + 3:], accuracy=overall[0],
        accuracy_quantiles={str(p): e for p, e in zip(QUANTILES, overall[1:k])},
        accuracy_min=overall[k], accuracy_max=overall[k + 1], accuracy_range=overall[k + 2], accuracy_std=overall[k + 3],
        variance_shares=dict(zip(COMPONENTS, overall[k + 4:k + 7])),
        consistency_rate=None if a is None else _consistency(y, observed, a, fitted, confidence),
        draws=draws)
