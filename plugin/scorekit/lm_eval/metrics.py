"""scorekit metrics in the shape lm-eval calls them: ``fn(references=[gold], predictions=[result], **kw)``.

Which metrics exist, their names, aggregations and columns: :mod:`scorekit.metric_specs`. One
function here per spec, named as the spec: built by :func:`from_spec` for a standard one (one
value per document under a fixed column), written by hand for the k / tau families,
extractiveness and the consistency rate (``tests/test_metric_specs.py`` checks the set).

``kw`` are the extra keys of the task's ``metric_list`` entry (``k``, ``tau``, ``ignore_case``...);
an unknown key raises ``TypeError``. Each function returns the per-question value (lm-eval
averages them with the ``mean`` aggregation). Metrics with parameters ``k`` / ``tau`` return
``{column: value}`` with the spec's column names (``pass@4``, ``g-pass@4_0.5``, ``recall@2``),
one per value when a list is given, so the columns are the same as lighteval's.

generate_until: ``result`` is one string, or a list of strings when the task keeps all
``repeats`` (a ``filter_list`` without ``take_first``, e.g. only a ``regex`` filter). Samples
are compared with the gold after ``str.strip()`` (and ``casefold()`` with ``ignore_case``).

multiple_choice (needs ``class: !function scorekit.lm_eval.ScorekitTask``, since lm-eval only
computes its built-in metrics for this output type): ``gold`` is the gold index (or list of
indices) and ``result`` the list of the choices' log-likelihoods.

Several golds (``doc_to_target`` returns a list): a generation metric gets them all as one
list (``references=[[g1, g2]]``, which :class:`~scorekit.lm_eval.ScorekitTask` does) and a sample
is correct when it matches any of them (string similarities: the best gold per sample).
lm-eval's own ConfigurableTask instead calls a metric once per gold and reports 1 if any call
was non-zero (pass@2 of 1 correct in 4 samples becomes 1.0, not 0.5; per-k dicts crash): a
generation metric called that way stops with a ValueError naming the task and the fix.

Uncertainty: for these per-question metrics lm-eval writes ``<metric>_stderr`` = std(per-question
values, ddof=1) / sqrt(Q), the standard error over questions of the corpus value; it covers the
choice of questions and the noise of the n samples as far as it shows per question, and agrees
with the bootstrap over questions (tests/lm_eval/test_gpass_stderr.py,
docs/uncertainty.md).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

from scorekit import metrics as M
from scorekit.metric_specs import SPECS, MetricSpec, column, tau_label
from scorekit.robustness.task_variants import LM_EVAL_FALLBACK

__all__ = [s.name for s in SPECS] + ["consistency_rate_aggregation", "from_spec", "METRICS", "GENERATE_METRICS",
                                     "MULTIPLE_CHOICE_METRICS", "AGGREGATIONS"]


def _one(references: Sequence[Any], predictions: Sequence[Any]) -> tuple[Any, Any]:
    if len(references) != 1 or len(predictions) != 1:
        raise ValueError(f"expected one reference and one prediction per call, got {len(references)} and {len(predictions)}")
    return references[0], predictions[0]


def _samples(result: Any) -> list[Any]:
    return [result] if isinstance(result, str) else list(result)


def _canon(text: Any, ignore_case: bool) -> str | None:
    if text is None:
        return None
    s = str(text).strip()
    return s.casefold() if ignore_case else s


def _listed(value: Any) -> list[Any]:
    """A gold (or a parameter such as ``k``) as a list: one value, or each of a list of them."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _correct(gold: Any, result: Any, ignore_case: bool) -> list[int]:
    """1 per sample that equals any gold (after strip / casefold)."""
    golds = {_canon(g, ignore_case) for g in _listed(gold)}
    return [int(_canon(p, ignore_case) in golds) for p in _samples(result)]


def _one_call_per_doc(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse lm-eval's per-gold calls (see the module docstring).

    lm-eval hands a metric no task, so the caller's frame is the one place that tells a per-gold
    call (ConfigurableTask.process_results with ``multiple_target`` set, one gold string per call)
    from a single-gold one."""

    @functools.wraps(fn)
    def checked(references, predictions, **kwargs):
        task = sys._getframe(1).f_locals.get("self")
        if (getattr(task, "multiple_target", 0) and hasattr(task, "_metric_fn_list")
                and references and not isinstance(references[0], (list, tuple))):
            name = getattr(getattr(task, "config", None), "task", None) or "?"
            raise ValueError(
                f"task {name}: doc_to_target gives several golds, and lm-eval's ConfigurableTask then calls "
                f"{fn.__name__} once per gold and reports 1 if any call is non-zero, which is wrong for "
                f"{fn.__name__}. Add `class: !function scorekit.lm_eval.ScorekitTask` to the task YAML: it "
                "scores every sample against all golds (correct when it matches any).")
        return fn(references, predictions, **kwargs)

    return checked


@_one_call_per_doc
def pass_at_k(references, predictions, k: int | list[int] = 1, ignore_case: bool = False):
    """Per question pass@k from its n samples (n = number of kept repeats, c = correct ones)."""
    gold, result = _one(references, predictions)
    scores = _correct(gold, result, ignore_case)
    return {column("pass_at_k", k=kk): M.pass_at_k(len(scores), sum(scores), kk) for kk in _listed(k)}


@_one_call_per_doc
def g_pass_at_k(references, predictions, k: int | list[int] | None = None, tau: float | list[float] = 0.0, ignore_case: bool = False):
    """Per question G-Pass@k_tau; k defaults to the number of samples n."""
    gold, result = _one(references, predictions)
    scores = _correct(gold, result, ignore_case)
    return {column("g_pass_at_k", k=kk, tau=tau_label(t)): M.g_pass_at_k(len(scores), sum(scores), kk, float(t))
            for kk in _listed(len(scores) if k is None else k) for t in _listed(tau)}


@_one_call_per_doc
def mg_pass_at_k(references, predictions, k: int | list[int] | None = None, ignore_case: bool = False):
    """Per question mG-Pass@k; k defaults to the number of samples n."""
    gold, result = _one(references, predictions)
    scores = _correct(gold, result, ignore_case)
    return {column("mg_pass_at_k", k=kk): M.mg_pass_at_k(len(scores), sum(scores), kk)
            for kk in _listed(len(scores) if k is None else k)}


@_one_call_per_doc
def avg_at_k(references, predictions, k: int | list[int] | None = None, ignore_case: bool = False):
    """Per question mean correctness of the first k samples (k defaults to all)."""
    gold, result = _one(references, predictions)
    scores = _correct(gold, result, ignore_case)
    return {column("avg_at_k", k=kk): M.avg_at_k(scores, kk) for kk in _listed(len(scores) if k is None else k)}


@_one_call_per_doc
def maj_at_k(references, predictions, k: int | list[int] | None = None, ignore_case: bool = False):
    """Per question: 1 if the most frequent of the first k samples (earliest wins ties) is the gold."""
    gold, result = _one(references, predictions)
    answers = [_canon(p, ignore_case) or None for p in _samples(result)]  # empty answer = unparsed
    # the vote does not depend on the gold: the winner is correct if it equals any gold
    golds = [_canon(g, ignore_case) for g in _listed(gold)]
    return {column("maj_at_k", k=kk): max(M.maj_at_k(answers, g, kk) for g in golds)
            for kk in _listed(len(answers) if k is None else k)}


def recall_at_k(references, predictions, k: int | list[int] = 1):
    """1 if a gold choice is among the k most likely choices (ties: earlier choice first)."""
    gold, lls = _one(references, predictions)
    return {column("recall_at_k", k=kk): M.recall_at_k(lls, gold, kk) for kk in _listed(k)}


@_one_call_per_doc
def extractiveness(references, predictions):
    """Coverage, density and compression of the (first) generation against the source text, which
    the task gives as its target (``doc_to_target``): ``extractiveness_coverage``, ..."""
    source, result = _one(references, predictions)
    summary = _samples(result)[0]
    return {column("extractiveness", part=part): v for part, v in M.extractiveness(str(source), summary).items()}


def consistency_rate(references, predictions, fallback: str | list[str] = LM_EVAL_FALLBACK) -> list[Any]:
    """The document's answers (its kept repeats, stripped) for the ``consistency_rate``
    aggregation, which pools them over documents (:func:`scorekit.metrics.consistency_rate`:
    agreeing pairs over all pairs).

    Unparsed (None, agrees with nothing) is an empty answer or a filter's ``fallback``, what it
    writes when it extracts nothing (whitespace runs collapsed): lm-eval's regex filters write
    ``[invalid]``, which would otherwise agree with every other ``[invalid]``. ``ScorekitTask``
    passes the fallbacks of the task's ``filter_list``; give ``fallback:`` in the
    ``metric_list`` entry for a plain task whose filters set their own. No parsed pair in any
    document: the aggregation is undefined (NaN), as the robustness report says it."""
    _, result = _one(references, predictions)
    unparsed = {" ".join(str(f).split()) for f in _listed(fallback)}
    return [None if p is None or " ".join(str(p).split()) in unparsed else _canon(p, False) or None
            for p in _samples(result)]


def consistency_rate_aggregation(items: list[list[Any]]) -> float:
    """lm-eval aggregation ``consistency_rate``: CR over documents, each document's answers one group."""
    return M.consistency_rate(items)


def from_spec(spec: MetricSpec) -> Callable[..., Any]:
    """The lm-eval metric of a standard spec (:attr:`~scorekit.metrics.specs.MetricSpec.standard`),
    named as the spec, calling its formula with the spec's ``options``:

    - ``generate``: ``formula(sample, gold)`` of each sample (stripped; casefolded with
      ``ignore_case``), the best over golds (the largest, or the smallest when lower is
      better), averaged over the kept samples;
    - ``multiple_choice``: ``formula(log-likelihoods of the choices, gold index or indices)``.

    The function's ``spec`` attribute is ``spec``.
    """
    if not spec.standard:
        raise ValueError(f"metric {spec.name!r} (column {spec.column!r}, {spec.kind}, aggregation {spec.aggregation!r}) "
                         "is not one value per document under a fixed column: write its lm-eval metric by hand")
    fn, options = spec.formula or getattr(M, spec.function), dict(spec.options)
    best = max if spec.higher_is_better else min

    def of_choices(references, predictions) -> float:
        gold, lls = _one(references, predictions)
        return fn(lls, gold, **options)

    def of_samples(references, predictions, ignore_case: bool = False) -> float:
        gold, result = _one(references, predictions)
        samples = _samples(result)
        golds = [_canon(g, ignore_case) for g in _listed(gold)]
        return sum(best(fn(_canon(p, ignore_case) or "", g, **options) for g in golds) for p in samples) / len(samples)

    metric: Callable[..., float] = of_choices if spec.kind == "multiple_choice" else of_samples

    metric.__name__ = metric.__qualname__ = spec.name
    metric.__module__ = __name__  # the entry point's target: scorekit.lm_eval.metrics:<name>
    metric.spec = spec  # type: ignore[attr-defined]
    metric.__doc__ = f"``{spec.name}`` of one document: :func:`{fn.__module__}.{fn.__name__}`" + (
        f" with {options}" if options else "") + (" (multiple_choice, via ScorekitTask)." if spec.kind == "multiple_choice"
                                                  else ", best over golds, mean over the kept samples.")
    return metric if spec.kind == "multiple_choice" else _one_call_per_doc(metric)


# spec name -> its function (module docstring); module attributes too: the entry points' targets
_BY_HAND = {f.__name__: f for f in (pass_at_k, g_pass_at_k, mg_pass_at_k, avg_at_k, maj_at_k, recall_at_k, extractiveness,
                                    consistency_rate)}
METRICS: dict[str, Callable[..., Any]] = {s.name: _BY_HAND.get(s.name) or from_spec(s) for s in SPECS}
globals().update(METRICS)
GENERATE_METRICS: dict[str, Callable[..., Any]] = {s.name: METRICS[s.name] for s in SPECS if s.kind != "multiple_choice"}
MULTIPLE_CHOICE_METRICS: dict[str, Callable[..., Any]] = {s.name: METRICS[s.name] for s in SPECS if s.kind == "multiple_choice"}
# scorekit's aggregations by their lm-eval name (metric_specs.AGGREGATIONS)
AGGREGATIONS: dict[str, Callable[..., float]] = {"consistency_rate": consistency_rate_aggregation}
