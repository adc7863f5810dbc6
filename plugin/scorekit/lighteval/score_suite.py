"""SCORE robustness tasks for lighteval 0.13: ``--custom-tasks scorekit.lighteval.score_suite``.

A thin adapter on :mod:`scorekit.robustness` (the lm-eval tasks use the same core): each dataset
row becomes a :class:`~scorekit.robustness.score_documents.Question`, :func:`~scorekit.robustness.score_documents.expand`
gives its variants, :func:`~scorekit.robustness.grading.prompt_for` renders the prompt from lm-eval's
installed templates and :func:`~scorekit.robustness.grading.record_for` extracts and scores the
answer. Nothing about templates, extraction or expansion is defined here.

lighteval turns one dataset row into exactly one document, so each *variant* is its own
lighteval task and a family is the set of tasks sharing the part of the name before the first
``:`` (lighteval runs them all when given that prefix):

=====================================================  ======================================
``score_prompt_robustness_mmlu_pro:template_<0-9>``      one task per prompt template
``score_option_order_robustness_mmlu_pro:position_<A-J>`` correct option moved to that letter
``score_non_greedy_robustness_mmlu_pro``                 5 samples per question, one task
``score_<family>_robustness_agieval:<subset>:...``       subsets aqua_rat, logiqa_en, lsat_ar,
                                                         lsat_lr, lsat_rc, sat_en, sat_math
``score_<family>_robustness_math:<subject>:...``         prompt and non_greedy; 7 subjects
=====================================================  ======================================

e.g. ``lighteval accelerate "model_name=..." "score_prompt_robustness_mmlu_pro|0"
--custom-tasks scorekit.lighteval.score_suite --save-details``.

Metrics in lighteval's results: every variant task reports the variant's ``macro_accuracy``
(MMLU-Pro, mean over categories) or ``accuracy`` (AGIEval, MATH) and ``unparsed_rate``; the
non-greedy task reports SCORE's full set (``non_greedy_macro_accuracy``,
``non_greedy_consistency_rate`` with ``_ci_low`` / ``_ci_high``, ``unparsed_rate``) and
``identical_sample_rate`` (share of questions whose five samples are the same text). The
consistency rates across prompts and option orders need the answers of several tasks, which
lighteval never aggregates together: ``scorekit robustness <output dir>`` reads the details
parquet files (``--save-details``) and reports every SCORE metric under the upstream names
(``3_macro_accuracy``, ``consistency_rate``, ...), exactly as for lm-eval logs. Each document
carries its expanded SCORE fields in ``doc.specific``.

Non-greedy sampling needs a temperature: SCORE uses 0.7, set it in the model arguments
(``generation_parameters={temperature:0.7}``); tasks cannot set it in lighteval. Importing this
module makes lighteval's transformers backend sample whenever a task asks for several samples
(:mod:`scorekit.lighteval.sampling`): without it, a model whose ``generation_config.json`` does
not set ``do_sample`` stops the run.

Data: the real datasets (``TIGER-Lab/MMLU-Pro``, ``hails/agieval-<subset>``,
``EleutherAI/hendrycks_math``, split ``test``). To use local copies, set the environment
variable ``SCOREKIT_SCORE_DATA_DIR`` to a folder holding ``mmlu_pro/test.jsonl``,
``agieval_<subset>/test.jsonl`` and ``math_<subject>/test.jsonl`` (rows in the hub datasets'
format; any subset may be missing, its tasks are then left out and listed in a warning), or
call :func:`build_tasks` with ``data_dir``.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from lighteval.metrics.metrics_corpus import CorpusLevelComputation
from lighteval.metrics.metrics_sample import SamplingMetric
from lighteval.metrics.sample_preparator import Preparator
from lighteval.metrics.utils.metric_utils import CorpusLevelMetricGrouping
from lighteval.models.model_output import ModelResponse
from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc, SamplingMethod

from scorekit.lighteval.sampling import sample_when_asked
from scorekit.lighteval.task_names import score_task_keys
from scorekit.robustness.analysis import accuracy, summarize, unparsed_rate
from scorekit.robustness.benchmarks import BENCHMARKS, LETTERS, lighteval_task
from scorekit.robustness.local_data import DATA_DIR_ENV, data_dir as env_data_dir  # both harnesses' one switch
from scorekit.robustness.identical import IDENTICAL, identical_rate_with_warning, samples_identical
from scorekit.robustness.records import Family, Record, as_record
from scorekit.robustness.grading import equal_for, prompt_for, record_for
from scorekit.robustness.score_documents import DOC_FIELDS, N_SAMPLES, expand, question_from_row

logger = logging.getLogger(__name__)
sample_when_asked()  # the non-greedy tasks' 5 samples, whatever the model's generation defaults

__all__ = ["TASKS_TABLE", "DATA_DIR_ENV", "GENERATION_SIZE_ENV", "SCORETask", "build_tasks"]

GENERATION_SIZE_ENV = "SCOREKIT_SCORE_GENERATION_SIZE"
GENERATION_SIZE = 1024  # SCORE's max_gen_toks
SCORE_DOC_KEY = "score"  # doc.specific[SCORE_DOC_KEY] holds the expanded document (DOC_FIELDS)


@dataclass(frozen=True)
class SCORETask:
    """One lighteval task: a variant (or, non-greedy, the sampled family) of one subset."""

    benchmark: str
    family: Family
    subset: str  # "" for MMLU-Pro
    variant: int  # template index / answer position; 0 for non_greedy

    @property
    def name(self) -> str:
        return lighteval_task(self.benchmark, self.family, self.subset, self.variant)

    @property
    def hub(self) -> tuple[str, str]:
        """(hf_repo, hf_subset) of the real dataset."""
        return BENCHMARKS[self.benchmark].dataset(self.subset)

    @property
    def local_folder(self) -> str:
        return BENCHMARKS[self.benchmark].local_name(self.subset)


# --------------------------------------------------------------------------------------------
# Prompt function: dataset row -> the Doc of one variant
# --------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """numpy / tuple values of the expanded columns as plain JSON-able Python values."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


class SCOREPrompt:
    """``fn(line, task_name) -> Doc | None`` for one :class:`SCORETask`.

    The row becomes a question (row index = lighteval's ``__index``, as in the question ids of
    the lm-eval tasks), :func:`expand` gives the family's variants and the task's variant is
    kept. Option-order positions beyond a question's options give None (lighteval skips it).
    """

    def __init__(self, task: SCORETask):
        self.task = task
        self.__name__ = f"score_prompt_{task.benchmark}_{task.family}"  # lighteval prints it

    def __call__(self, line: dict, task_name: str) -> Doc | None:
        row = {k: v for k, v in line.items() if not k.startswith("__")}
        t, index = self.task, int(line["__index"])
        question = question_from_row(row, t.benchmark, t.subset, index, where=f"{t.local_folder} row {index}")
        cols = expand([question], t.family)
        if self.task.variant >= len(cols["variant"]):
            return None
        fields = {k: _plain(cols[k][self.task.variant]) for k in DOC_FIELDS}
        return Doc(query=prompt_for(fields), choices=[str(fields["answer"])], gold_index=0,
                   specific={SCORE_DOC_KEY: fields}, task_name=task_name)


# --------------------------------------------------------------------------------------------
# Metrics: per-document SCORE records, aggregated by scorekit.robustness.analysis
# --------------------------------------------------------------------------------------------


def _fields(doc: Doc) -> dict[str, Any]:
    fields = (doc.specific or {}).get(SCORE_DOC_KEY)
    if fields is None:
        raise ValueError(f"task {doc.task_name}, doc {doc.id}: not a SCORE document (doc.specific has no {SCORE_DOC_KEY!r})")
    return fields


def _samples(doc: Doc, texts: list[str]) -> list[str]:
    if len(texts) < N_SAMPLES:
        raise ValueError(f"task {doc.task_name}, doc {doc.id}: {len(texts)} samples, SCORE non-greedy needs {N_SAMPLES}")
    return texts[:N_SAMPLES]


class SCORERecords(SamplingMetric, Preparator):
    """Preparator: ``{key: {"records": [record dicts], "identical": bool | None}}`` per document
    (``identical``: the non-greedy document's raw samples are all the same text); the records also
    land in lighteval's details files. For the non-greedy family it asks lighteval for 5 samples
    per document."""

    def __init__(self, key: str, samples: int = 1):
        self.key = key
        self.samples = samples

    def prepare(self, doc: Doc, model_response: ModelResponse, **kwargs) -> dict[str, dict]:
        fields, texts = _fields(doc), model_response.final_text
        identical = None
        if fields["family"] == "non_greedy":  # five records, one per sample
            identical = samples_identical(_samples(doc, list(model_response.text)))
            records = [record_for(fields, t, sample=i) for i, t in enumerate(_samples(doc, texts))]
        else:
            records = [record_for(fields, texts[0] if texts else None)]
        return {self.key: {"records": [r._asdict() for r in records], "identical": identical}}

    def num_samples(self) -> int:
        return self.samples

    def __str__(self) -> str:
        return f"SCORERecords(key={self.key!r}, samples={self.samples})"


def _records(items: list[dict], where: str) -> list[Record]:
    return [as_record(r, where=where) for item in items for r in item["records"]]


class VariantAccuracy(CorpusLevelComputation):
    """Accuracy of one variant task: mean of ``correct`` (micro) or, ``macro``, the mean over
    categories of each category's accuracy, plus ``unparsed_rate``
    (:func:`scorekit.robustness.analysis.accuracy`, the definition of ``N_macro_accuracy``)."""

    def __init__(self, name: str, macro: bool):
        self.name, self.macro = name, macro

    def compute_corpus(self, items: list[dict]) -> dict[str, float]:
        recs = _records(items, "SCORE variant task")
        return {self.name: accuracy(recs, macro=self.macro), "unparsed_rate": unparsed_rate(recs)}

    def __str__(self) -> str:
        return f"VariantAccuracy(name={self.name!r}, macro={self.macro})"


class FamilyMetrics(CorpusLevelComputation):
    """Every metric of a family whose answers are all in one task (non-greedy):
    :func:`scorekit.robustness.analysis.summarize` on the task's records, upstream names, plus
    ``identical_sample_rate`` (:mod:`scorekit.robustness.identical`; logged as a warning when high)."""

    def __init__(self, benchmark: str):
        self.benchmark = benchmark

    def compute_corpus(self, items: list[dict]) -> dict[str, float]:
        recs = _records(items, f"SCORE {self.benchmark} task")
        metrics = summarize(recs, macro=BENCHMARKS[self.benchmark].macro, equal=equal_for(self.benchmark)).metrics()
        flags = [item["identical"] for item in items if item["identical"] is not None]
        metrics[IDENTICAL] = identical_rate_with_warning(flags, f"SCORE non-greedy ({self.benchmark})", logger)
        return metrics

    def __str__(self) -> str:
        return f"FamilyMetrics(benchmark={self.benchmark!r})"


def score_metric(task: SCORETask) -> CorpusLevelMetricGrouping:
    """The one lighteval metric of a SCORE task (see the module docstring for its outputs)."""
    bench, greedy = BENCHMARKS[task.benchmark], task.family != "non_greedy"
    key = bench.accuracy_name if greedy else "non_greedy_" + bench.accuracy_name
    fn = VariantAccuracy(key, bench.macro) if greedy else FamilyMetrics(task.benchmark)
    return CorpusLevelMetricGrouping(metric_name=[key], higher_is_better={key: True}, category=SamplingMethod.GENERATIVE,
                                     sample_level_fn=SCORERecords(key, 1 if greedy else N_SAMPLES), corpus_level_fn={key: fn})


# --------------------------------------------------------------------------------------------
# Task table
# --------------------------------------------------------------------------------------------


def build_tasks(data_dir: str | os.PathLike[str] | None = None, generation_size: int | None = None) -> list[LightevalTaskConfig]:
    """lighteval task configs of every SCORE variant task.

    ``data_dir`` (default: ``$SCOREKIT_SCORE_DATA_DIR``; unset = the hub datasets) replaces the
    datasets by local folders ``<data_dir>/<benchmark>[_<subset>]/test.jsonl``; subsets without
    such a folder are left out, with one warning listing them. ``generation_size`` (default:
    ``$SCOREKIT_SCORE_GENERATION_SIZE``, else SCORE's 1024) is the token budget per answer;
    lighteval's ``accelerate`` backend ignores ``max_new_tokens`` in the model arguments when a
    task sets one, so this is the way to shorten generations (smoke tests, tiny models).
    """
    if data_dir is None:  # the variable, read as lm-eval's SCORE tasks read it (stripped, ~ expanded)
        root = env_data_dir()
    else:
        root = Path(data_dir).expanduser().resolve() if data_dir else None
    if generation_size is None:
        raw = os.environ.get(GENERATION_SIZE_ENV, "").strip()
        if raw and (not raw.isdigit() or int(raw) < 1):
            raise ValueError(f"{GENERATION_SIZE_ENV} must be a positive integer, got {raw!r}")
        generation_size = int(raw) if raw else GENERATION_SIZE
    configs, missing = [], set()
    most_options: dict[str, tuple[SCORETask, int]] = {}  # local folder -> (a task, most options of a row)
    for task in (SCORETask(*key) for key in score_task_keys()):  # every SCORE variant task, in a stable order
        if root is None:
            repo, subset = task.hub
        else:
            folder = root / task.local_folder
            if not (folder / "test.jsonl").is_file():
                missing.add(task.local_folder)
                continue
            repo, subset = str(folder), "default"
            if task.family == "option_order":
                if task.local_folder not in most_options:
                    most_options[task.local_folder] = (task, local_most_options(folder / "test.jsonl", task))
                if task.variant >= most_options[task.local_folder][1]:
                    continue  # no question has this position: lighteval stops on a task without documents
        configs.append(LightevalTaskConfig(
            name=task.name, prompt_function=SCOREPrompt(task), hf_repo=repo, hf_subset=subset, hf_avail_splits=["test"],
            evaluation_splits=["test"], few_shots_split=None, few_shots_select=None, metrics=[score_metric(task)],
            generation_size=generation_size, stop_sequence=[], version=1))
    if root is not None and missing:
        logger.warning("scorekit SCORE tasks: no %s/<name>/test.jsonl for %s; their tasks are not registered",
                       root, ", ".join(sorted(missing)))
    for folder, (task, n) in sorted(most_options.items()):
        full = BENCHMARKS[task.benchmark].n_options(task.subset)
        if n < full:
            kept = f"positions A..{LETTERS[n - 1]} are" if n else "none is"
            logger.warning("scorekit SCORE tasks: the questions of %s have at most %d options; option-order tasks "
                           "position_%s..position_%s are not registered (no question has them), %s",
                           root / folder / "test.jsonl", n, LETTERS[n], LETTERS[full - 1], kept)
    return configs


def local_most_options(path: Path, task: SCORETask) -> int:
    """The most options of any question in a local ``test.jsonl`` (rows read as the prompt
    function reads them, :func:`~scorekit.robustness.score_documents.question_from_row`); 0 for no rows.
    Only positions below it get a task: a task without documents stops lighteval's whole run
    (``ValueError: Task ... has no documents to evaluate``)."""
    import json

    most = 0
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path} line {i + 1}: not a JSON object ({exc.msg})") from None
            q = question_from_row(row, task.benchmark, task.subset, i, where=f"{path} line {i + 1}")
            most = max(most, len(q.options))
    return most


TASKS_TABLE = build_tasks()
