"""Register scorekit's metrics and aggregations with lm-eval's registry on import (idempotent).

What is registered is :mod:`scorekit.metric_specs`: every metric under its spec name, with its
aggregation and ``higher_is_better``; scorekit's aggregations (``consistency_rate``) first.
:func:`register` does the same for one spec, e.g. a metric of your own (docs/extending.md).

lm-eval fills its metric and aggregation registries lazily, and only while they are *empty*;
so the built-in metrics are imported first, otherwise registering ours would hide them (the
same trap as registering a model before ``lm_eval.models``). No model is registered here.
A name lm-eval already uses for another object is left to lm-eval, with a warning.

The same registration runs when lm-eval loads a metric through scorekit's ``lm_eval.metrics``
entry points (lm-eval after PR #4014): importing the entry point's target imports this package.
An entry point already in the registry as a placeholder is replaced by the function it names
(lm-eval's placeholder upgrade), so the aggregation and ``higher_is_better`` are set either way.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import lm_eval.api.metrics  # noqa: F401  (fills the built-in metric/aggregation registries first)

from lm_eval.api import registry as _reg

from scorekit.lm_eval import compat
from scorekit.lm_eval.metrics import AGGREGATIONS, METRICS, from_spec
from scorekit.metric_specs import SPECS, MetricSpec

__all__ = ["REGISTERED", "register", "register_all"]

REGISTERED: dict[str, object] = {}


def _register(kind: str, name: str, add, obj) -> bool:
    try:
        add(obj)
    except ValueError:  # lm-eval holds another object under this name
        warnings.warn(
            f"scorekit: lm-eval already has {kind} named {name!r}; keeping lm-eval's"
            + (f" (use `metric: !function scorekit.lm_eval.metrics.{name}` for scorekit's)" if kind == "a metric" else ""),
            RuntimeWarning,
            stacklevel=3,
        )
        return False
    return True


def register(spec: MetricSpec, fn: Callable[..., Any] | None = None) -> bool:
    """Register the lm-eval metric ``fn`` under ``spec``'s name, aggregation and direction
    (``fn`` defaults to :func:`scorekit.lm_eval.metrics.from_spec` of a standard spec); True when
    lm-eval now has it (registered now, or by an earlier import).

    Goes through :func:`scorekit.lm_eval.compat.register_metric`, which gives lm-eval 0.5 the
    output type and call shape it needs (``generate_until`` for generation and corpus metrics,
    ``multiple_choice`` for log-likelihood ones). The aggregation must be lm-eval's or already
    registered."""
    fn = fn if fn is not None else from_spec(spec)

    def decorate(f):
        compat.register_metric(spec.name, f, aggregation=spec.aggregation, higher_is_better=spec.higher_is_better,
                               output_type="multiple_choice" if spec.kind == "multiple_choice" else "generate_until")

    # already ours (a second import), or registered now
    return compat.registered_function(spec.name) is fn or _register("a metric", spec.name, decorate, fn)


def register_all() -> dict[str, object]:
    """Register every spec'd metric (and scorekit's aggregations first); return the metrics registered by name."""
    for name, fn in AGGREGATIONS.items():
        _register("an aggregation", name, _reg.register_aggregation(name), fn)
    for spec in SPECS:
        if register(spec, METRICS[spec.name]):
            REGISTERED[spec.name] = METRICS[spec.name]
    return REGISTERED


register_all()
