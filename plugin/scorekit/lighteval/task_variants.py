"""``scorekit variants`` for lighteval 0.13: robustness variants of any lighteval task config.

lighteval turns one dataset row into exactly one ``Doc`` (the task's ``prompt_function``), so a
family's variants cannot live in one task. As for the SCORE lighteval tasks
(:mod:`scorekit.lighteval.score_suite`), each variant is its own task and a family is the set of tasks
sharing the part of the name before the first ``:`` (lighteval runs them all when given it):

==============================================  =============================================
``robust_option_order_<T>:position_<L>``         every question with its gold at letter L
``robust_prompt_<T>:template_<t>``               every question under template t
``robust_non_greedy_<T>``                        N samples per question, one task
==============================================  =============================================

``<T>`` is the wrapped task's name with ``:`` replaced by ``_`` (``arc:easy`` -> ``arc_easy``).
Each variant task wraps the task's own prompt function (:class:`RobustPrompt`): it calls it on the
row, then

- ``option_order``: moves the options the prompt *shows*: the row field listing them (one list
  of as many texts as choices, each written in the query, at the top level or one level down as
  ``choices.text``) is permuted by the arrangement that puts the gold at position L
  (:func:`scorekit.robustness.task_variants.arrangements`, ``cyclic`` or ``swap``), the prompt
  function renders the row again, and ``gold_index`` = L. Labels as choices (MMLU's shape: " A",
  " B"...) stay; options as choices (scored as continuations) follow the same order. A task
  whose prompt does not show its options (a cloze task such as lighteval's ``arc``: each option
  scored as a continuation alone) would show the model the same prompt in every arrangement:
  scorekit variants refuses it in one line (:data:`NOT_SHOWN`), checking every row of the evaluation
  split before anything is written (:func:`count_choices`);
- ``prompt``: replaces ``Doc.query`` by a jinja template rendered over the row (lighteval's
  prompts are Python; the row's fields are what a template can use). The instruction is dropped;
- ``non_greedy``: leaves the Doc alone and asks for N samples.

Few-shot examples are the wrapped task's own Docs. Each Doc carries its robustness fields in
``doc.specific["robust"]`` (question id = row index in the evaluation split, variant, number of
variants, display order, canonical map, canonical gold).

Answers become :class:`~scorekit.robustness.records.Record` (:class:`RobustRecords`):
log-likelihood tasks (every metric of the task is ``LOGPROBS``) -> the choice with the highest
log-likelihood, recorded by content (canonical original index); generative option order -> the
option the generated label names (:func:`label_answer`; correct when it is the gold's content;
a text naming no label is unparsed, judged by the task's first metric); other generative tasks -> the text,
correct when the task's first metric gives it its maximum 1 (per sample). The records land in
lighteval's details (``--save-details``, column ``metric``), from which ``scorekit robustness``
joins the variant tasks of a family and computes every figure with the same core as for
lm-eval (:func:`scorekit.robustness.task_variants.robust_metrics`). Each variant task also reports
its own ``accuracy`` and ``unparsed_rate``; the non-greedy task reports the family's metrics
and ``identical_sample_rate``. The wrapped task's own metrics are kept.

Generative multiple-choice tasks (lighteval's ``mmlu``, ``hellaswag``: the options listed in the
query, a letter generated and scored by exact match) get option order in the labels shape; the
generated letter is mapped to the option it names (:func:`label_answer`).

On a budget (``budget={per_question: B, seed: S}``, prompt and option order), each variant task
keeps the rows the seeded design gives its variant (:mod:`scorekit.lighteval.task_variants_budget`).

Not possible in lighteval 0.13: one task per family (one Doc per row); option order of a task
whose prompt does not show its options from a row field (cloze tasks; options written into a
text field); prompts x samples (``--samples`` with ``prompt``); sampling settings in a task (the
temperature goes in the model arguments, ``generation_parameters={temperature:0.7}``); tasks
with several evaluation splits (the question id is the row index).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import operator
import string
from pathlib import Path
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from lighteval.metrics.metrics_corpus import CorpusLevelComputation
from lighteval.metrics.metrics_sample import SamplingMetric
from lighteval.metrics.sample_preparator import Preparator
from lighteval.metrics.utils.metric_utils import CorpusLevelMetricGrouping
from lighteval.models.model_output import ModelResponse
from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc, SamplingMethod

from scorekit.errors import ScorekitError
from scorekit.lighteval.sampling import sample_when_asked
from scorekit.robustness.identical import IDENTICAL, identical_rate_with_warning, samples_identical
from scorekit.robustness.records import Record, as_record
from scorekit.robustness.task_variants import (
    PERMUTATIONS,
    ROBUST_FAMILIES,
    arrangements,
    canonical_map,
    choice_answer,
    robust_metrics,
    text_answer,
)

sample_when_asked()  # the non-greedy task's N samples on transformers models

__all__ = ["ROBUST_DOC_KEY", "NOT_SHOWN", "RobustPrompt", "RobustRecords", "robust_name", "robust_task_configs", "robust_tasks",
           "task_kind", "count_choices", "render_module", "write_module", "MODULE_NAME"]

ROBUST_DOC_KEY = "robust"
LETTERS = string.ascii_uppercase


def robust_name(family: str, task: str, variant: int | None = None) -> str:
    """``robust_<family>_<task>[:position_<L>|:template_<t>]`` (``:`` of the task name -> ``_``).

    >>> robust_name("option_order", "arc:easy", 2), robust_name("non_greedy", "gsm8k")
    ('robust_option_order_arc_easy:position_C', 'robust_non_greedy_gsm8k')
    """
    base = f"robust_{family}_{task.replace(':', '_')}"
    if family == "option_order":
        return f"{base}:position_{LETTERS[int(variant or 0)]}"
    if family == "prompt":
        return f"{base}:template_{int(variant or 0)}"
    return base


def task_kind(config: LightevalTaskConfig) -> str:
    """``"loglikelihood"`` when every metric of the task scores choices (``LOGPROBS``),
    ``"generative"`` when every metric scores generations; anything else is refused."""
    cats = {m.category for m in config.metrics}
    if cats == {SamplingMethod.LOGPROBS}:
        return "loglikelihood"
    if cats == {SamplingMethod.GENERATIVE}:
        return "generative"
    raise ScorekitError(f"its metrics sample by {sorted(c.value for c in cats)}; scorekit variants needs all "
                        "LOGPROBS (choices) or all GENERATIVE", where=f"lighteval task {config.name}")


OptionsPath = tuple[str, ...]  # a row field, or a field inside a dict field (``("choices", "text")``)


def _with(row: Mapping[str, Any], path: OptionsPath, value: Any) -> dict[str, Any]:
    """A copy of ``row`` with the field at ``path`` replaced (dicts on the way copied)."""
    if len(path) == 1:
        return {**row, path[0]: value}
    return {**row, path[0]: _with(row[path[0]], path[1:], value)}


def _options_field(row: Mapping[str, Any], query: str, choices: Sequence[str]) -> OptionsPath | None:
    """Where the row holds the options the query shows: the one list field (top level, or one
    level down in a dict field such as ``choices.text``) of as many texts as choices, each text
    written in the query; None when there is not exactly one. Lists of labels (every text at most
    2 characters, e.g. ``choices.label``) are not options: a letter is found in any prompt."""
    n = len(choices)
    candidates: list[OptionsPath] = []
    for key, value in row.items():
        if key.startswith("__"):
            continue
        inner = [((key,), value)] + ([((key, k), v) for k, v in value.items()] if isinstance(value, Mapping) else [])
        for path, v in inner:
            if (isinstance(v, (list, tuple)) and len(v) == n and n > 0
                    and all(isinstance(x, str) and x.strip() and x in query for x in v)
                    and any(len(x.strip()) > 2 for x in v)):
                candidates.append(path)
    return candidates[0] if len(candidates) == 1 else None


NOT_SHOWN = ("option order needs the options shown in the prompt from a row field (a list of as many texts as "
             "choices, each written in the query; or one level down, as choices.text), so that moving them changes "
             "what the model sees; this prompt does not show them that way (a cloze task scores each option as a "
             "continuation without showing the others), so every arrangement would be the same prompt")


def _moved_prompt(inner: Any, line: Mapping[str, Any], doc: Doc, order: Sequence[int], task_name: str,
                  where: str) -> tuple[Doc, list[int]]:
    """The wrapped prompt function's Doc with the shown options in ``order`` (display index ->
    original index), and the canonical map of the options. Labels as choices stay; options as
    choices (scored as continuations) follow the same order. Raises ValueError when the options
    are not shown from a row field, or the rendered query does not change."""
    path = _options_field(line, doc.query, doc.choices)
    if path is None:
        raise ValueError(f"{where}: {NOT_SHOWN}")
    options = list(functools.reduce(operator.getitem, path, line))
    shown = inner(_with(line, path, [options[i] for i in order]), task_name)
    if shown is None or (shown.query == doc.query and list(order) != sorted(order)):
        raise ValueError(f"{where}: permuting field {'.'.join(path)!r} does not change the prompt")
    texts = {str(x).strip() for x in options}
    labels = not any(str(c).strip() in texts for c in doc.choices)
    choices = list(shown.choices) if labels else [doc.choices[i] for i in order]
    return dataclasses.replace(shown, choices=choices), canonical_map(options)


class RobustPrompt:
    """``fn(line, task_name) -> Doc | None``: the wrapped prompt function's Doc as variant
    ``variant`` of ``family`` (module docstring). Few-shot rows get the wrapped Doc unchanged;
    option-order positions beyond a question's choices give None (lighteval skips it)."""

    def __init__(self, inner: Any, task: str, family: str, variant: int, n_variants: int, *,
                 permutations: str = "cyclic", template: str | None = None, samples: int = 1,
                 budget: Mapping[str, int] | None = None):
        self.inner, self.task, self.family, self.variant = inner, task, family, variant
        self.n_variants, self.permutations, self.template, self.samples = n_variants, permutations, template, samples
        self.budget = dict(budget) if budget else None  # {per_question, seed, questions}: budget.md, lighteval
        self.__name__ = f"robust_{family}_{getattr(inner, '__name__', 'prompt')}"  # lighteval prints it

    def _meta(self, index: int, **extra: Any) -> dict[str, Any]:
        base = {"question_id": str(index), "family": self.family, "variant": self.variant,
                "n_variants": self.n_variants, "task": self.task, "order": [], "canonical": [], "gold_canonical": -1}
        if self.budget:
            base["design"] = {"variants": self.n_variants, "per_question": self.budget["per_question"],
                              "seed": self.budget["seed"]}
            base["design_questions"] = self.budget["questions"]
        return {**base, **extra}

    def _asked(self, index: int, where: str) -> bool:
        """Whether the budget's design gives this row's question this variant (always, unbudgeted)."""
        if not self.budget:
            return True
        from scorekit.robustness.budget.variants import rows_by_variant

        n = self.budget["questions"]
        if index >= n:
            raise ValueError(f"{where}: the budgeted design was made for {n} rows and the evaluation split has more: "
                             "its data changed since scorekit variants wrote the tasks; write them again")
        rows = rows_by_variant(n, self.n_variants, self.budget["per_question"], self.budget["seed"], self.task)
        return index in rows[self.variant]

    def __call__(self, line: dict, task_name: str) -> Doc | None:
        doc = self.inner(line, task_name)
        if doc is None or line.get("__few_shots"):
            return doc
        index = int(line["__index"])
        where = f"lighteval task {self.task}, row {index}"
        if not self._asked(index, where):
            return None  # lighteval skips the row: the design asks this question other variants
        specific = dict(doc.specific or {})
        if self.family == "option_order":
            gold = doc.gold_index
            if isinstance(gold, (list, tuple)):
                if len(gold) != 1:
                    raise ValueError(f"{where}: {len(gold)} golds; option order needs one")
                gold = gold[0]
            gold, n = int(gold), len(doc.choices)
            if self.variant >= n:
                return None
            pos, order = next(a for a in arrangements(n, gold, self.permutations) if a[0] == self.variant)
            shown, canon = _moved_prompt(self.inner, line, doc, order, task_name, where)
            specific[ROBUST_DOC_KEY] = self._meta(index, n_variants=n, order=order, canonical=canon, gold_canonical=canon[gold])
            return dataclasses.replace(shown, gold_index=pos, specific=specific)
        if self.family == "prompt":
            from jinja2 import StrictUndefined, Template, UndefinedError

            row = {k: v for k, v in line.items() if not k.startswith("__")}
            try:
                query = Template(self.template, undefined=StrictUndefined).render(**row)
            except UndefinedError as exc:
                raise ValueError(f"{where}: template {self.variant} ({self.template!r}): {exc.message}; "
                                 f"the rows have the fields {sorted(row)}") from None
            extra: dict[str, Any] = {}
            if doc.choices and isinstance(doc.gold_index, int):
                canon = canonical_map(doc.choices)
                extra = {"canonical": canon, "gold_canonical": canon[doc.gold_index]}
            specific[ROBUST_DOC_KEY] = self._meta(index, **extra)
            return dataclasses.replace(doc, query=query, instruction=None, specific=specific)
        specific[ROBUST_DOC_KEY] = self._meta(index)
        return dataclasses.replace(doc, specific=specific)


def _first_value(out: Mapping[str, Any]) -> Any:
    return next(iter(out.values())) if out else None


def label_answer(text: str, labels: Sequence[str], order: Sequence[int], canon: Sequence[int]) -> int | None:
    """A generated answer to a labelled question: the canonical original index of the option
    shown at the label it names (the text, stripped of spaces, brackets and a final period,
    equals a label); None (unparsed) when it names no label.

    >>> label_answer(" (B).", [" A", " B"], [1, 0], [0, 1]), label_answer("maybe", [" A", " B"], [1, 0], [0, 1])
    (0, None)
    """
    said = str(text).strip().strip("().").strip()
    for k, label in enumerate(labels):
        if said and said == str(label).strip():
            return int(canon[int(order[k])])
    return None


class RobustRecords(SamplingMetric, Preparator):
    """Preparator: ``{key: {"records": [record dicts], "identical": bool | None}}`` per Doc.

    Log-likelihood tasks: the answer is the canonical original index of the choice with the
    highest log-likelihood (first on ties), correct when it is the gold's. Generative tasks:
    each sample's text (:func:`~scorekit.robustness.task_variants.text_answer`), correct when
    ``judge`` (the wrapped task's first metric) gives that sample alone a value >= 1.
    """

    def __init__(self, key: str, kind: str, samples: int = 1, judge: Any = None):
        self.key, self.kind, self.samples, self.judge = key, kind, samples, judge

    def _correct(self, doc: Doc, text: str) -> bool:
        value = _first_value(self.judge.compute_sample(model_response=ModelResponse(text=[text]), doc=doc))
        if isinstance(value, dict):
            value = _first_value(value)
        if not isinstance(value, (bool, int, float, np.number)):
            raise ValueError(f"task {doc.task_name}: its first metric gives {value!r} per answer, not a 0/1 number")
        return float(value) >= 1.0

    def prepare(self, doc: Doc, model_response: ModelResponse, **kwargs: Any) -> dict[str, dict]:
        meta = (doc.specific or {}).get(ROBUST_DOC_KEY)
        if meta is None:
            raise ValueError(f"task {doc.task_name}, doc {doc.id}: not a variant task's Doc (no doc.specific[{ROBUST_DOC_KEY!r}])")
        rec = Record(meta["question_id"], meta["family"], int(meta["variant"]), int(meta["n_variants"]),
                     meta["task"], None, False)
        identical = None
        if self.kind == "loglikelihood":
            answer = choice_answer(list(model_response.logprobs)[: len(doc.choices)], meta["order"], meta["canonical"])
            records = [rec._replace(answer=answer, correct=answer == int(meta["gold_canonical"]))]
        else:
            texts = list(model_response.final_text)
            if len(texts) < self.samples:
                raise ValueError(f"task {doc.task_name}, doc {doc.id}: {len(texts)} samples, {self.samples} asked for")
            texts = texts[: self.samples]
            if meta["family"] == "option_order":  # a named option is correct when it is the gold's content
                answer = label_answer(texts[0], doc.choices, meta["order"], meta["canonical"])
                correct = answer == int(meta["gold_canonical"]) if answer is not None else self._correct(doc, texts[0])
                records = [rec._replace(answer=answer, correct=correct)]
            else:
                records = [rec._replace(variant=rec.variant + s, answer=text_answer(t), correct=self._correct(doc, t))
                           for s, t in enumerate(texts)]
            if self.samples > 1:
                identical = samples_identical(list(model_response.text)[: self.samples])
        return {self.key: {"records": [r._asdict() for r in records], "identical": identical}}

    def num_samples(self) -> int:
        return self.samples

    def __str__(self) -> str:
        return f"RobustRecords(key={self.key!r}, kind={self.kind!r}, samples={self.samples})"


class RobustCorpus(CorpusLevelComputation):
    """Variant tasks: ``accuracy`` and ``unparsed_rate`` of their records; the non-greedy task:
    :func:`~scorekit.robustness.task_variants.robust_metrics` plus ``identical_sample_rate``."""

    def __init__(self, family: str):
        self.family = family

    def compute_corpus(self, items: list[dict]) -> dict[str, float]:
        recs = [as_record(r, where="variant lighteval task") for item in items for r in item["records"]]
        if self.family != "non_greedy":
            return {"accuracy": float(np.mean([r.correct for r in recs])),
                    "unparsed_rate": float(np.mean([r.answer is None for r in recs]))}
        out = robust_metrics(recs, "non_greedy")
        flags = [item["identical"] for item in items if item["identical"] is not None]
        out[IDENTICAL] = identical_rate_with_warning(flags, "robust non-greedy", logging.getLogger(__name__))
        return out

    def __str__(self) -> str:
        return f"RobustCorpus(family={self.family!r})"


def _metric(family: str, kind: str, samples: int, judge: Any) -> CorpusLevelMetricGrouping:
    key = "non_greedy_accuracy" if family == "non_greedy" else "accuracy"
    category = SamplingMethod.LOGPROBS if kind == "loglikelihood" else SamplingMethod.GENERATIVE
    return CorpusLevelMetricGrouping(
        metric_name=[key], higher_is_better={key: True}, category=category,
        sample_level_fn=RobustRecords(key, kind, samples, judge), corpus_level_fn={key: RobustCorpus(family)})


def count_choices(config: LightevalTaskConfig) -> int:
    """Largest number of choices over the task's evaluation rows (its prompt function on its
    dataset, loaded as lighteval does: ``datasets.load_dataset(hf_repo, hf_subset)``), after
    checking that every row's prompt shows its options from a row field and that moving them
    (one rotation) changes the prompt; a row that does not raises ScorekitError naming it -- an
    option-order task is never written that would show the model one prompt in every arrangement."""
    from datasets import load_dataset

    data = load_dataset(config.hf_repo, config.hf_subset, revision=config.hf_revision)
    where = f"lighteval task {config.name}"
    n = 0
    for split in config.evaluation_splits:
        for i, row in enumerate(data[split]):
            line = {**row, "__index": i, "__few_shots": False}
            doc = config.prompt_function(line, config.name)
            if doc is None:
                continue
            k = len(doc.choices)
            if k >= 2:
                try:
                    _moved_prompt(config.prompt_function, line, doc, [*range(1, k), 0], config.name, f"row {i}")
                except ValueError as exc:
                    raise ScorekitError(str(exc), where=where) from None
            n = max(n, k)
    return n


def robust_task_configs(config: LightevalTaskConfig, family: str, *, permutations: str = "cyclic",
                        templates: Sequence[str] = (), samples: int = 5, n_choices: int | None = None,
                        budget: Mapping[str, int] | None = None,
                        n_questions: int | None = None) -> list[LightevalTaskConfig]:
    """The variant task configs of ``family`` for one lighteval task config (module docstring).

    ``option_order`` (log-likelihood tasks): one task per position, up to ``n_choices`` (default:
    counted from the data, :func:`count_choices`). ``prompt``: one task per template (jinja over
    the row, at least two). ``non_greedy`` (generative tasks): one task asking ``samples``
    samples. ``budget`` (``{per_question: B, seed: S}``, prompt and option order): each task
    keeps the rows the seeded design gives its variant, over the ``n_questions`` rows of the
    split (default: counted; :mod:`scorekit.lighteval.task_variants_budget`). Raises
    :class:`~scorekit.errors.ScorekitError` for what cannot have variants.
    """
    where = f"lighteval task {config.name}"
    if family not in ROBUST_FAMILIES:
        raise ScorekitError(f"unknown family {family!r}; choose one of {list(ROBUST_FAMILIES)}", where=where)
    if permutations not in PERMUTATIONS:
        raise ScorekitError(f"unknown permutations {permutations!r}; choose one of {list(PERMUTATIONS)}", where=where)
    if len(config.evaluation_splits) != 1:
        raise ScorekitError(f"{len(config.evaluation_splits)} evaluation splits; the question id is the row index, "
                            "so scorekit variants needs one", where=where)
    kind = task_kind(config)
    judge = config.metrics[0] if kind == "generative" else None
    if family == "option_order":
        n = n_choices if n_choices is not None else count_choices(config)
        if n < 2:
            raise ScorekitError(f"at most {n} choice(s) per question; nothing to permute", where=where)
        if n > len(LETTERS):
            raise ScorekitError(f"{n} choices; option order names positions A-Z", where=where)
        variants = [(v, n, None) for v in range(n)]
    elif family == "prompt":
        if len(templates) < 2:
            raise ScorekitError("the prompt family needs at least two templates", where=where)
        variants = [(t, len(templates), tpl) for t, tpl in enumerate(templates)]
    else:
        if kind != "generative":
            raise ScorekitError("non-greedy sampling needs a generative task (log-likelihoods are deterministic)",
                                where=where)
        if samples < 2:
            raise ScorekitError(f"non-greedy needs at least 2 samples, got {samples}", where=where)
        variants = [(0, samples, None)]
    samples = samples if family == "non_greedy" else 1
    if budget is not None and family == "non_greedy":
        raise ScorekitError("--budget does not apply to the non-greedy family: its samples are drawn alike, so asking B "
                            "of them is --samples B", where=where)
    from scorekit.lighteval.task_variants_budget import task_budget

    asked = task_budget(config, family, variants[0][1], budget, n_questions)
    out = []
    for v, n_var, tpl in variants:
        name = robust_name(family, config.name, v if family != "non_greedy" else None)
        prompt = RobustPrompt(config.prompt_function, config.name, family, v, n_var, permutations=permutations,
                              template=tpl, samples=samples, budget=asked)
        out.append(dataclasses.replace(config, name=name, prompt_function=prompt,
                                       metrics=[*config.metrics, _metric(family, kind, samples, judge)],
                                       num_fewshots=0, original_num_docs=-1, effective_num_docs=-1))
    return out


def robust_tasks(tasks: Sequence[str], families: Sequence[str], *, custom_tasks: str | None = None,
                 permutations: str = "cyclic", templates: Sequence[str] = (), samples: int = 5,
                 n_choices: Mapping[str, int] | None = None, budget: Mapping[str, int] | None = None,
                 n_questions: Mapping[str, int] | None = None) -> list[LightevalTaskConfig]:
    """Variant task configs of every task (lighteval's registry names, plus those of the
    ``custom_tasks`` module or file) and family: the ``TASKS_TABLE`` of a custom-tasks module.
    ``budget`` / ``n_questions``: :func:`robust_task_configs`'s, ``n_questions`` per task."""
    from lighteval.tasks.registry import Registry

    from scorekit.lighteval.offline import prepare_offline

    prepare_offline()  # lighteval's import-time download of tinyBenchmarks.pkl, never read back
    try:
        registry = Registry.load_all_task_configs(custom_tasks=custom_tasks)
    except Exception as exc:  # the user's custom-tasks module failed to import or conflicts
        raise ScorekitError(f"cannot load lighteval tasks: {type(exc).__name__}: {exc}",
                            path=custom_tasks) from None
    out = []
    for task in tasks:
        config = registry.get(task)
        if config is None:
            raise ScorekitError("no such lighteval task" + (f" (built-in or in {custom_tasks})" if custom_tasks else
                                                            " (give --custom-tasks for your own)"), where=f"task {task}")
        for family in families:
            out.extend(robust_task_configs(config, family, permutations=permutations, templates=templates,
                                           samples=samples, n_choices=(n_choices or {}).get(task), budget=budget,
                                           n_questions=(n_questions or {}).get(task)))
    return out


MODULE_NAME = "robust_lighteval_tasks.py"


def render_module(tasks: Sequence[str], families: Sequence[str], *, custom_tasks: str | None, permutations: str,
                  templates: Sequence[str], samples: int, n_choices: Mapping[str, int],
                  budget: Mapping[str, int] | None = None, n_questions: Mapping[str, int] | None = None) -> str:
    """The text of a lighteval custom-tasks module whose ``TASKS_TABLE`` is :func:`robust_tasks`
    with these arguments (plain literals; the number of choices, and on a budget the number of
    questions the design is made over, are pinned so a run does not count them again). It
    starts with ``scorekit variants``'s header line."""
    from scorekit.lm_eval.task_variants_yaml import HEADER

    first = robust_name(families[0], tasks[0], 0)
    args = (f"    {list(tasks)!r},\n    {list(families)!r},\n    custom_tasks={custom_tasks!r},\n"
            f"    permutations={permutations!r},\n    templates={list(templates)!r},\n    samples={samples!r},\n"
            f"    n_choices={dict(n_choices)!r},\n")
    said = ""
    if budget is not None:
        args += f"    budget={dict(budget)!r},\n    n_questions={dict(n_questions or {})!r},\n"
        said = (f"\n\nBudgeted: each question is asked {budget['per_question']} of its variants, by the seeded design "
                f"(seed {budget['seed']}) over the\nrows of each task's evaluation split (see docs/budget.md, lighteval).")
    return (f'{HEADER}"""lighteval custom tasks: robustness variants of {", ".join(tasks)} '
            f'({", ".join(families)}).{said}\n\n'
            f'    lighteval accelerate "model_name=..." "{first.split(":")[0]}|0" --custom-tasks <this file> --save-details\n'
            f'    scorekit robustness <output dir>\n\nSee docs/variants.md (lighteval).\n"""\n\n'
            "from scorekit.lighteval.task_variants import robust_tasks\n\n"
            f"TASKS_TABLE = robust_tasks(\n{args})\n")


def write_module(out_dir: str, tasks: Sequence[str], families: Sequence[str], *, custom_tasks: str | None = None,
                 permutations: str = "cyclic", templates: Sequence[str] = (), samples: int = 5,
                 budget: Mapping[str, int] | None = None, costs: list[str] | None = None) -> Path:
    """Check every task and family (building their configs, counting choices from the data; on a
    ``budget``, ``{per_question: B, seed: S}``, counting each task's questions and checking that
    every variant asks some), then write ``out_dir/robust_lighteval_tasks.py``
    (:func:`render_module`); nothing is written when a check fails. An existing file is replaced
    only if ``scorekit variants`` wrote it. On a budget, each family's cost line is appended to
    ``costs`` (:func:`scorekit.lighteval.task_variants_budget.cost_lines`)."""
    from scorekit.lm_eval.task_variants_yaml import write

    if custom_tasks is not None:
        custom_tasks = str(Path(custom_tasks).resolve())
    configs = robust_tasks(tasks, families, custom_tasks=custom_tasks, permutations=permutations,
                           templates=templates, samples=samples, budget=budget)
    n_choices = {c.prompt_function.task: c.prompt_function.n_variants for c in configs  # every position's task has n
                 if c.prompt_function.family == "option_order"}
    n_questions = {c.prompt_function.task: c.prompt_function.budget["questions"] for c in configs
                   if c.prompt_function.budget}
    if budget is not None and costs is not None:
        from scorekit.lighteval.task_variants_budget import cost_lines

        costs.extend(cost_lines(configs, int(budget["per_question"])))
    text = render_module(list(dict.fromkeys(tasks)), list(dict.fromkeys(families)), custom_tasks=custom_tasks,
                         permutations=permutations, templates=templates, samples=samples, n_choices=n_choices,
                         budget=budget if n_questions else None, n_questions=n_questions)  # B >= every V: a full run
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return write(out, {MODULE_NAME: text})[0]
