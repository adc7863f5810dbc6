"""Everything scorekit does differently for lm-eval 0.4.x and 0.5 (the one place that knows).

lm-eval 0.5 (``lm-eval==0.5.0.dev1``) scores through *scorers* (``lm_eval/scorers/``) instead of
filters + ``ConfigurableTask.process_results``. What that changes for scorekit:

- **Metric calls.** A metric is called once per document and filter as
  ``fn(references=[gold], predictions=[sample_1, ..., sample_n])`` (all repeats of a generation
  task; for ``multiple_choice`` ``references`` is the gold index or indices and ``predictions``
  an ``LLResults`` holding the choices' log-likelihoods ``lls``), and its value is taken as one
  score *per repeat*: a list of n values, reduced per document (default: the first). scorekit's
  metrics score a document from all its samples, so :func:`register_metric` registers a wrapper
  that hands them over as one result (the 0.4 shape ``predictions=[[s_1, ..., s_n]]``) and returns
  the per-document value as a one-element list (which 0.5 passes through unreduced; for
  ``multiple_choice`` lm-eval wraps it). Several
  golds arrive as one list (``multiple_targets``), which scorekit's metrics read as "correct when
  it matches any". 0.5's ``register_metric`` also takes the output type (default
  ``multiple_choice``; a generation task refuses such a metric).
- **Task classes.** ``ConfigurableTask`` is the abstract base ``Task``; requests are built by
  ``GenerateTask`` / ``MultipleChoiceTask`` / ... chosen by ``output_type``, and a task given by
  ``class:`` bypasses that choice. :func:`concrete_task_class` makes the same choice for
  scorekit's classes.
- **Requests.** :class:`~lm_eval.api.instance.Instance` carries ``task_name`` / ``doc_id`` /
  ``repeats`` as fields (0.4: the ``metadata`` tuple); :func:`clone_request` copies one either way.
- **process_results** receives the repeats of a document flat (``[s_1, ..., s_n]``; 0.4:
  ``[[s_1, ..., s_n]]``): :func:`document_outputs`; and 0.5 reads a list value it returns as one
  score per repeat (keeping the first): :func:`document_values`.
- **Stderr**: 0.5 bootstraps every aggregation other than ``mean`` (0.4: a fixed list, ``"N/A"``
  for the rest); ``ScoreTask.aggregate`` (0.5 only) turns that off for the SCORE tasks.

Nothing else in scorekit tests the lm-eval version.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable
from typing import Any

__all__ = ["SCORERS", "register_metric", "registered_function", "scorer_call", "scorer_metric", "concrete_task_class",
           "clone_request", "document_outputs", "document_values", "fewshot_split"]

# lm-eval 0.5 has the scorers package; 0.4.x does not (checked without importing lm-eval)
SCORERS: bool = importlib.util.find_spec("lm_eval.scorers") is not None


def scorer_call(fn: Callable[..., Any], output_type: str) -> Callable[..., Any]:
    """``fn`` (0.4 shape, one result per call) in the shape lm-eval 0.5's scorers call a metric.

    The wrapper takes ``**kwargs`` (so 0.5 forwards every metric argument and unknown ones still
    raise ``TypeError`` in ``fn``), drops 0.5's ``multiple_targets`` flag (the gold list says it)
    and returns ``[value]`` or ``{key: [value]}`` (generation: one value per document, not per
    repeat; ``multiple_choice``: the bare value, which lm-eval's ``LLScorer`` wraps itself).
    """

    def call(references: Any, predictions: Any, multiple_targets: bool = False, **kwargs: Any) -> Any:
        if output_type == "multiple_choice":  # predictions: LLResults; references: gold index or indices
            result: Any = [float(x) for x in predictions.lls]
            gold = references
        else:  # predictions: the filtered samples of all repeats (or one string)
            result = predictions
            gold = references[0] if isinstance(references, list) and len(references) == 1 else references
        value = fn(references=[gold], predictions=[result], **kwargs)
        if output_type == "multiple_choice":  # LLScorer wraps each value in a list itself
            return value
        return {k: [v] for k, v in value.items()} if isinstance(value, dict) else [value]

    call.__name__ = call.__qualname__ = getattr(fn, "__name__", "metric")
    call.__doc__ = fn.__doc__
    call.scorekit_fn = fn  # type: ignore[attr-defined]
    return call


def scorer_metric(metric: Any, output_type: str) -> Any:
    """A 0.5 ``Metric`` whose function is one of scorekit's given by ``!function`` (called in the
    0.4 shape) with that function wrapped by :func:`scorer_call`; any other metric unchanged."""
    from scorekit.lm_eval.metrics import GENERATE_METRICS, MULTIPLE_CHOICE_METRICS

    ours = {*GENERATE_METRICS.values(), *MULTIPLE_CHOICE_METRICS.values()}
    if metric.fn in ours:
        return dataclasses.replace(metric, fn=scorer_call(metric.fn, output_type))
    return metric


def register_metric(name: str, fn: Callable[..., Any], *, output_type: str, aggregation: str = "mean",
                    higher_is_better: bool = True) -> None:
    """Register ``fn`` under ``name`` for ``output_type`` (``generate_until`` or ``multiple_choice``);
    lm-eval's ``ValueError`` when it holds another object under ``name`` is passed on."""
    from lm_eval.api import registry

    if SCORERS:
        registry.register_metric(metric=name, higher_is_better=higher_is_better, aggregation=aggregation,
                                 output_type=output_type)(scorer_call(fn, output_type))
    else:
        registry.register_metric(metric=name, higher_is_better=higher_is_better, aggregation=aggregation)(fn)


def registered_function(name: str) -> Any:
    """The function lm-eval has under metric ``name`` (scorekit's own, not its 0.5 wrapper), or None."""
    from lm_eval.api import registry

    entry = registry.metric_registry.get(name, None)
    if entry is None or not SCORERS:
        return entry
    fn = entry.fn  # 0.5 registers Metric objects
    return getattr(fn, "scorekit_fn", fn)


_TASK_CLASSES: dict[tuple[type, str], type] = {}


def concrete_task_class(cls: type, config: Any) -> type:
    """The class to instantiate for ``cls(config=config)``: ``cls`` itself in 0.4; in 0.5 ``cls``
    combined with lm-eval's class for the config's ``output_type`` (``GenerateTask``, ...), which
    builds the requests (one class per pair, created once)."""
    if not SCORERS:
        return cls
    from lm_eval.api.task import Task

    output_type = (config or {}).get("output_type") if isinstance(config, dict) else getattr(config, "output_type", None)
    base = Task._registry.get(output_type)
    if base is None or issubclass(cls, base):
        return cls
    key = (cls, output_type)
    if key not in _TASK_CLASSES:
        _TASK_CLASSES[key] = type(cls.__name__, (cls, base), {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
    return _TASK_CLASSES[key]


def clone_request(request: Any, *, arguments: tuple, idx: int, repeats: int) -> Any:
    """A copy of ``request`` with other arguments, index and number of repeats, and no responses."""
    if SCORERS:
        return dataclasses.replace(request, arguments=arguments, idx=idx, repeats=repeats,
                                   metadata=dict(request.metadata), resps=[], filtered_resps={})
    return dataclasses.replace(request, arguments=arguments, idx=idx, resps=[], filtered_resps={},
                               metadata=(request.task_name, request.doc_id, repeats))


def document_outputs(results: list[Any]) -> list[Any]:
    """The kept outputs of one document as ``process_results`` receives them: 0.4 passes
    ``[[s_1, ..., s_n]]`` (``[s]`` when a filter kept one), 0.5 ``[s_1, ..., s_n]``."""
    if len(results) == 1 and isinstance(results[0], (list, tuple)):
        return list(results[0])
    return list(results)


def document_values(values: dict[str, Any]) -> dict[str, Any]:
    """``process_results``' values for one document as lm-eval keeps them: in 0.5 a list value is
    one score per repeat (the first is kept), so a value that *is* a list (the non-greedy
    family's records of one question) goes in a one-element list, which 0.5 unwraps."""
    if not SCORERS:
        return values
    return {k: [v] if isinstance(v, list) else v for k, v in values.items()}


def fewshot_split(task: Any) -> str | None:
    """The split a task draws few-shot examples from (0.4: ``task.fewshot_cfg``, 0.5: ``_fewshot_cfg``)."""
    cfg = task._fewshot_cfg if SCORERS else task.fewshot_cfg
    return cfg.split if cfg else None
