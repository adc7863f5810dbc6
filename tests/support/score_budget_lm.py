"""The lm-eval command line with one extra model, ``score-scripted``, for the budgeted SCORE tests.

Run as ``python tests/support/score_budget_lm.py <the usual lm_eval arguments>``: the module
registers the model, then hands ``sys.argv`` to the installed lm-eval's own CLI entry point
(``lm_eval.__main__.cli_evaluate``), so everything after model creation is the real CLI path
(lm-eval 0.4.13 or 0.5, whichever the interpreter has).

The answers follow :func:`right`, a rule on the SCORE document (its question's row number in the
local file, read from its question id: ``<subset>/<row>``, or 1000 + row for the tests' MMLU-Pro
rows, and its variant), so a test knows the
full run's value of every number without running it:

* right: ``The best answer is <gold letter>.`` (MATH: ``\\boxed{<gold>}``);
* wrong: the letter after the gold's, cyclically; MATH: ``\\boxed{x1}`` (equivalent to no gold).

A second model, ``score-position``, is a weak model's position bias: it answers ``A`` to every
multiple-choice question (so under option order it is right exactly when the arrangement puts
the gold first) and a wrong ``\\boxed{x1}`` to every MATH problem.
"""

from __future__ import annotations

import string
import sys

import lm_eval.models  # noqa: F401  -- fill the model registry before adding to it
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model


def right(row: int, variant: int) -> bool:
    """Templates 0-3 are right on every question; 4-9 on the questions whose row + variant is
    not a multiple of 3 (so per-template accuracies 1, ..., 1 and about 2/3)."""
    return variant < 4 or (row + variant) % 3 != 0


def answer(doc: dict) -> str:
    row = int(str(doc["question_id"]).rsplit("/", 1)[-1]) % 1000  # the tests' MMLU-Pro ids are 1000 + row
    ok = right(row, int(doc["variant"]))
    if not doc["options"]:
        return f"The final answer is $\\boxed{{{doc['gold']}}}$." if ok else "The final answer is $\\boxed{x1}$."
    letters = string.ascii_uppercase[: len(doc["options"])]
    gold = int(doc["gold_index"])
    return f"The best answer is {letters[gold] if ok else letters[(gold + 1) % len(letters)]}."


def answer_first(doc: dict) -> str:
    """``score-position``'s answer: the first letter, whatever the question."""
    return "The best answer is A." if doc["options"] else "The final answer is $\\boxed{x1}$."


@register_model("score-scripted")
class ScoreScriptedLM(LM):
    rule = staticmethod(answer)

    def __init__(self, **kwargs) -> None:  # batch_size, device, ...: nothing to set
        super().__init__()

    @classmethod
    def create_from_arg_string(cls, arg_string, additional_config=None):
        return cls()

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("score-scripted answers generate_until only")

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("score-scripted answers generate_until only")

    def generate_until(self, requests, disable_tqdm: bool = False):
        return [self.rule(r.doc) for r in requests]


@register_model("score-position")
class ScorePositionLM(ScoreScriptedLM):
    rule = staticmethod(answer_first)


if __name__ == "__main__":
    from lm_eval.__main__ import cli_evaluate

    sys.argv[0] = "lm_eval"
    cli_evaluate()
