"""A scripted lighteval model for ``lighteval custom NAME tests/lighteval/scripted_model.py ...``.

Answers come from the JSON file named by the environment variable ``SCOREKIT_LIGHTEVAL_SCRIPT``:

    {"answers": {"<question_id>|<family>|<variant>": "text" | ["text", ...]}}

keyed on the SCORE fields every scorekit SCORE document carries in ``doc.specific["score"]``
(the same fields lm-eval's expanded documents have, so one script drives both harnesses). A
list gives one answer per requested sample (``doc.num_samples``). A document with no entry is an
error naming its key: nothing is answered by default. Every request is appended to the JSON-lines
file ``$SCOREKIT_LIGHTEVAL_SCRIPT.calls`` (key, number of samples) so tests can check what ran.

lighteval loads this file by path and instantiates the first ``LightevalModel`` subclass it
finds in it, so the file defines exactly one.
"""

from __future__ import annotations

import json
import os

from lighteval.models.abstract_model import LightevalModel
from lighteval.models.model_output import ModelResponse
from lighteval.tasks.requests import Doc


class _NoCache:
    """lighteval's pipeline hands the registry to ``model._cache``; scripted answers are never cached."""

    def _init_registry(self, registry) -> None:
        pass


def script_key(fields: dict) -> str:
    return f"{fields['question_id']}|{fields['family']}|{fields['variant']}"


class ScriptedLightevalModel(LightevalModel):
    def __init__(self, config) -> None:
        self.config = config
        self._cache = _NoCache()
        path = os.environ["SCOREKIT_LIGHTEVAL_SCRIPT"]
        with open(path, encoding="utf-8") as fh:
            self._answers = json.load(fh)["answers"]
        self._calls_path = path + ".calls"

    @property
    def tokenizer(self):
        raise NotImplementedError("the scripted model has no tokenizer")

    @property
    def add_special_tokens(self) -> bool:
        return False

    @property
    def max_length(self) -> int:
        return 1 << 16

    def greedy_until(self, docs: list[Doc]) -> list[ModelResponse]:
        out = []
        with open(self._calls_path, "a", encoding="utf-8") as log:
            for doc in docs:
                key = script_key((doc.specific or {})["score"])
                if key not in self._answers:
                    raise KeyError(f"scripted model: no answer for {key} (task {doc.task_name})")
                answer = self._answers[key]
                texts = [answer] * doc.num_samples if isinstance(answer, str) else list(answer)
                if len(texts) < doc.num_samples:
                    raise ValueError(f"scripted model: {key} has {len(texts)} answers, {doc.num_samples} requested")
                log.write(json.dumps({"key": key, "task": doc.task_name, "num_samples": doc.num_samples,
                                      "query": doc.query}) + "\n")
                out.append(ModelResponse(text=texts[: doc.num_samples]))
        return out

    def loglikelihood(self, docs: list[Doc]) -> list[ModelResponse]:
        raise NotImplementedError("SCORE tasks are generative")

    def loglikelihood_rolling(self, docs: list[Doc]) -> list[ModelResponse]:
        raise NotImplementedError("SCORE tasks are generative")
