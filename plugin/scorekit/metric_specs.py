"""scorekit's metrics by name: the specifications declared beside the formulas of
:mod:`scorekit.metrics` (with :func:`~scorekit.metrics.specs.metric_spec`), read by both harness
adapters (pure: no harness import).

- lm-eval (:mod:`scorekit.lm_eval.metrics`): ``name`` is the registry name used in a task's
  ``metric_list`` (and the ``lm_eval.metrics`` entry point); ``aggregation`` is its
  aggregation (``mean`` is lm-eval's, the others are scorekit's, registered under their name).
- lighteval (:mod:`scorekit.lighteval.metrics`): ``<name>_metric(...)`` builds the ``Metric``;
  its values carry the same column names.

What a specification holds, and which metrics the adapters build from it alone:
:mod:`scorekit.metrics.specs`. ``tests/test_metric_specs.py`` checks that both adapters provide
every metric listed here, under these names, and that every metric and aggregation has its entry
point in ``pyproject.toml``.
"""

from __future__ import annotations

from typing import Any

from scorekit import metrics as M
from scorekit.metrics.specs import MetricKind, MetricSpec, metric_spec, specs_of, tau_label

__all__ = ["MetricSpec", "MetricKind", "SPECS", "AGGREGATIONS", "metric_spec", "specs_of", "spec", "column", "tau_label"]

# every metric a public function of scorekit.metrics declares, in the order of its __all__
SPECS: tuple[MetricSpec, ...] = tuple(s for name in M.__all__ for s in specs_of(getattr(M, name)))

# Aggregations scorekit adds (lm-eval's ``mean`` is not one of them).
AGGREGATIONS: tuple[str, ...] = tuple(dict.fromkeys(s.aggregation for s in SPECS if s.aggregation != "mean"))

_BY_NAME = {s.name: s for s in SPECS}


def spec(name: str) -> MetricSpec:
    """The specification of metric ``name`` (KeyError naming the known ones otherwise)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no scorekit metric {name!r}; known: {sorted(_BY_NAME)}") from None


def column(name: str, **params: Any) -> str:
    """Column name of metric ``name`` for ``params``: ``column("pass_at_k", k=4) == "pass@4"``."""
    return spec(name).column.format(**params)
