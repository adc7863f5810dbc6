"""A scripted lighteval model for variant tasks (``doc.specific["robust"]``), loaded with
``lighteval custom scripted tests/lighteval/robust_scripted_model.py ...``.

Log-likelihoods: :func:`choice_logprob` of the option's *content* and the position it is shown
at (a position bias, so the option order matters); ``$SCOREKIT_ROBUST_SALT`` makes a second,
different model. When the choices are labels (" A", " B",
...), the option shown at each label is read from the query's ``"\\nL. text"`` lines.
Generations: :func:`generation` of (question, family, variant, sample); the gold is
``doc.choices[gold_index]``. Every request is appended to ``$SCOREKIT_ROBUST_CALLS`` (JSON
lines: task, specific, query, number of samples). The file defines exactly one
``LightevalModel`` subclass (lighteval instantiates the first it finds).
"""

from __future__ import annotations

import json
import os
import re
import zlib

from lighteval.models.abstract_model import LightevalModel
from lighteval.models.model_output import ModelResponse
from lighteval.tasks.requests import Doc

LABELS = "ABCDEFGHIJ"


def _h(*parts: object) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode())


def choice_logprob(question: str, content: str, position: int, salt: str | None = None) -> float:
    """Deterministic score: a content part (0..-3.5) minus 0.9 per position. ``salt`` (default
    ``$SCOREKIT_ROBUST_SALT``; none when unset or empty) makes another model: its content part
    is hashed with the salt."""
    salt = os.environ.get("SCOREKIT_ROBUST_SALT", "") if salt is None else salt
    key = _h(salt, question, content.strip()) if salt else _h(question, content.strip())
    return -(key % 8) / 2.0 - 0.9 * position


def generation(question: str, family: str, variant: int, sample: int, gold: str) -> str:
    kind = _h(question, family, variant, sample) % 6
    return [gold, f" {gold} ", gold, "no idea", "", str(len(gold))][kind]


def letter_answer(query: str, shown: list[str]) -> str:
    """The label of the option with the highest :func:`choice_logprob`, or "not sure"."""
    if _h(query) % 5 == 0:
        return "not sure"
    scores = [choice_logprob(query.split("\n")[0], c, p) for p, c in enumerate(shown)]
    return f" {LABELS[scores.index(max(scores))]}"


def shown_options(doc: Doc) -> list[str]:
    labels = [c.strip() for c in doc.choices]
    if all(len(x) == 1 and x in LABELS for x in labels):
        return [re.search(rf"\n{x}\. (.*)", doc.query).group(1) for x in labels]
    return list(doc.choices)


class _NoCache:
    def _init_registry(self, registry) -> None:
        pass


class RobustScriptedModel(LightevalModel):
    def __init__(self, config) -> None:
        self.config = config
        self._cache = _NoCache()

    @property
    def tokenizer(self):
        raise NotImplementedError("the scripted model has no tokenizer")

    @property
    def add_special_tokens(self) -> bool:
        return False

    @property
    def max_length(self) -> int:
        return 1 << 16

    def _log(self, doc: Doc) -> dict:
        meta = (doc.specific or {})["robust"]
        with open(os.environ["SCOREKIT_ROBUST_CALLS"], "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"task": doc.task_name, "robust": meta, "query": doc.query,
                                 "choices": list(doc.choices), "num_samples": doc.num_samples}) + "\n")
        return meta

    def greedy_until(self, docs: list[Doc]) -> list[ModelResponse]:
        out = []
        for doc in docs:
            meta = self._log(doc)
            gold = doc.choices[doc.gold_index if isinstance(doc.gold_index, int) else doc.gold_index[0]]
            if len(doc.choices) > 1:  # a labelled question: the label of the best-scored option, or a refusal
                out.append(ModelResponse(text=[letter_answer(doc.query, shown_options(doc))] * doc.num_samples))
                continue
            out.append(ModelResponse(text=[generation(doc.query, meta["family"], meta["variant"], s, gold)
                                           for s in range(doc.num_samples)]))
        return out

    def loglikelihood(self, docs: list[Doc]) -> list[ModelResponse]:
        out = []
        for doc in docs:
            self._log(doc)
            scores = [choice_logprob(doc.query.split("\n")[0], c, p) for p, c in enumerate(shown_options(doc))]
            best = max(range(len(scores)), key=scores.__getitem__)
            out.append(ModelResponse(logprobs=scores, argmax_logits_eq_gold=[best == doc.gold_index]))
        return out

    def loglikelihood_rolling(self, docs: list[Doc]) -> list[ModelResponse]:
        raise NotImplementedError
