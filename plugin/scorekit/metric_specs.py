"""The one specification of scorekit's metrics, read by both harness adapters (pure: no harness import).

Each :class:`MetricSpec` says what a metric is called, which :mod:`scorekit.metrics` function
holds its formula, what it scores (``generate``: generated text; ``multiple_choice``: the
choices' log-likelihoods; ``corpus``: a value over all documents at once), how per-document
values combine, and whether higher is better. ``column`` is the name of the value in a results
file, the same in lm-eval and lighteval; ``{k}`` and ``{tau}`` are filled from the metric's
parameters (``pass@4``, ``g-pass@4_0.5``).

- lm-eval (:mod:`scorekit.lm_eval.metrics`): ``name`` is the registry name used in a task's
  ``metric_list`` (and the ``lm_eval.metrics`` entry point); ``aggregation`` is its
  aggregation (``mean`` is lm-eval's, the others are scorekit's, registered under their name).
- lighteval (:mod:`scorekit.lighteval.metrics`): ``<name>_metric(...)`` builds the ``Metric``;
  its values carry the same column names.

``tests/test_metric_specs.py`` checks that both adapters provide every metric listed here, under
these names, and that every metric and aggregation has its entry point in ``pyproject.toml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["MetricSpec", "SPECS", "AGGREGATIONS", "spec", "column", "tau_label"]


@dataclass(frozen=True)
class MetricSpec:
    """One metric as both harnesses expose it (see the module docstring)."""

    name: str
    function: str  # in scorekit.metrics
    kind: str  # "generate" | "multiple_choice" | "corpus"
    aggregation: str  # "mean" | "consistency_rate"
    higher_is_better: bool
    column: str  # value name in results files; format fields {k}, {tau}


def tau_label(tau: float) -> str:
    """A threshold as written in column names: ``str(float(tau))`` (``0.0``, ``0.5``, ``1.0``)."""
    return str(float(tau))


SPECS: tuple[MetricSpec, ...] = (
    # generated text
    MetricSpec("pass_at_k", "pass_at_k", "generate", "mean", True, "pass@{k}"),
    MetricSpec("g_pass_at_k", "g_pass_at_k", "generate", "mean", True, "g-pass@{k}_{tau}"),
    MetricSpec("mg_pass_at_k", "mg_pass_at_k", "generate", "mean", True, "mg-pass@{k}"),
    MetricSpec("avg_at_k", "avg_at_k", "generate", "mean", True, "avg@{k}"),
    MetricSpec("maj_at_k", "maj_at_k", "generate", "mean", True, "maj@{k}"),
    MetricSpec("exact_match_prefix", "exact_match", "generate", "mean", True, "exact_match_prefix"),
    MetricSpec("exact_match_suffix", "exact_match", "generate", "mean", True, "exact_match_suffix"),
    MetricSpec("bow_f1", "bow_f1", "generate", "mean", True, "bow_f1"),
    MetricSpec("edit_similarity", "edit_similarity", "generate", "mean", True, "edit_similarity"),
    MetricSpec("extractiveness", "extractiveness", "generate", "mean", True, "extractiveness_{part}"),
    # log-likelihoods of the choices
    MetricSpec("normalized_mc_probability", "normalized_mc_probability", "multiple_choice", "mean", True, "normalized_mc_probability"),
    MetricSpec("gold_probability", "gold_probability", "multiple_choice", "mean", True, "gold_probability"),
    MetricSpec("loglikelihood_accuracy", "loglikelihood_accuracy", "multiple_choice", "mean", True, "loglikelihood_accuracy"),
    MetricSpec("recall_at_k", "recall_at_k", "multiple_choice", "mean", True, "recall@{k}"),
    MetricSpec("mrr", "reciprocal_rank", "multiple_choice", "mean", True, "mrr"),
    # over all documents
    MetricSpec("consistency_rate", "consistency_rate", "corpus", "consistency_rate", True, "consistency_rate"),
)

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
