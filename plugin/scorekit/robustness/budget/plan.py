"""How many questions, asked how many variants each, for a robustness interval of half-width h.

Two targets (``scorekit plan --robustness``):

- **consistency rate** (:func:`plan_consistency`), analytic. The budgeted CR is the mean over
  N questions of r_q, the share of agreeing pairs among the question's B asked answers
  (:mod:`~scorekit.robustness.budget.estimate`); its standard error is sqrt(mean_q Var_B(r_q) / N),
  Var_B the variance of that share over the B-subsets of the question's V answers (drawn
  without replacement), which :func:`pair_share_variance` computes exactly from the counts of
  equal answers. So N = z^2 mean_q Var_B(r_q) / h^2. Inputs: a full pilot run's answers
  (per question, the counts of each distinct parsed answer among its V); a budgeted pilot's
  correctness matrix and agreeing pairs (Var_B then from the fitted model, as the estimate's
  own interval: :mod:`~scorekit.robustness.budget.estimate`); or, without a pilot, a guessed CR
  with every question at that rate and one wrong answer that others can repeat (s3 = CR^1.5,
  the most a rate of CR allows: conservative). B = V gives 0: a full run's CR
  is exact (its interval over *other* questions is another matter, docs/metrics.md).
- **accuracy quantiles** (:func:`plan_quantiles`), calibrated by simulation: from a pilot's
  correctness matrix, budgeted runs of the pilot's N questions are made (a full pilot is
  subsampled by the design itself; a budgeted pilot is replayed from its fitted model) and
  estimated; the mean half-width h0 of each quantile's interval at N0 questions scales as
  h0 sqrt(N0 / N) (intervals of means of N questions), so N = N0 (h0 / h)^2. The scaling
  is an approximation: the part of a quantile's doubt that comes from V variants (how spread
  they are) does not shrink with N, so targets far below the pilot's half-widths are optimistic;
  plan from a pilot of a size near the one planned.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scorekit.robustness.budget import model
from scorekit.robustness.budget.design import BudgetError, Design, assign, check_budget
from scorekit.robustness.budget.estimate import (QUANTILES, _check_inputs, _kernel_moments, _subset_variance,
                                                 _wrong_agreement, estimate_robustness)

__all__ = ["PlanRow", "pair_share_variance", "plan_consistency", "plan_quantiles"]


@dataclass(frozen=True)
class PlanRow:
    """One budget: ``per_question`` (B) variants per question, ``questions`` (N) needed for the
    half-width, ``evaluations`` = N x B (model calls), and the ``half_width`` reached at N."""

    per_question: int
    questions: int
    evaluations: int
    half_width: float


def pair_share_variance(counts: Sequence[int], variants: int, per_question: int) -> float:
    """Exact variance of the share of agreeing pairs among B answers drawn without replacement
    from a question's V answers, given ``counts``: how many of the V answers take each distinct
    parsed value (unparsed answers agree with nothing: leave them out or count them as 1s).

    With R (M3, M4) the population's share of agreeing pairs (of all-agreeing triples, of
    pairs of disjoint agreeing pairs), and m^(k) falling factorials:
    R = sum m^(2) / V^(2); M3 = sum m^(3) / V^(3); M4 = ((sum m^(2))^2 - sum (m^(2))^2 + sum m^(4)) / V^(4);
    Var = [C(B,2) R + B^(3) M3 + B^(4)/4 M4] / C(B,2)^2 - R^2 (0 when B = V).

    >>> pair_share_variance([2, 1], 3, 2)  # one agreeing pair of three: R = 1/3, Var = R(1 - R)
    0.2222222222222222
    >>> pair_share_variance([3, 1], 4, 4)
    0.0
    """
    v, b = int(variants), int(per_question)
    m = np.asarray(counts, dtype=np.float64)
    if m.sum() > v or np.any(m < 0):
        raise BudgetError(f"answer counts {list(counts)} do not fit {v} answers")
    if b < 2 or b > v:
        raise BudgetError(f"per_question must be between 2 and {v}, got {b}")

    def ff(x: np.ndarray | float, k: int) -> np.ndarray | float:
        out = 1.0
        for i in range(k):
            out = out * (x - i)
        return out

    m2 = ff(m, 2)
    r = m2.sum() / ff(v, 2)
    m3 = ff(m, 3).sum() / ff(v, 3) if v >= 3 else 0.0
    m4 = (m2.sum() ** 2 - (m2**2).sum() + ff(m, 4).sum()) / ff(v, 4) if v >= 4 else 0.0
    pairs = b * (b - 1) / 2
    second = (pairs * r + ff(b, 3) * m3 + ff(b, 4) / 4 * m4) / pairs**2
    return float(max(second - r * r, 0.0))


def _check_half_width(half_width: Any) -> float:
    if isinstance(half_width, bool) or not isinstance(half_width, (int, float)) or not 0 < half_width < 1:
        raise BudgetError(f"half-width must be a number in (0, 1), got {half_width!r}")
    return float(half_width)


def _budgets(variants: int, budgets: Sequence[int] | None) -> list[int]:
    if budgets is None:
        budgets = [b for b in (2, 3, 4, 5, 10, 20) if b < variants] + [variants]
    return sorted({check_budget(b, variants) for b in budgets})


def plan_consistency(half_width: float, *, variants: int, budgets: Sequence[int] | None = None,
                     pilot_counts: Sequence[Sequence[int]] | None = None, pilot_correct: Any = None,
                     pilot_agree: Any = None, rate: float | None = None, confidence: float = 0.95) -> list[PlanRow]:
    """Questions needed for a budgeted CR interval of ``half_width`` (module docstring), one row
    per budget (default 2, 3, 4, 5, 10, 20 below V, and V). Give one of: ``pilot_counts`` (per
    pilot question, the counts of its distinct parsed answers among all V); ``pilot_correct``
    with ``pilot_agree`` (a budgeted pilot: its (N, V) correctness with NaN where not asked,
    and per question its agreeing pairs); ``rate`` (a guessed CR).

    >>> [(r.per_question, r.questions) for r in plan_consistency(0.02, variants=10, budgets=[2, 4], rate=0.8)]
    [(2, 1245), (4, 448)]
    """
    from scorekit.metrics.intervals import z_value

    h = _check_half_width(half_width)
    v = check_budget(variants, variants)  # V itself, checked (an integer of at least 2)
    given = [x is not None for x in (pilot_counts, pilot_correct, rate)]
    if sum(given) != 1 or (pilot_correct is None) != (pilot_agree is None):
        raise BudgetError("give one of: the pilot's answer counts, the pilot's correctness and agreeing pairs, "
                          "or a consistency rate to plan from")
    model_var = None if pilot_correct is None else _pilot_variance(pilot_correct, pilot_agree, v)
    if pilot_counts is not None:
        populations = [list(c) for c in pilot_counts]
        if not populations:
            raise BudgetError("the pilot has no question")
    else:
        if rate is not None and (isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1):
            raise BudgetError(f"consistency rate must be in [0, 1], got {rate!r}")
        populations = None
    z = z_value(confidence)
    rows = []
    for b in _budgets(v, budgets):
        if populations is not None:
            var = float(np.mean([pair_share_variance(c, v, b) for c in populations]))
        elif model_var is not None:
            var = model_var(b)
        else:
            var = float(_subset_variance(float(rate), float(rate) ** 1.5, b, v))
        n = max(1, math.ceil(z * z * var / (h * h)))
        rows.append(PlanRow(b, n, n * b, z * math.sqrt(var / n)))
    return rows


def _pilot_variance(correct: Any, agree: Any, v: int):
    """B -> mean over a budgeted pilot's questions of the model's Var_B(r_q) (the estimate's own
    formula: :func:`scorekit.robustness.budget.estimate._subset_variance`)."""
    y, observed, a, _ = _check_inputs(correct, agree, None)
    if y.shape[1] != v:
        raise BudgetError(f"the pilot has {y.shape[1]} variants, the plan {v}")
    fitted = model.fit(np.where(observed, y, 0.0), observed)
    s2, s3 = _kernel_moments(fitted.pbar, _wrong_agreement(y, observed, a))

    def var(b: int) -> float:
        return float(np.mean(fitted.w @ _subset_variance(s2, s3, b, v)))

    return var


def plan_quantiles(half_width: float, correct: Any, *, budgets: Sequence[int] | None = None, replicates: int = 2,
                   confidence: float = 0.95, seed: int = 0) -> dict[str, list[PlanRow]]:
    """Questions needed for budgeted quantile intervals of ``half_width``, per quantile ("5" ..
    "95") and budget, calibrated on a pilot's (N0, V) correctness matrix (NaN = not asked;
    module docstring). Each budget costs ``replicates`` budgeted estimates at N0 questions
    (about a second each at N0 = 1,000)."""
    h = _check_half_width(half_width)
    y, observed, _, _ = _check_inputs(correct, None, None)
    n0, v = y.shape
    if n0 < 50:
        raise BudgetError(f"a pilot of {n0} questions is too small to calibrate on (at least 50)")
    rng = np.random.default_rng(seed)
    full = observed.all()
    fitted = None if full else model.fit(np.where(observed, y, 0.0), observed)
    ids = [str(i) for i in range(n0)]
    out: dict[str, list[PlanRow]] = {str(p): [] for p in QUANTILES}
    for b in _budgets(v, budgets):
        if b >= v:
            for p in QUANTILES:
                out[str(p)].append(PlanRow(b, 1, b, 0.0))
            continue
        widths = np.zeros(len(QUANTILES))
        for r in range(replicates):
            truth = y if full else _replay(fitted, n0, rng)
            plan = assign(ids, Design.make(v, b, seed * 1000 + r))
            asked = np.zeros((n0, v), dtype=bool)
            for i, q in enumerate(ids):
                asked[i, list(plan[q])] = True
            est = estimate_robustness(np.where(asked, truth, np.nan), confidence=confidence, seed=r)
            widths += [(e.ci_high - e.ci_low) / 2 for e in (est.accuracy_quantiles[str(p)] for p in QUANTILES)]
        widths /= replicates
        for p, h0 in zip(QUANTILES, widths):
            n = max(1, math.ceil(n0 * (h0 / h) ** 2))
            out[str(p)].append(PlanRow(b, n, n * b, float(h0 * math.sqrt(n0 / n))))
    return out


def _replay(fitted: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """A full run drawn from a fitted model: theta from pi, the variants' effects from one draw
    of their posterior, Bernoulli cells."""
    theta = model.THETA[rng.choice(len(fitted.pi), size=n, p=fitted.pi)]
    hyper = rng.choice(fitted.hyper.size, p=fitted.hyper.ravel())
    beta = model._beta_draws(fitted, np.array([hyper]), rng)[0]
    p = 1 / (1 + np.exp(-(theta[:, None] + beta[None, :])))
    return (rng.random(p.shape) < p).astype(float)
