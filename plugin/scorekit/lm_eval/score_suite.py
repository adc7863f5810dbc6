"""lm-eval adapter for the SCORE robustness tasks in ``tasks/score/`` (thin: the work is in
:mod:`scorekit.robustness`).

The YAMLs reference these callables as ``!function scorekit.lm_eval.score_suite.<name>``:

- ``<family>_docs_<benchmark>[_<subset>]`` (``process_docs``): dataset split -> expanded
  documents, question-major (:func:`scorekit.robustness.score_documents.expand`). One function per
  subset because lm-eval passes ``process_docs`` nothing but the split, and the AGIEval subset
  / MATH subject is part of every question id.
- :func:`doc_to_text`, :func:`process_results` (shared by every task).
- ``agg_<benchmark>_<metric>`` (aggregations): each receives the records of every document of
  the task and returns one number of :func:`scorekit.robustness.analysis.summarize` (computed once
  per task and cached, whatever the number of metrics).
- :class:`SCORETask` (``class``) and :class:`FewshotSampler` (``fewshot_config.sampler``):
  few-shot examples from the task's few-shot split only, never from the test questions; a task
  without one (AGIEval; local data without that split) refuses ``--num_fewshot`` > 0.

``process_results`` gives every metric the same item: the document's :class:`Record` (a list of
five records for the non-greedy family), so lm-eval's ``samples_*.jsonl`` holds the records
and ``scorekit robustness`` can recompute everything from them. The exception is the
non-greedy ``identical_sample_rate`` (:mod:`scorekit.robustness.identical`): its item is 1.0
when the document's five raw generations are the same text, else 0.0; its aggregation warns
when the rate is high.

A document of the option-order family emits the per-position keys of its own question's
positions only, so a position that no question of the task has (E for the 4-option AGIEval subsets, F-J for an MMLU-Pro run whose
questions have at most 5 options) is absent from the results rather than nan. On MMLU-Pro
(3-10 options per question) the position metrics therefore hold different numbers of items
(position J only the documents of 10-option questions), and lm-eval 0.4.13 warns that "Metrics
were not scored on the same number of documents": that is by design. The warning's concern,
size-weighted group means, does not arise: no group averages MMLU-Pro's metrics.

Speed (``bench/bench_score_suite.py``; docs/score-suite.md, "Performance"): lm-eval calls
``process_docs`` about five times per task (each time it lists the documents), so the expanded
dataset is kept per source :class:`datasets.Dataset` object (weakly, checked against its
fingerprint, which every in-place change of a Dataset renews); the aggregations of one task
receive the same record objects under every metric, so the summary is computed once and found
again by identity (a position metric's items, a subset of the task's, find the task's summary,
which holds the same value for that position).
"""

from __future__ import annotations

import math
import operator
import weakref
from collections import OrderedDict
from functools import lru_cache
from typing import Any

from lm_eval.api.samplers import ContextSampler

from scorekit.lm_eval import compat
from scorekit.lm_eval.task import ScorekitTask
from scorekit.robustness import local_data
from scorekit.robustness.analysis import summarize
from scorekit.robustness.identical import IDENTICAL, identical_rate_with_warning, samples_identical
from scorekit.robustness.records import Family, Record, records_from_items
from scorekit.robustness.grading import equal_for, prompt_for, record_for
from scorekit.robustness.benchmarks import BENCHMARKS
from scorekit.robustness.score_documents import expand, questions_from_rows

__all__ = ["doc_to_text", "process_results", "task_metric_names", "process_docs_name", "aggregation_name",
           "SCORETask", "FewshotSampler"]


@lru_cache(maxsize=1)
def _features():
    from datasets import Features, Sequence, Value

    return Features({
        "question_id": Value("string"), "benchmark": Value("string"), "family": Value("string"),
        "variant": Value("int64"), "n_variants": Value("int64"), "category": Value("string"),
        "question": Value("string"), "options": Sequence(Value("string")),
        "option_map": Sequence(Value("int64")), "canonical_map": Sequence(Value("int64")),
        "gold_index": Value("int64"), "gold": Value("string"), "gold_canonical": Value("int64"),
        "answer": Value("string"),
    })


# source Dataset -> {(benchmark, family, subset): (source fingerprint, expanded Dataset)}
_DOCS: weakref.WeakKeyDictionary[Any, dict[tuple[str, str, str], tuple[Any, Any]]] = weakref.WeakKeyDictionary()


def _list_column(values: list[list[Any]], type_: Any) -> Any:
    """Arrow array of a list column whose rows share list objects (as :func:`expand` makes
    them): each distinct object is converted once, then taken per row."""
    import pyarrow as pa

    index: dict[int, int] = {}  # id of a distinct object -> its place among them
    idx = [index.setdefault(id(v), len(index)) for v in values]
    if len(index) == len(values):
        return pa.array(values, type=type_)
    distinct = list({id(v): v for v in values}.values())
    return pa.array(distinct, type=type_).take(pa.array(idx, type=pa.int64()))


def _expand_docs(dataset: Any, *, benchmark: str, family: Family, subset: str) -> Any:
    import pyarrow as pa
    from datasets import Dataset
    from datasets.fingerprint import generate_random_fingerprint

    source = f"SCORE {benchmark}{'/' + subset if subset else ''} {family}"
    questions = questions_from_rows(dataset.to_list() if hasattr(dataset, "to_list") else list(dataset),
                                    benchmark, subset, source=source)
    cols = expand(questions, family)
    schema = _features().arrow_schema
    # pyarrow builds the table ~10x faster than Dataset.from_dict; an explicit fingerprint spares
    # datasets hashing the whole table
    arrays = [_list_column(cols[f.name], f.type) if pa.types.is_list(f.type) else pa.array(cols[f.name], type=f.type)
              for f in schema]
    return Dataset(pa.Table.from_arrays(arrays, schema=schema), fingerprint=generate_random_fingerprint())


def _process_docs(dataset: Any, *, benchmark: str, family: Family, subset: str) -> Any:
    """Expanded documents of ``dataset``; the same Dataset object again while ``dataset`` is
    alive and unchanged (lm-eval asks ~5 times per task)."""
    key = (benchmark, family, subset)
    fingerprint = getattr(dataset, "_fingerprint", None)
    try:
        per_source = _DOCS.get(dataset) if fingerprint is not None else None
    except TypeError:  # not weak-referenceable / hashable
        per_source = None
    if per_source is not None:
        hit = per_source.get(key)
        if hit is not None and hit[0] == fingerprint:
            return hit[1]
    docs = _expand_docs(dataset, benchmark=benchmark, family=family, subset=subset)
    if fingerprint is not None:
        try:
            _DOCS.setdefault(dataset, {})[key] = (fingerprint, docs)
        except TypeError:
            pass
    return docs


def process_docs_name(benchmark: str, family: Family, subset: str = "") -> str:
    return f"{family}_docs_{benchmark}" + (f"_{subset}" if subset else "")


def doc_to_text(doc: dict[str, Any]) -> str:
    """The SCORE prompt, rendered from lm-eval's installed templates."""
    return prompt_for(doc)


class SCORETask(ScorekitTask):
    """The class of every SCORE task: :class:`~scorekit.lm_eval.ScorekitTask` (independent seeded
    samples for the non-greedy family) that reads local files instead of the hub when
    ``$SCOREKIT_SCORE_DATA_DIR`` is set (:meth:`download`), and whose few-shot pool is the
    configured ``fewshot_split`` when the dataset has it, and empty otherwise. lm-eval would fall back to the test documents
    (the question under test among them; AGIEval) or fail with a KeyError (local data given
    without that split); with an empty pool :class:`FewshotSampler` refuses few-shot instead.
    """

    def test_docs(self) -> Any:
        """The expanded documents; with ``metadata.budget`` (``scorekit variants ... --budget B``) only
        those of each question's B variants (:func:`scorekit.lm_eval.score_suite_design.select_docs`)."""
        docs = super().test_docs()
        budget = (getattr(self.config, "metadata", None) or {}).get("budget")
        if docs is None or budget is None:
            return docs
        hit = getattr(self, "_budget_docs", None)
        if hit is not None and hit[0] is docs:
            return hit[1]
        from scorekit.lm_eval.score_suite_design import select_docs
        from scorekit.lm_eval.task_variants import RobustStop
        from scorekit.robustness.budget import BudgetError

        try:
            kept = select_docs(docs, budget if isinstance(budget, dict) else {}, self.config.task)
        except BudgetError as exc:
            raise RobustStop(str(exc)) from None
        self._budget_docs = (docs, kept)
        return kept

    def download(self, dataset_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        """The hub dataset, or with ``$SCOREKIT_SCORE_DATA_DIR`` set the local files of
        :mod:`scorekit.robustness.local_data` (the layout lighteval's SCORE tasks read): the test
        split, and the few-shot split when its file is there. Nothing is fetched then, so the
        tasks run offline (``HF_DATASETS_OFFLINE=1``)."""
        root = local_data.data_dir()
        which = local_data.score_subset(self.config.dataset_path, self.config.dataset_name) if root else None
        if which is None:
            return super().download(dataset_kwargs, **kwargs)
        import datasets

        files = local_data.split_files(root, *which, extra_splits=(self.config.fewshot_split,))
        self.dataset = datasets.load_dataset("json", data_files=files)

    def aggregate(self, bootstrap_iters: int | None = None) -> Any:
        """lm-eval 0.5 only: stderr ``"N/A"``, as 0.4 writes it (:mod:`scorekit.lm_eval.compat`, Stderr)."""
        return super().aggregate(bootstrap_iters=0)

    def doc_to_target(self, doc: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        """The answer as text. lm-eval 0.5 turns a digit string (MATH's "7") into an int, which its
        few-shot formatting then refuses ("Unexpected answer type: 7": no choices to index)."""
        return compat.generation_target(super().doc_to_target(doc, *args, **kwargs))

    def fewshot_docs(self) -> Any:
        split = compat.fewshot_split(self)
        if split is None or self.dataset is None or split not in self.dataset:
            return []
        return super().fewshot_docs()


class FewshotSampler(ContextSampler):
    """lm-eval ``fewshot_config.sampler`` of the SCORE tasks.

    The pool is the task's expanded few-shot split (``fewshot_split``; lm-eval applies the task's
    ``process_docs`` to it). ``n`` examples are ``n`` distinct questions drawn with lm-eval's
    seeded ``rnd`` (``--fewshot_seed``), one random variant (document) of each; when lm-eval
    hands over the document under test (few-shot split = test split) every variant of its
    question is left out. An empty pool means the task has no few-shot split (:class:`SCORETask`):
    asking for examples raises ValueError rather than drawing them from the test questions.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._by_question: dict[str, list[Any]] | None = None
        self._questions: list[str] = []

    def replace_df(self, df: Any) -> FewshotSampler:
        self._by_question = None
        return super().replace_df(df)

    def sample(self, n: int, eval_doc: dict[str, Any] | None = None, df: Any = None, **kwargs: Any) -> list[Any]:
        if n < 0:
            raise ValueError(f"number of few-shot examples must be >= 0, got {n}")
        if n == 0:
            return []
        if df:
            self.replace_df(df)
        if self._by_question is None:
            by_question: dict[str, list[Any]] = {}
            for doc in self.fewshot_docs():
                by_question.setdefault(str(doc["question_id"]), []).append(doc)
            self._by_question, self._questions = by_question, sorted(by_question)
        if not self._by_question:
            raise ValueError(
                "SCORE task without a few-shot split: examples may only come from questions other than "
                "the test questions, and this task has none (AGIEval's datasets hold only test "
                "questions; local data given without the few-shot split). Run with --num_fewshot 0 "
                "(SCORE is zero-shot) or give the task a fewshot_split that its dataset has.")
        questions = self._questions
        if eval_doc is not None and str(eval_doc["question_id"]) in self._by_question:
            questions = [q for q in questions if q != str(eval_doc["question_id"])]
        if len(questions) < n:
            raise ValueError(f"{n} few-shot examples asked, but the few-shot split has only {len(questions)} "
                             "question(s) other than the one under test")
        return [self.rnd.choice(self._by_question[q]) for q in self.rnd.sample(questions, n)]


class BudgetedRecord(Record):
    """The record of a document of a budgeted SCORE task: a :class:`Record` (logged the same), whose
    type tells the aggregations that each question was asked B of its V variants."""

    __slots__ = ()


def task_metric_names(benchmark: str, family: Family) -> list[str]:
    """Metric names of one task (all positions a question of this benchmark can have)."""
    names = BENCHMARKS[benchmark].metric_names(family)
    return names + [IDENTICAL] if family == "non_greedy" else names


@lru_cache(maxsize=None)
def _doc_metric_names(benchmark: str, family: Family, n_options: int) -> tuple[str, ...]:
    """Metric keys one document of ``family`` emits (``n_options``: its question's options,
    option order: the positions it has, so a position no question has gets no key at all)."""
    if family != "option_order":
        return tuple(task_metric_names(benchmark, family))
    return tuple(BENCHMARKS[benchmark].metric_names(family, n_options))


def process_results(doc: dict[str, Any], results: list[Any]) -> dict[str, Any]:
    """Score the output(s) of one document; every metric key gets the same record item."""
    family = doc["family"]
    if family == "non_greedy":
        outputs = compat.document_outputs(results)  # one output when a filter other than take_first_k kept one
        item: Any = [record_for(doc, out, sample=i) for i, out in enumerate(outputs)]
        out = dict.fromkeys(_doc_metric_names(doc["benchmark"], family, 0), item)
        out[IDENTICAL] = float(samples_identical(outputs))
        return compat.document_values(out)
    item = record_for(doc, results[0])
    if doc.get("design") is not None:  # a budgeted task (score_suite_design): its aggregations differ
        item = BudgetedRecord(*item)
    names = _doc_metric_names(doc["benchmark"], family, int(doc["n_variants"]) if family == "option_order" else 0)
    return dict.fromkeys(names, item)


class _Summary:
    """A task's metrics and the items they were computed from (kept alive, so the identity tests
    below cannot be fooled by reused ids)."""

    __slots__ = ("benchmark", "items", "metrics", "_ids")

    def __init__(self, benchmark: str, items: list[Any], metrics: dict[str, float]) -> None:
        self.benchmark, self.items, self.metrics = benchmark, items, metrics
        self._ids: frozenset[int] | None = None

    def same(self, benchmark: str, items: list[Any]) -> bool:
        return (self.benchmark == benchmark and len(self.items) == len(items)
                and all(map(operator.is_, self.items, items)))

    def covers(self, benchmark: str, items: list[Any]) -> bool:
        if self.benchmark != benchmark or len(items) > len(self.items):
            return False
        if self._ids is None:
            self._ids = frozenset(map(id, self.items))
        return all(id(x) in self._ids for x in items)


# Summaries of the last tasks aggregated, by the id of their first item. lm-eval aggregates one
# task's metrics one after another, so two entries suffice and little memory stays held after
# the run.
_CACHE: OrderedDict[int, _Summary] = OrderedDict()
_CACHE_SIZE = 2


def _task_metrics(benchmark: str, items: list[Any], *, position: bool = False) -> dict[str, float]:
    """All metrics of the task whose records ``items`` are. lm-eval hands every metric of a task
    its own list holding the same item objects, so a cached summary is found again by identity
    of the items (the first item's id selects the candidate, then every item is compared).

    ``position``: the items of a per-position metric, emitted only by the documents of the
    questions that have that position: all documents of those questions, so the task's summary
    has the same value for that position (same records at that position, same complete
    questions) and is used when it covers every item."""
    key = id(items[0]) if items else 0
    hit = _CACHE.get(key)
    if hit is not None and hit.same(benchmark, items):
        _CACHE.move_to_end(key)
        return hit.metrics
    if position:
        for entry in reversed(_CACHE.values()):
            if entry.covers(benchmark, items):
                return entry.metrics
    records = records_from_items(items, where=f"SCORE {benchmark} results")
    if items and isinstance(items[0], BudgetedRecord):
        from scorekit.robustness.budget.variants import harness_metrics

        metrics = harness_metrics(records, records[0].family, equal=equal_for(benchmark), macro=BENCHMARKS[benchmark].macro)
    else:
        metrics = summarize(records, macro=BENCHMARKS[benchmark].macro, equal=equal_for(benchmark)).metrics()
    _CACHE[key] = _Summary(benchmark, list(items), metrics)
    _CACHE.move_to_end(key)
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return metrics


def aggregation_name(benchmark: str, metric: str) -> str:
    return f"agg_{benchmark}_{metric}"


def _make_aggregation(benchmark: str, metric: str):
    if metric == IDENTICAL:  # share of the task's questions whose samples were identical; warns when high
        def aggregate(items: list[Any]) -> float:
            return identical_rate_with_warning(items, "SCORE non-greedy")
    else:
        position = metric.startswith("per_option_")

        def aggregate(items: list[Any]) -> float:
            return _task_metrics(benchmark, items, position=position).get(metric, math.nan)

    aggregate.__name__ = aggregate.__qualname__ = aggregation_name(benchmark, metric)
    aggregate.__doc__ = f"SCORE {benchmark}: ``{metric}`` from the task's items (scorekit.robustness)."
    return aggregate


def _make_process_docs(benchmark: str, family: Family, subset: str):
    def process(dataset: Any) -> Any:
        return _process_docs(dataset, benchmark=benchmark, family=family, subset=subset)

    process.__name__ = process.__qualname__ = process_docs_name(benchmark, family, subset)
    process.__doc__ = f"Expanded SCORE {family} documents of {benchmark} {subset}".rstrip() + " (question-major)."
    return process


def _register() -> None:
    g = globals()
    for benchmark, bench in BENCHMARKS.items():
        for family in bench.families:
            for subset in bench.subset_keys:
                fn = _make_process_docs(benchmark, family, subset)
                g[fn.__name__] = fn
                __all__.append(fn.__name__)
            for metric in task_metric_names(benchmark, family):
                name = aggregation_name(benchmark, metric)
                if name not in g:
                    g[name] = _make_aggregation(benchmark, metric)
                    __all__.append(name)


_register()
