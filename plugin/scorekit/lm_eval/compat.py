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
- **Task index**: ``TaskManager.task_index`` (0.4.13) is the private ``_task_index`` in 0.5
  (same ``{name: Entry}`` with ``kind`` and ``yaml_path``): :func:`task_index`. Its entry kinds
  and the YAML loader are private modules in both: :func:`is_group_or_tag`, :func:`task_yaml`.
- **A task's metrics** (``scorekit variants``'s task replaces the wrapped task's metrics with
  its own and still scores answers with the wrapped task's first metric): 0.4 keeps them by name
  on the task (``_metric_fn_list``, ``_aggregation_list``, ...); 0.5 as ``Metric`` objects on each
  filter's scorer, a metric called as ``compute([gold], [s_1, ..., s_n])`` with one value per
  sample: :func:`task_metrics`, :func:`primary_metric`, :func:`score_answer`,
  :func:`set_task_metrics`. Several inputs per document (winogrande's shape) are the config's
  ``multiple_inputs`` in 0.5 (0.4: ``doc_to_text`` returns an index): :func:`multiple_inputs`.
  0.5 calls ``process_results`` once per scorer through ``Task._try_process_results(instances,
  filter_key)``, which ``RobustTask`` overrides only to learn the pipeline's name.
- **Targets**: 0.5 turns a digit-string target into an int even for ``generate_until`` (0.4
  keeps the text), and its ``exact_match`` then fails on it: :func:`generation_target`.
- **Stderr**: 0.5 bootstraps every aggregation other than ``mean`` (0.4: a fixed list, ``"N/A"``
  for the rest) by resampling the task's documents with replacement; a resample repeats variants
  of a question, which the SCORE and variant aggregations refuse (a question's variants are
  its unit; the CR's uncertainty is its ``_ci_low`` / ``_ci_high`` interval over questions).
  ``SCORETask.aggregate`` and ``RobustTask.aggregate`` (0.5 only; 0.4 has no ``Task.aggregate``)
  turn it off: stderr ``"N/A"``, as 0.4 writes it.

Nothing else in scorekit tests the lm-eval version.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable
from typing import Any

__all__ = ["SCORERS", "register_metric", "registered_function", "scorer_call", "scorer_metric", "with_default_kwargs",
           "concrete_task_class", "clone_request", "document_outputs", "document_values", "fewshot_split", "task_index", "is_group_or_tag", "task_yaml", "task_metrics",
           "primary_metric", "score_answer", "set_task_metrics", "multiple_inputs",
           "generation_target"]

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


def with_default_kwargs(metric: Any, functions: tuple[Callable[..., Any], ...], **defaults: Any) -> Any:
    """A 0.5 ``Metric`` whose scorekit function is one of ``functions``, with ``defaults`` under its
    own ``kwargs`` (what the ``metric_list`` entry sets wins); any other metric unchanged."""
    if getattr(metric.fn, "scorekit_fn", None) not in functions:
        return metric
    return dataclasses.replace(metric, kwargs={**defaults, **metric.kwargs})


def register_metric(name: str, fn: Callable[..., Any], *, output_type: str, aggregation: str = "mean",
                    higher_is_better: bool = True) -> None:
    """Register ``fn`` under ``name`` for ``output_type`` (``generate_until`` or ``multiple_choice``);
    lm-eval's ``ValueError`` when it holds another object under ``name`` is passed on."""
    from lm_eval.api import registry

    extra = {"output_type": output_type} if SCORERS else {}
    registry.register_metric(metric=name, higher_is_better=higher_is_better, aggregation=aggregation,
                             **extra)(scorer_call(fn, output_type) if SCORERS else fn)


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


def task_index(include_path: str | None = None) -> dict[str, Any]:
    """lm-eval's task index ``{name: Entry}`` (built-in tasks, then ``include_path``, which wins):
    ``TaskManager.task_index`` in 0.4.13, ``TaskManager._task_index`` in 0.5."""
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=include_path)
    return manager._task_index if SCORERS else manager.task_index


def is_group_or_tag(entry: Any) -> bool:
    """Whether an entry of :func:`task_index` is a group or a tag, not a task (lm-eval's private
    ``lm_eval.tasks._index.Kind``, the same in 0.4.13 and 0.5)."""
    from lm_eval.tasks._index import Kind

    return entry.kind in (Kind.GROUP, Kind.TAG)


def task_yaml(path: str, *, resolve_functions: bool = True) -> dict[str, Any]:
    """A task's YAML config as lm-eval reads it (``include:`` followed; ``!function`` resolved
    unless ``resolve_functions`` is false): lm-eval's private ``lm_eval.tasks._yaml_loader.load_yaml``,
    the same in 0.4.13 and 0.5."""
    from lm_eval.tasks._yaml_loader import load_yaml

    return load_yaml(path, resolve_func=resolve_functions)


def task_metrics(task: Any) -> Any:
    """The metrics a task built from its config: 0.4 ``(functions by name, kwargs by name)``;
    0.5 ``{filter name: [Metric, ...]}``."""
    if SCORERS:
        return {scorer.name: list(scorer.metrics or []) for scorer in task.scorers}
    return dict(task._metric_fn_list), dict(task._metric_fn_kwargs)


def primary_metric(metrics: Any, filter_key: str | None = None) -> str | None:
    """Name of the first metric in ``metrics`` (from :func:`task_metrics`; 0.5: of filter
    ``filter_key``, the first filter when None), or None when there is none."""
    if SCORERS:
        found = _filter_metrics(metrics, filter_key)
        return found[0].name if found else None
    return next(iter(metrics[0]), None)


def _filter_metrics(metrics: dict[str, list], filter_key: str | None) -> list:
    """lm-eval 0.5: the metrics of filter ``filter_key`` (from :func:`task_metrics`), those of the
    first filter when None or unknown."""
    found = metrics.get(filter_key) if filter_key is not None else None
    return found if found is not None else next(iter(metrics.values()), [])


def score_answer(task: Any, metrics: Any, filter_key: str | None, doc: Any, output: Any) -> Any:
    """lm-eval 0.5: the value filter ``filter_key``'s first metric (see :func:`primary_metric`)
    gives one (filtered) answer ``output`` of ``doc``: from the task's own ``process_results``
    when its YAML gives one (as 0.4 does), else called as 0.5's scorers call it
    (``compute([gold], [output], multiple_targets=...)``), its one value per sample unwrapped."""
    name = primary_metric(metrics, filter_key)
    from lm_eval.api.task import Task

    own = Task.process_results(task, doc, [output])  # the task's own process_results (YAML), or None
    if own is not None:
        return own.get(name)
    metric = next(m for m in _filter_metrics(metrics, filter_key) if m.name == name)
    context = {"multiple_targets": True} if task._multiple_targets else {}
    value = metric.compute([task.doc_to_target(doc)], [output], **context)
    if isinstance(value, dict):
        value = value.get(name, next(iter(value.values()), None))
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    return value


def set_task_metrics(task: Any, metrics: dict[str, tuple[Callable[[list[Any]], float], bool]]) -> None:
    """Make ``metrics`` (``{name: (aggregation, higher is better)}``) the task's metrics, computed by
    its own ``process_results``; ``task.aggregation()`` / ``higher_is_better()`` must return
    ``_aggregation_list`` / ``_higher_is_better`` (0.4 does; 0.5 needs the task to say so). 0.5:
    the wrapped metrics leave the scorers, so no name of theirs can shadow one of these."""
    task._metric_fn_list = dict.fromkeys(metrics)
    task._metric_fn_kwargs = {name: {} for name in metrics}
    task._aggregation_list = {name: agg for name, (agg, _) in metrics.items()}
    task._higher_is_better = {name: hib for name, (_, hib) in metrics.items()}
    if SCORERS:
        for scorer in task.scorers:
            scorer.metrics = []


def multiple_inputs(task: Any) -> bool:
    """lm-eval 0.5: the task's config declares several inputs per document (``multiple_inputs``);
    always False in 0.4, where ``doc_to_text`` returning a choice index says so."""
    return bool(getattr(task, "_multiple_inputs", False)) if SCORERS else False


def generation_target(target: Any) -> Any:
    """A ``generate_until`` target as text, as 0.4 gives it: 0.5 renders the answer ``"5"`` as the
    int 5, which text metrics (``exact_match``) cannot compare; lists keep their items' text.

    >>> generation_target(5), generation_target(["7", 8]), generation_target(True)
    ('5', ['7', '8'], True)
    """
    if isinstance(target, list):
        return [generation_target(t) for t in target]
    return str(target) if isinstance(target, int) and not isinstance(target, bool) else target
