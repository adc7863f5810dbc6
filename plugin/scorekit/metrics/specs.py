"""A metric's specification, declared beside its formula with :func:`metric_spec` (pure: no harness import).

A :class:`MetricSpec` says what a metric is called, which function holds its formula, what it
scores (``kind``: ``generate``, generated text; ``multiple_choice``, the choices'
log-likelihoods; ``corpus``, a value over all documents at once), how per-document values
combine, whether higher is better, and ``column``, the name of its value in a results file, the
same in lm-eval and lighteval (``{k}``, ``{tau}``, ``{part}`` are filled from the metric's
parameters: ``pass@4``, ``g-pass@4_0.5``). ``options`` are fixed keyword arguments of the formula
(``exact_match_prefix`` is ``exact_match`` with ``mode="prefix"``).

The harness adapters build their wrappers from the specification: a metric is *standard* when it
gives one value per document under a fixed column, averaged over documents (``generate``:
``formula(prediction, gold, **options)``, best over golds; ``multiple_choice``:
``formula(logprobs, gold, **options)``). The others (the k / tau families, the parts of
extractiveness, the corpus-level consistency rate) have wrappers written by hand in each adapter.

>>> @metric_spec("length_ratio", kind="generate", higher_is_better=False)
... def length_ratio(prediction: str, gold: str) -> float:
...     return len(prediction) / max(len(gold), 1)
>>> (s,) = specs_of(length_ratio)
>>> s.name, s.column, s.standard, s.formula("ab", "abcd")
('length_ratio', 'length_ratio', True, 0.5)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple, TypeVar

__all__ = ["MetricSpec", "MetricKind", "metric_spec", "specs_of", "tau_label"]

MetricKind = Literal["generate", "multiple_choice", "corpus"]
F = TypeVar("F", bound=Callable[..., Any])


class MetricSpec(NamedTuple):
    """One metric as both harnesses expose it (see the module docstring). A named tuple, not a
    dataclass, so that ``import scorekit.metrics`` does not import :mod:`dataclasses`."""

    name: str
    function: str  # the formula's name (in scorekit.metrics for scorekit's own)
    kind: MetricKind
    aggregation: str  # "mean" (lm-eval's) or an aggregation the adapters add ("consistency_rate")
    higher_is_better: bool
    column: str  # value name in results files; format fields {k}, {tau}, {part}
    options: tuple[tuple[str, Any], ...] = ()  # fixed keyword arguments of the formula, as (name, value) pairs
    formula: Callable[..., Any] | None = None

    @property
    def standard(self) -> bool:
        """Whether the adapters build its wrappers: one value per document under a fixed column
        (no format field), averaged, of generated text or of choice log-likelihoods."""
        return "{" not in self.column and self.aggregation == "mean" and self.kind in ("generate", "multiple_choice")


def metric_spec(name: str | None = None, *, kind: MetricKind, column: str | None = None, aggregation: str = "mean",
                higher_is_better: bool = True, options: Mapping[str, Any] | None = None) -> Callable[[F], F]:
    """Declare a metric computed by the decorated formula; the formula is returned unchanged.

    ``name`` defaults to the formula's name and ``column`` to ``name``. Stack the decorator to
    declare several metrics of one formula (with different ``options``); :func:`specs_of` lists
    them in the order they are written.
    """
    if kind not in ("generate", "multiple_choice", "corpus"):
        raise ValueError(f"kind must be 'generate', 'multiple_choice' or 'corpus', got {kind!r}")

    def declare(fn: F) -> F:
        spec_name = name or fn.__name__
        spec = MetricSpec(spec_name, fn.__name__, kind, aggregation, higher_is_better, column or spec_name,
                          tuple((options or {}).items()), fn)
        fn.metric_specs = (spec, *specs_of(fn))  # type: ignore[attr-defined]
        return fn

    return declare


def specs_of(formula: Callable[..., Any]) -> tuple[MetricSpec, ...]:
    """The metrics ``formula`` computes (declared with :func:`metric_spec`); () for none."""
    return tuple(getattr(formula, "metric_specs", ()))


def tau_label(tau: float) -> str:
    """A threshold as written in column names: ``str(float(tau))`` (``0.0``, ``0.5``, ``1.0``)."""
    return str(float(tau))
