"""lm-eval adapter of ``scorekit variants``: any lm-eval task, expanded into robustness variants.

A YAML written by ``scorekit variants`` (:mod:`scorekit.lm_eval.task_variants_yaml`) names
:class:`RobustTask` as its ``class`` and carries the parameters under ``metadata.robust``:
``task`` (the wrapped task's name), ``config`` (its YAML file when scorekit variants ran), ``include_path``,
``family``, ``permutations``, ``templates``, ``samples``, ``temperature``, ``choice_score``.

At load time the wrapped task's own config (includes and ``!function`` resolved by lm-eval's
loader; through lm-eval's TaskManager when the file has moved) becomes this task's config, so the
dataset, splits, ``process_docs``, ``doc_to_text``/``doc_to_choice``/``doc_to_target``, filters and
few-shot setup are the wrapped task's. Then:

- the evaluation documents (``test_docs`` / ``validation_docs``) are expanded question-major into
  variants (:mod:`scorekit.robustness.task_variants`); each expanded document is the original row
  plus a ``_robust`` field (question id = row index, variant, number of variants, display order,
  canonical map, canonical gold), so lm-eval's samples log holds everything needed to recompute
  the numbers. Few-shot examples are the wrapped task's own, unexpanded documents;
- ``option_order`` shows the options in each arrangement where the wrapped task's own rendered
  prompt shows them (:mod:`scorekit.robustness.shown_options`: after their labels, or as the
  choice texts themselves; every document checked, a failure stops the run with one line,
  :class:`RobustStop`), the gold moved with its text (``doc_to_target`` = the gold's position;
  choices that are texts are scored in the shown order); with ``show_options`` a task scored
  on option texts is asked as lettered options scored on the letters (few-shot examples too);
  ``prompt`` renders template t with lm-eval's jinja
  over the document's own fields; ``non_greedy`` (and ``prompt`` with ``samples`` > 1) asks for
  ``samples`` samples per document (``repeats``, sampling at ``temperature``; with
  ``--gen_kwargs seed=N`` every sample gets its own seed, as in :class:`ScorekitTask`); the
  wrapped task's filters then keep every sample (``take_first``/``majority_vote`` steps are
  replaced by ``take_first_k``);
- ``process_results`` turns each answer into a :class:`~scorekit.robustness.records.Record`:
  multiple choice -> the choice with the highest log-likelihood (``choice_score: acc_norm``:
  divided by the choice's length in characters, as lm-eval's ``acc_norm``), mapped back to its
  original content; generation -> the filtered output, correct when the wrapped task's FIRST
  metric gives the answer its maximum 1 (exact-match-like metrics). Every metric key gets the
  same item (a record, or the list of a document's sampled records) and each aggregation
  computes :func:`scorekit.robustness.task_variants.robust_metrics` from the items.

lm-eval 0.5 (:mod:`scorekit.lm_eval.compat`): the class is combined with lm-eval's class for the
wrapped task's output type; ``process_results`` is called once per filter pipeline (scorer) and
the wrapped task's metrics are taken off the scorers (a generated answer is scored by the first
metric of its pipeline); the aggregations get no bootstrapped stderr.
"""

from __future__ import annotations

import math
import string
import sys
from pathlib import Path
from typing import Any

from lm_eval.api.task import ConfigurableTask

from scorekit.lm_eval import compat
from scorekit.lm_eval.task import ScorekitTask
from scorekit.robustness.analysis import metric_names
from scorekit.robustness.identical import IDENTICAL, identical_rate_with_warning, samples_identical
from scorekit.robustness.records import Record
from scorekit.robustness.task_variants import (
    canonical_map,
    choice_answer,
    filter_fallbacks,
    robust_metrics,
    text_answer,
)
from scorekit.errors import shown as shown_value
from scorekit.robustness.option_order import CONVERTED, TEXT, Layout, arrangement_orders, ask, check, find_layout, positions, target
from scorekit.robustness.shown_options import bare_label, labels_of, letters, locate_labelled

__all__ = ["RobustTask", "RobustStop", "wrapped_config", "robust_metric_names", "LOWER_IS_BETTER", "IDENTICAL"]

LOWER_IS_BETTER = frozenset({"unparsed_rate", "accuracy_range", "accuracy_std", IDENTICAL, "prompt_sensitivity"})
_DROP = ("class", "tag", "group", "task_list", "include")
_ONE_SAMPLE_FILTERS = ("take_first", "majority_vote")


def wrapped_config(params: dict[str, Any]) -> dict[str, Any]:
    """The wrapped task's config dict (``!function`` resolved): from its YAML file if it is
    still there, else looked up by name with lm-eval's TaskManager (``include_path`` too)."""
    name = params["task"]
    path = params.get("config")
    if not (path and Path(path).is_file()):
        entry = compat.task_index(params.get("include_path") or None).get(name)
        if entry is None or entry.yaml_path is None:
            raise ValueError(f"variant task {name!r}: no such lm-eval task (include_path "
                             f"{params.get('include_path')!r}); run scorekit variants again")
        path = entry.yaml_path
    cfg = compat.task_yaml(path)
    if cfg.get("task") != name:
        raise ValueError(f"variant task {name!r}: {path} now defines {cfg.get('task')!r}; run scorekit variants again")
    if "class" in cfg:
        raise ValueError(f"variant task {name!r} is a Python task class; scorekit variants wraps YAML tasks only")
    return cfg


def robust_metric_names(family: str, n_variants: int, samples: int = 1) -> list[str]:
    """Metric names of a task of ``family`` whose questions have up to ``n_variants`` variants
    (option order: choices; prompt: templates)."""
    names = ["accuracy", *metric_names(family, macro=False, n_variants=n_variants)]
    if family == "option_order":
        names.append("circular_accuracy")
    if samples > 1:
        names += ["prompt_sensitivity", IDENTICAL] if family == "prompt" else [IDENTICAL]
    return names


def _sampled_filters(filter_list: list[dict] | None, k: int) -> list[dict]:
    """The wrapped task's filter pipelines, keeping all k samples."""
    keep = [{"function": "take_first_k", "k": k}]
    if not filter_list:
        return [{"name": "none", "filter": keep}]
    out = []
    for pipeline in filter_list:
        steps = [dict(f) for f in pipeline.get("filter", []) if f.get("function") not in _ONE_SAMPLE_FILTERS]
        out.append({"name": pipeline["name"], "filter": steps + keep})
    return out


_LABEL_RUNS = (string.ascii_uppercase, string.ascii_lowercase, "123456789")
_SEVERAL_INPUTS = ("doc_to_text gives several inputs and one continuation (as winogrande), so the prompt shows no options "
                   "to move; scorekit variants --show-options asks it as lettered options")


def _letter_answer(output: Any, meta: dict) -> int | None:
    """The canonical option a generated answer names: the whole (filtered) output is a label
    (``B``, ``(B)``, ``B.``), else its first stand-alone label of the shown ones; None
    (unparsed) when it names none.

    >>> meta = {"labels": ["A", "B", "C"], "display": [0, 1, 2], "order": [2, 0, 1], "canonical": [0, 1, 2]}
    >>> _letter_answer(" (B)", meta), _letter_answer("The answer is A.", meta), _letter_answer("none", meta)
    (0, 2, None)
    """
    import re

    text = str(output or "").strip()
    labels = list(meta["labels"])
    label = bare_label(text)
    if label not in labels:
        found = [m.group(1) for m in re.finditer(r"(?<![A-Za-z0-9])\(?([A-Za-z0-9])\)?(?![A-Za-z0-9])", text)]
        label = next((x for x in found if x in labels), None)
    if label is None:
        return None
    choice = labels.index(label)
    display = [int(c) for c in meta["display"]]
    option = int(meta["order"][display.index(choice)]) if choice in display else choice
    return int(meta["canonical"][option])


class RobustStop(SystemExit):
    """A document the variant task cannot ask: the run stops with scorekit's one line
    (``scorekit: error: task T: document i: why``, exit status 2) instead of a traceback through
    lm-eval (a ``SystemExit``, so no ``except Exception`` in the harness swallows it)."""

    quiet = False  # scorekit variants checks documents itself and reports the message its own way

    def __init__(self, message: str) -> None:
        self.message = message
        if not self.quiet:
            print(f"scorekit: error: {message}", file=sys.stderr, flush=True)
        super().__init__(2)


class RobustTask(ScorekitTask):
    """See the module docstring."""

    def __new__(cls, *args: Any, config: dict | None = None, **kwargs: Any) -> RobustTask:
        # the class lm-eval 0.5 combines this one with follows the WRAPPED task's output type
        params = ((config or {}).get("metadata") or {}).get("robust")
        if compat.SCORERS and isinstance(params, dict):
            config = {"output_type": wrapped_config(params).get("output_type", "generate_until")}
        return super().__new__(cls, *args, config=config, **kwargs)

    def __init__(self, *args: Any, config: dict | None = None, **kwargs: Any) -> None:
        config = dict(config or {})
        metadata = dict(config.get("metadata") or {})
        params = metadata.get("robust")
        if not isinstance(params, dict):
            raise ValueError(f"task {config.get('task')!r}: RobustTask needs metadata.robust (write it with scorekit variants)")
        self._family: str = params["family"]
        self._wrapped: str = params["task"]
        self._scheme: str = params.get("permutations") or "cyclic"
        self._templates: list[str] = list(params.get("templates") or [])
        self._samples: int = int(params.get("samples") or 1)
        self._choice_score: str = params.get("choice_score") or "acc"
        self._expanded: dict[str, Any] = {}
        self._show: bool = bool(params.get("show_options"))  # options not shown: asked as lettered options
        self._converted = False  # asked as lettered options: --show-options, no option list shown (_decide_conversion)
        self._several: bool | None = None  # several inputs per document (decided on the first one)
        self._budget: dict | None = params.get("budget")  # scorekit variants --budget: {per_question, seed}
        self._budgeted = False
        self._cache: tuple[list[Any], dict[str, float]] | None = None
        inner = wrapped_config(params)
        self._fallbacks = filter_fallbacks(inner.get("filter_list"))
        self._raw: dict[tuple[str, int], list[Any]] = {}  # (question, variant) -> raw generations
        self._inner_process_docs = inner.get("process_docs")
        # lm-eval 0.5 declares several inputs per document; asked as lettered options they are one prompt
        self._inner_multiple = bool(inner.get("multiple_inputs")) and self._show
        merged = {k: v for k, v in inner.items() if k not in _DROP and not (k == "multiple_inputs" and self._inner_multiple)}
        merged.update(task=config["task"], metadata={**(inner.get("metadata") or {}), **metadata})
        fewshot = dict(inner.get("fewshot_config") or {})
        fewshot.setdefault("process_docs", self._inner_process_docs)
        merged["fewshot_config"] = fewshot
        if self._samples > 1:
            gen = dict(inner.get("generation_kwargs") or {})
            gen.update(do_sample=True, temperature=float(params.get("temperature", 0.7)))
            merged.update(repeats=self._samples, generation_kwargs=gen,
                          filter_list=_sampled_filters(inner.get("filter_list"), self._samples))
        super().__init__(*args, config=merged, **kwargs)
        self._filter_key: str | None = None  # lm-eval 0.5: the filter process_results is called for
        self._inner_metrics = compat.task_metrics(self)
        n_max = max((int(m["n_variants"]) for m in self.eval_docs["_robust"]), default=0)  # expands (checks) every document
        self._names = robust_metric_names(self._family, len(self._templates) if self._family == "prompt" else n_max, self._samples)
        compat.set_task_metrics(self, {n: (self._aggregation(n), n not in LOWER_IS_BETTER) for n in self._names})

    # --- documents -------------------------------------------------------------------------------

    def test_docs(self) -> Any:
        return self._expand_split(self.config.test_split, super().test_docs())

    def validation_docs(self) -> Any:
        return self._expand_split(self.config.validation_split, super().validation_docs())

    def training_docs(self) -> Any:
        if not self.has_training_docs():
            return None
        docs = self.dataset[self.config.training_split]
        return self._inner_process_docs(docs) if self._inner_process_docs is not None else docs

    def _expand_split(self, split: str | None, docs: Any) -> Any:
        if docs is None or split is None:
            return docs
        hit = self._expanded.get(split)
        if hit is None:
            hit = self._expanded[split] = self._expand(docs)
        return hit

    def _several_inputs(self, doc: dict) -> bool:
        """Several prompts per document and one continuation (winogrande's shape): declared by
        the config in lm-eval 0.5, a choice index from ``doc_to_text`` in 0.4 (decided on the
        first document, as lm-eval does)."""
        if self._several is None:
            self._several = bool(self._inner_multiple or compat.multiple_inputs(self)
                                 or isinstance(ConfigurableTask.doc_to_text(self, doc), int))
        return self._several

    def _gold(self, doc: dict, choices: list[str]) -> int:
        if self._several_inputs(doc):
            raise ValueError(_SEVERAL_INPUTS)
        gold = ConfigurableTask.doc_to_target(self, doc)
        if isinstance(gold, (list, tuple)) and len(gold) == 1:  # one gold written as a list (agieval's [2])
            gold = gold[0]
        if isinstance(gold, str):
            if gold.strip().isdigit() and gold not in choices:
                gold = int(gold)
            elif gold in choices:
                return choices.index(gold)
            else:
                raise ValueError(f"gold {gold!r} is not one of the choices {choices!r}")
        if isinstance(gold, (list, tuple)):
            raise ValueError("several golds per question; scorekit variants needs one")
        gold = int(gold)
        if not 0 <= gold < len(choices):
            raise ValueError(f"gold index {gold} outside the {len(choices)} choices")
        return gold

    def _original_choices(self, doc: dict) -> list[str]:
        return [str(c) for c in ConfigurableTask.doc_to_choice(self, doc)]

    def _original_prompt(self, doc: dict) -> str:
        text = ConfigurableTask.doc_to_text(self, doc)
        if not isinstance(text, str):
            raise ValueError(f"doc_to_text gives {type(text).__name__} {text!r}, not a prompt")
        return text

    def _question(self, doc: dict) -> tuple[str, list[str], int]:
        """(prompt, choices, gold) as option order sees one document. A document with several
        inputs (0.4: ``doc_to_text`` a choice index, ``doc_to_choice`` the inputs; 0.5: the
        inputs from ``doc_to_text``) is the sentence with its blank ``_`` and the fillers as
        options, OLMES's formulation: the inputs' common start up to a word boundary, then
        ``_``, the target delimiter and the shared continuation."""
        if not self._several_inputs(doc):
            choices = self._original_choices(doc)
            return self._original_prompt(doc), choices, self._gold(doc, choices)
        if not self._converted:
            raise ValueError(_SEVERAL_INPUTS)
        if self._inner_multiple or compat.multiple_inputs(self):  # 0.5
            inputs = [str(x) for x in ConfigurableTask.doc_to_text(self, doc)]
            rest, gold = str(ConfigurableTask.doc_to_choice(self, doc)[0]), ConfigurableTask.doc_to_target(self, doc)
        else:
            inputs = self._original_choices(doc)
            rest, gold = str(ConfigurableTask.doc_to_target(self, doc)), ConfigurableTask.doc_to_text(self, doc)
        head = inputs[0]
        for other in inputs[1:]:
            while not other.startswith(head):
                head = head[:-1]
        if any(x == head for x in inputs):
            raise ValueError(f"its inputs {inputs!r} do not differ by a filler")
        cut = max(head.rfind(" "), head.rfind("\n")) + 1 if head and head[-1:] not in (" ", "\n") else len(head)
        head = head[:cut]
        delimiter = self.config.target_delimiter if self.config.target_delimiter is not None else " "
        sentence = head + "_" + (delimiter + rest if rest else "")
        return sentence, [x[len(head):].strip() for x in inputs], int(gold)

    def _decide_conversion(self, docs: Any) -> None:
        """``--show-options``: convert when a document has several inputs or a prompt showing
        no list of its text choices; a task scored on labels, or listing its options, is asked
        as it is."""
        self._converted = False
        if not self._show or self.OUTPUT_TYPE != "multiple_choice":
            return
        for doc in docs:
            if self._several_inputs(doc):
                self._converted = True
                return
            choices = self._original_choices(doc)
            if labels_of(choices) is not None:
                return
            try:
                find_layout(self._original_prompt(doc), choices)
            except ValueError:
                self._converted = True
                return

    def _order_metas(self, doc: dict, base: dict[str, Any]) -> list[dict[str, Any]]:
        """One meta per arrangement of the options the prompt shows (module
        :mod:`scorekit.robustness.option_order`); ValueError saying why when it does not show
        them once each, or when rearranging them would not show the gold where it should."""
        prompt, choices, gold = self._question(doc)
        try:
            layout = find_layout(prompt, choices, convert=self._converted)
        except ValueError as exc:
            if labels_of(choices) is None and not any(str(c).strip() and str(c).strip().casefold() in prompt.casefold()
                                                      for c in choices):
                raise ValueError("the prompt shows none of the options (a cloze task: each option is scored as a "
                                 "continuation and their order changes nothing the model sees); scorekit variants "
                                 "--show-options asks it as lettered options") from None
            hint = "" if labels_of(choices) is not None else "; scorekit variants --show-options asks it as lettered options"
            raise ValueError(f"{exc}{hint}") from None
        return self._arranged(base, prompt, choices, layout, gold, positions=positions(layout, len(choices)))

    def _arranged(self, base: dict[str, Any], prompt: str, choices: list[str], layout: Layout, gold: int,
                  **fields: Any) -> list[dict[str, Any]]:
        """One meta per arrangement of ``layout``: ``base`` with the layout's fields, then ``fields``;
        ``permuted``: what the model reads (prompt, scored continuations) differs between them."""
        canon = canonical_map(layout.contents)
        base.update(canonical=canon, gold_canonical=canon[gold], shown=len(layout.display), layout=layout.style,
                    display=list(layout.display), **fields)
        metas, asked = [], set()
        for variant, order in arrangement_orders(layout, gold, self._scheme):
            text, scored = check(prompt, choices, layout, order, variant, gold)
            asked.add((text, tuple(scored)))
            metas.append({**base, "variant": variant, "n_variants": len(order), "order": order})
        for meta in metas:
            meta["permuted"] = len(asked) > 1
        return metas

    def _gold_label(self, doc: dict) -> tuple[str, str]:
        """A letter-generating task: (its target text, the label it names), or ValueError."""
        target = ConfigurableTask.doc_to_target(self, doc)
        label = bare_label(str(target)) if isinstance(target, (str, int)) and not isinstance(target, bool) else None
        if label is None:
            raise ValueError(f"the target {shown_value(target)} is not a label such as A or (A); option order on a "
                             "generation task needs a task that answers with the letter of a shown option")
        return str(target), label

    def _letter_metas(self, doc: dict, base: dict[str, Any]) -> list[dict[str, Any]]:
        """Option order of a task that generates a letter: the options shown after the labels
        A, B, ... (or a, b, ..., 1, 2, ...) in the rendered prompt move; the target's letter
        moves with the gold."""
        target, label = self._gold_label(doc)
        prompt = self._original_prompt(doc)
        run = next((r for r in _LABEL_RUNS if label in r), None)
        if run is None:
            raise ValueError(f"the target {target!r} is not a letter A-Z, a-z or a digit 1-9")
        shown = locate_labelled(prompt, run)
        labels = list(run[: max(shown.choice_of) + 1])
        gold = labels.index(label) if label in labels else len(labels)
        texts = shown.by_choice(prompt)
        layout = Layout(shown.style, shown.choice_of, tuple(texts.get(i, lab) for i, lab in enumerate(labels)))
        if gold not in layout.display:
            raise ValueError(f"the target {target!r} is not among the {len(layout.display)} options the prompt shows")
        return self._arranged(base, prompt, labels, layout, gold, labels=labels, target=target, gold_label=label)

    def _label_check(self, doc: dict, choices: list[str]) -> None:
        """The prompt family on a task scored on labels: every template must show the options
        those labels name (else the model is asked "Question: ...\\nAnswer:" and scored on A-D)."""
        labels = labels_of(choices)
        if labels is None:
            return
        for t, template in enumerate(self._templates):
            try:
                locate_labelled(str(super().doc_to_text(doc, template)), labels)
            except ValueError:
                raise ValueError(f"it is scored on the labels {', '.join(labels)}, but template {t} ({template[:60]!r}) "
                                 "does not show the options they name; write templates that list the options after "
                                 "their labels") from None

    def _metas(self, doc: dict, index: int) -> list[dict[str, Any]]:
        base = {"question_id": str(index), "family": self._family, "order": [], "canonical": [],
                "gold_canonical": -1, "template": -1, "samples": self._samples}
        if self.OUTPUT_TYPE != "multiple_choice" and self._family == "option_order":
            return self._letter_metas(doc, base)
        if self.OUTPUT_TYPE == "multiple_choice":
            if self._family == "option_order":
                return self._order_metas(doc, base)
            choices = self._original_choices(doc)
            gold = self._gold(doc, choices)
            canon = canonical_map(choices)
            base.update(canonical=canon, gold_canonical=canon[gold])
            if self._family == "prompt":
                self._label_check(doc, choices)
        if self._family == "prompt":
            n = len(self._templates) * self._samples
            return [{**base, "variant": t, "n_variants": n, "template": t} for t in range(len(self._templates))]
        return [{**base, "variant": 0, "n_variants": self._samples}]

    def _expand(self, docs: Any) -> Any:
        import datasets

        if not isinstance(docs, datasets.Dataset):
            docs = datasets.Dataset.from_list([dict(d) for d in docs])
        if "_robust" in docs.column_names:
            docs = docs.remove_columns("_robust")
        if not hasattr(self, "features"):  # lm-eval sets it from the expanded documents, after this
            self.features = list(docs.features)
        if self._family == "option_order":
            self._decide_conversion(docs)
        per_doc: list[list[dict[str, Any]]] = []
        for i, doc in enumerate(docs):
            try:
                per_doc.append(self._metas(doc, i))
            except ValueError as exc:
                raise RobustStop(f"task {self._wrapped}: document {i}: {exc}") from None
        indices = [i for i, doc_metas in enumerate(per_doc) for _ in doc_metas]
        metas = [meta for doc_metas in per_doc for meta in doc_metas]
        if self._budget:  # keep each question's B variants of the seeded design
            from scorekit.robustness.budget import BudgetError
            from scorekit.robustness.budget.variants import select

            try:
                indices, metas, design = select(per_doc, int(self._budget["per_question"]), int(self._budget["seed"]),
                                           self._family, self._wrapped)
            except BudgetError as exc:
                raise RobustStop(str(exc)) from None
            self._budgeted = design is not None  # B >= V: a full run, reported as one
        if self._family == "option_order" and len(docs) and not any(m and m[0].get("permuted") for m in per_doc):
            raise RobustStop(f"task {self._wrapped}: no document shows two different options, so option order "
                             "would show the same prompt in every arrangement")
        return docs.select(indices).flatten_indices().add_column("_robust", metas)

    # --- prompts ---------------------------------------------------------------------------------

    @staticmethod
    def _meta(doc: Any) -> dict | None:
        return doc.get("_robust") if isinstance(doc, dict) else None

    def _own(self, given: Any, name: str) -> bool:
        """Whether lm-eval asks for the task's own ``doc_to_<name>`` (none given, or the few-shot
        set-up's copy of it)."""
        return given is None or given == getattr(self.config, f"doc_to_{name}")

    def doc_to_text(self, doc: Any, doc_to_text: Any = None) -> Any:
        meta = self._meta(doc)
        own = self._own(doc_to_text, "text")
        if own and self._family == "option_order" and meta is not None and meta.get("labels") \
                and self.OUTPUT_TYPE != "multiple_choice":
            prompt = self._original_prompt(doc)
            return ask(prompt, meta["labels"], meta["layout"], meta["order"])[0]
        if own and self._family == "option_order" and self.OUTPUT_TYPE == "multiple_choice" \
                and (meta is not None or self._converted):
            prompt, choices, gold = self._question(doc)
            if meta is None:  # a few-shot example: lettered in its own order, as the question is
                return ask(prompt, choices, CONVERTED, list(range(len(choices))))[0]
            return ask(prompt, choices, meta["layout"], meta["order"])[0]
        if meta is not None and own and self._family == "prompt":
            from jinja2 import UndefinedError

            t = int(meta["template"])
            try:
                return super().doc_to_text(doc, self._templates[t])
            except UndefinedError as exc:
                fields = sorted(k for k in doc if k != "_robust")
                raise ValueError(f"task {self.config.task}: template {t} ({self._templates[t]!r}): {exc.message}; "
                                 f"the documents of {self._wrapped} have the fields {fields}") from None
        return super().doc_to_text(doc, doc_to_text)

    def doc_to_choice(self, doc: Any, doc_to_choice: Any = None) -> list[str]:
        own = self._own(doc_to_choice, "choice")
        if own and self._family == "option_order" and self.OUTPUT_TYPE == "multiple_choice":
            meta = self._meta(doc)
            if self._converted:
                return letters(len(self._question(doc)[1]))
            if meta is not None and meta["order"] and meta.get("layout") == TEXT:
                choices = self._original_choices(doc)
                return [choices[int(i)] for i in meta["order"]]
        return super().doc_to_choice(doc, doc_to_choice)

    def doc_to_target(self, doc: Any, doc_to_target: Any = None) -> Any:
        meta = self._meta(doc)
        own = self._own(doc_to_target, "target")
        if meta is not None and own and self._family == "option_order":
            if meta.get("labels") and self.OUTPUT_TYPE != "multiple_choice":  # the letter of the gold's new place
                new = meta["labels"][int(meta["display"][int(meta["variant"])])]
                return meta["target"].replace(meta["gold_label"], new, 1)
            return target(meta["layout"], meta["display"], int(meta["variant"]))
        if own and self._family == "option_order" and self._converted:
            return self._question(doc)[2]  # a few-shot example: the gold's letter
        target_ = super().doc_to_target(doc, doc_to_target)
        return compat.generation_target(target_) if self.OUTPUT_TYPE == "generate_until" else target_

    # --- results ---------------------------------------------------------------------------------

    def _record(self, meta: dict, variant: int, answer: Any, correct: bool) -> Record:
        return Record(str(meta["question_id"]), self._family, int(variant), int(meta["n_variants"]),
                      self._wrapped, answer, bool(correct))

    def _inner_correct(self, doc: dict, output: str) -> bool:
        primary = compat.primary_metric(self._inner_metrics, self._filter_key)
        if primary is None:
            raise ValueError(f"task {self._wrapped}: no metric to decide whether an answer is correct")
        if compat.SCORERS:
            value = compat.score_answer(self, self._inner_metrics, self._filter_key, doc, output)
        else:
            mine = (self._metric_fn_list, self._metric_fn_kwargs)
            self._metric_fn_list, self._metric_fn_kwargs = self._inner_metrics
            try:
                value = ScorekitTask.process_results(self, doc, [output]).get(primary)
            finally:
                self._metric_fn_list, self._metric_fn_kwargs = mine
        if isinstance(value, bool) or isinstance(value, (int, float)):
            return float(value) >= 1.0
        raise ValueError(f"task {self._wrapped}: its first metric {primary!r} gives {value!r} per answer, "
                         "not a number; scorekit variants needs a 0/1 score")

    def process_results(self, doc: dict, results: list) -> dict:
        meta = doc["_robust"]
        extra: dict[str, Any] = {}
        if self.OUTPUT_TYPE == "multiple_choice":
            choices = self.doc_to_choice(doc)
            scores = [float(r[0]) for r in results][: len(choices)]
            if self._choice_score == "acc_norm":
                scores = [s / max(len(c), 1) for s, c in zip(scores, choices)]
            answer = choice_answer(scores, meta["order"], meta["canonical"],
                                   meta.get("positions") if self._family == "option_order" else None)
            item: Any = self._record(meta, meta["variant"] if self._family != "prompt" else meta["template"],
                                     answer, answer == int(meta["gold_canonical"]))
        else:
            outputs = compat.document_outputs(results)[: self._samples]
            first = int(meta["template"]) * self._samples if self._family == "prompt" else 0
            if self._family == "option_order":  # the letter generated, as the option's content
                out = outputs[0]
                a = _letter_answer(out, meta) if text_answer(out, self._fallbacks) is not None else None
                records = [self._record(meta, meta["variant"], a, a is not None and self._inner_correct(doc, out))]
            else:
                answers = [text_answer(out, self._fallbacks) for out in outputs]
                records = [self._record(meta, first + s, a, a is not None and self._inner_correct(doc, out))
                           for s, (a, out) in enumerate(zip(answers, outputs))]
            item = records if self._samples > 1 else records[0]
            if self._samples > 1:
                raw = self._raw.get((str(meta["question_id"]), int(meta["variant"])), [])[: self._samples]
                extra[IDENTICAL] = float(samples_identical(raw))
        keys = (robust_metric_names(self._family, int(meta["n_variants"])) if self._family == "option_order"
                else [k for k in self._names if k != IDENTICAL])
        out = dict.fromkeys(keys, item)
        out.update(extra)
        return compat.document_values(out)

    def apply_filters(self) -> Any:
        """lm-eval's filters, after keeping each document's raw generations: the identical-sample
        rate compares those, not the filtered answers (``process_results`` only gets the latter,
        and five different generations all filtered to ``[invalid]`` are not identical samples)."""
        self._raw = {}
        for inst in self._instances or []:
            meta = self._meta(inst.doc)
            if meta is not None:
                texts = [r for resp in inst.resps for r in (resp if isinstance(resp, (list, tuple)) else [resp])]
                self._raw.setdefault((str(meta["question_id"]), int(meta["variant"])), []).extend(texts)
        return super().apply_filters()

    # --- lm-eval 0.5 ------------------------------------------------------------------------------

    def _try_process_results(self, instances: Any, filter_key: str) -> Any:
        """lm-eval 0.5 calls ``process_results`` once per filter through this method; the filter's
        own metrics decide whether a generated answer is correct."""
        self._filter_key = filter_key
        return super()._try_process_results(instances, filter_key)

    def aggregate(self, bootstrap_iters: int | None = None) -> Any:
        """lm-eval 0.5 only: stderr ``"N/A"``, as 0.4 writes it (:mod:`scorekit.lm_eval.compat`, Stderr)."""
        return super().aggregate(bootstrap_iters=0)

    def aggregation(self) -> dict:
        return dict(self._aggregation_list)

    def higher_is_better(self) -> dict:
        return dict(self._higher_is_better)

    def _aggregation(self, name: str):
        if name == IDENTICAL:
            def identical(items: list[Any]) -> float:
                return identical_rate_with_warning(items, self.config.task)

            return identical

        def aggregate(items: list[Any]) -> float:
            return self._metrics_of(items).get(name, math.nan)

        aggregate.__name__ = f"robust_{name}"
        return aggregate

    def _metrics_of(self, items: list[Any]) -> dict[str, float]:
        """All metrics from the items; lm-eval hands each metric its own list of the same item
        objects, so the last result is found again by identity."""
        cached = self._cache
        if cached is not None and len(cached[0]) == len(items) and all(a is b for a, b in zip(cached[0], items)):
            return cached[1]
        records = [r for item in items for r in (item if isinstance(item, list) else [item])]
        if self._budgeted:
            from scorekit.robustness.budget.variants import harness_metrics

            metrics = harness_metrics(records, self._family)
        else:
            metrics = robust_metrics(records, self._family, samples=self._samples)
        self._cache = (list(items), metrics)
        return metrics
