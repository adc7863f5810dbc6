"""Register scorekit's metrics with lm-eval's registry on import (idempotent).

lm-eval fills its metric and aggregation registries lazily, and only while they are *empty*;
so the built-in metrics are imported first, otherwise registering ours would hide them (the
same trap as registering a model before ``lm_eval.models``). No model is registered here.
A name lm-eval already uses for another object is left to lm-eval, with a warning.
"""

from __future__ import annotations

import warnings

import lm_eval.api.metrics  # noqa: F401  (fills the built-in metric/aggregation registries first)

from scorekit.lm_eval import compat
from scorekit.lm_eval.metrics import GENERATE_METRICS, MULTIPLE_CHOICE_METRICS

__all__ = ["REGISTERED", "register_all"]

REGISTERED: dict[str, object] = {}


def register_all() -> dict[str, object]:
    """Register every scorekit metric (aggregation ``mean``, higher is better); return them by name."""
    output_types = {**dict.fromkeys(GENERATE_METRICS, "generate_until"),
                    **dict.fromkeys(MULTIPLE_CHOICE_METRICS, "multiple_choice")}
    for name, fn in {**GENERATE_METRICS, **MULTIPLE_CHOICE_METRICS}.items():
        current = compat.registered_function(name)
        if current is not None and current is not fn:
            warnings.warn(
                f"scorekit: lm-eval already has a metric named {name!r}; keeping lm-eval's "
                f"(use `metric: !function scorekit.lm_eval.metrics.{name}` for scorekit's)",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        if current is None:
            compat.register_metric(name, fn, output_type=output_types[name])
        REGISTERED[name] = fn
    return REGISTERED


register_all()
