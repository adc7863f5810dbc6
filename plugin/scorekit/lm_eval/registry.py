"""Register scorekit's metrics with lm-eval's registry on import (idempotent).

lm-eval fills its metric and aggregation registries lazily, and only while they are *empty*;
so the built-in metrics are imported first, otherwise registering ours would hide them (the
same trap as registering a model before ``lm_eval.models``). No model is registered here.
A name lm-eval already uses for another object is left to lm-eval, with a warning.
"""

from __future__ import annotations

import warnings

import lm_eval.api.metrics  # noqa: F401  (fills the built-in metric/aggregation registries first)
from lm_eval.api import registry as _reg

from scorekit.lm_eval.metrics import GENERATE_METRICS, MULTIPLE_CHOICE_METRICS

__all__ = ["REGISTERED", "register_all"]

REGISTERED: dict[str, object] = {}


def register_all() -> dict[str, object]:
    """Register every scorekit metric (aggregation ``mean``, higher is better); return them by name."""
    for name, fn in {**GENERATE_METRICS, **MULTIPLE_CHOICE_METRICS}.items():
        current = _reg.metric_registry.get(name, None)
        if current is not None and current is not fn:
            warnings.warn(
                f"scorekit: lm-eval already has a metric named {name!r}; keeping lm-eval's "
                f"(use `metric: !function scorekit.lm_eval.metrics.{name}` for scorekit's)",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        if current is None:
            _reg.register_metric(metric=name, higher_is_better=True, aggregation="mean")(fn)
        REGISTERED[name] = fn
    return REGISTERED


register_all()
