"""Budgeted robustness (issue 32): ask each question B of its V variants, estimate the full run.

- :mod:`~scorekit.robustness.budget.design`: the seeded, balanced design (which B variants each
  question gets), its JSON form and the check of a log against it;
- :mod:`~scorekit.robustness.budget.estimate`: per-variant accuracies, their quantiles, spread,
  variance shares and consistency rate of the full run, with intervals, from a budgeted (or
  full: exact) correctness matrix;
- :mod:`~scorekit.robustness.budget.model`: the item-response model the estimates draw from;
- :mod:`~scorekit.robustness.budget.plan`: how many questions for an interval of half-width h.

docs/budget.md says what is estimated, how, how well (bench/sim_budget.py) and where it is weak.
"""

from scorekit.robustness.budget.design import (BudgetError, Design, DesignCheck, DesignError, assign, check_budget,
                                               check_design, design_json)
from scorekit.robustness.budget.estimate import QUANTILES, Estimate, RobustnessEstimates, estimate_robustness

__all__ = ["BudgetError", "Design", "DesignCheck", "DesignError", "assign", "check_budget", "check_design",
           "design_json", "QUANTILES", "Estimate", "RobustnessEstimates", "estimate_robustness"]
