"""lm-eval adapter for the SCORE robustness tasks in ``tasks/score/`` (thin: the work is in
:mod:`scorekit.score`).

The YAMLs reference these callables as ``!function scorekit.lm_eval.score_tasks.<name>``:

- ``<family>_docs_<benchmark>[_<subset>]`` (``process_docs``): dataset split -> expanded
  documents, question-major (:func:`scorekit.score.variants.expand`). One function per
  subset because lm-eval passes ``process_docs`` nothing but the split, and the AGIEval subset
  / MATH subject is part of every question id.
- :func:`doc_to_text`, :func:`process_results` (shared by every task).
- ``agg_<benchmark>_<metric>`` (aggregations): each receives the records of every document of
  the task and returns one number of :func:`scorekit.score.analysis.summarize` (computed once
  per task and cached, whatever the number of metrics).

``process_results`` gives every metric the same item: the document's :class:`Record` (a list of
five records for the non-greedy family), so lm-eval's ``samples_*.jsonl`` holds the records
and ``scorekit robustness`` can recompute everything from them. Option-order per-position keys
are emitted only by questions that have that position, so a position no question has (E for
4-option AGIEval subsets, J for MMLU-Pro questions with fewer than 10 options) is absent rather
than nan.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

from scorekit.score.analysis import metric_names, summarize
from scorekit.score.records import Record, records_from_items
from scorekit.score.scoring import equal_for, prompt_for, record_for
from scorekit.score.variants import DOC_FIELDS, expand, questions_from_rows

BENCHMARK_FAMILIES: dict[str, tuple[str, ...]] = {
    "mmlu_pro": ("prompt", "option_order", "non_greedy"),
    "agieval": ("prompt", "option_order", "non_greedy"),
    "math": ("prompt", "non_greedy"),
}
MACRO: dict[str, bool] = {"mmlu_pro": True, "agieval": False, "math": False}
MAX_OPTIONS: dict[str, int] = {"mmlu_pro": 10, "agieval": 5, "math": 0}
# subset key (AGIEval subset / MATH subject as named in question ids) -> lm-eval task suffix
AGIEVAL_SUBSETS: dict[str, str] = {s: s for s in ("aqua_rat", "logiqa_en", "lsat_ar", "lsat_lr", "lsat_rc", "sat_en", "sat_math")}
MATH_SUBJECTS: dict[str, str] = {
    "algebra": "algebra",
    "counting_and_probability": "counting_and_prob",
    "geometry": "geometry",
    "intermediate_algebra": "intermediate_algebra",
    "number_theory": "num_theory",
    "prealgebra": "prealgebra",
    "precalculus": "precalc",
}
SUBSETS: dict[str, dict[str, str]] = {"mmlu_pro": {"": ""}, "agieval": AGIEVAL_SUBSETS, "math": MATH_SUBJECTS}

__all__ = ["doc_to_text", "process_results", "task_metric_names", "process_docs_name", "aggregation_name"]


def _features(benchmark: str):
    from datasets import Features, Sequence, Value

    return Features({
        "question_id": Value("string"), "benchmark": Value("string"), "family": Value("string"),
        "variant": Value("int64"), "variant_kind": Value("string"), "n_variants": Value("int64"),
        "category": Value("string"), "question": Value("string"), "options": Sequence(Value("string")),
        "option_map": Sequence(Value("int64")), "canonical_map": Sequence(Value("int64")),
        "gold_index": Value("int64"), "gold": Value("string"), "gold_canonical": Value("int64"),
        "answer": Value("string"),
    })


def _process_docs(dataset: Any, *, benchmark: str, family: str, subset: str) -> Any:
    import pyarrow as pa
    from datasets import Dataset

    source = f"SCORE {benchmark}{'/' + subset if subset else ''} {family}"
    questions = questions_from_rows(dataset.to_list() if hasattr(dataset, "to_list") else list(dataset),
                                    benchmark, subset, source=source)
    cols = expand(questions, family)
    features = _features(benchmark)
    # pyarrow converts the columns ~10x faster than Dataset.from_dict (measured: 0.3 s vs 3.4 s
    # for 120k MMLU-Pro documents)
    return Dataset(pa.table({k: cols[k] for k in DOC_FIELDS}, schema=features.arrow_schema))


def process_docs_name(benchmark: str, family: str, subset: str = "") -> str:
    return f"{family}_docs_{benchmark}" + (f"_{subset}" if subset else "")


def doc_to_text(doc: dict[str, Any]) -> str:
    """The SCORE prompt, rendered from lm-eval's installed templates."""
    return prompt_for(doc)


def task_metric_names(benchmark: str, family: str) -> list[str]:
    """Metric names of one task (all positions a question of this benchmark can have)."""
    n = MAX_OPTIONS[benchmark] if family == "option_order" else 10
    return metric_names(family, macro=MACRO[benchmark], n_variants=n)


def process_results(doc: dict[str, Any], results: list[Any]) -> dict[str, Any]:
    """Score the output(s) of one document; every metric key gets the same record item."""
    family, benchmark = doc["family"], doc["benchmark"]
    if family == "non_greedy":
        outputs = results[0]
        if isinstance(outputs, str):  # a filter other than take_first_k left one output
            outputs = [outputs]
        item: Any = [record_for(doc, out, sample=i) for i, out in enumerate(outputs)]
        names = task_metric_names(benchmark, family)
    else:
        item = record_for(doc, results[0])
        # MMLU-Pro (one task, 3-10 options per question): every doc emits all ten position keys,
        # which keeps lm-eval's per-metric counts equal; a position aggregation only counts the
        # questions that have it. AGIEval subsets have one option count each, so a doc emits its
        # own positions and a 4-option subset has no E metric at all (rather than nan).
        n = MAX_OPTIONS[benchmark] if benchmark == "mmlu_pro" else int(doc["n_variants"])
        names = metric_names(family, macro=MACRO[benchmark], n_variants=n)
    return {name: item for name in names}


_CACHE: OrderedDict[tuple, dict[str, float]] = OrderedDict()
_CACHE_SIZE = 8


def _task_metrics(benchmark: str, items: list[Any]) -> dict[str, float]:
    key = (benchmark, tuple(tuple(i) if isinstance(i, list) else i for i in items))
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    records: list[Record] = records_from_items(items, where=f"SCORE {benchmark} results")
    metrics = summarize(records, macro=MACRO[benchmark], equal=equal_for(benchmark)).metrics()
    _CACHE[key] = metrics
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return metrics


def aggregation_name(benchmark: str, metric: str) -> str:
    return f"agg_{benchmark}_{metric}"


def _make_aggregation(benchmark: str, metric: str):
    def aggregate(items: list[Any]) -> float:
        return _task_metrics(benchmark, items).get(metric, math.nan)

    aggregate.__name__ = aggregation_name(benchmark, metric)
    aggregate.__qualname__ = aggregate.__name__
    aggregate.__doc__ = f"SCORE {benchmark}: ``{metric}`` from the task's records (scorekit.score.analysis)."
    return aggregate


def _make_process_docs(benchmark: str, family: str, subset: str):
    def process(dataset: Any) -> Any:
        return _process_docs(dataset, benchmark=benchmark, family=family, subset=subset)

    process.__name__ = process.__qualname__ = process_docs_name(benchmark, family, subset)
    process.__doc__ = f"Expanded SCORE {family} documents of {benchmark} {subset}".rstrip() + " (question-major)."
    return process


def _register() -> None:
    g = globals()
    for benchmark, families in BENCHMARK_FAMILIES.items():
        for family in families:
            for subset in SUBSETS[benchmark]:
                fn = _make_process_docs(benchmark, family, subset)
                g[fn.__name__] = fn
                __all__.append(fn.__name__)
            for metric in task_metric_names(benchmark, family):
                name = aggregation_name(benchmark, metric)
                if name not in g:
                    g[name] = _make_aggregation(benchmark, metric)
                    __all__.append(name)


_register()
