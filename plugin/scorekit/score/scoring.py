"""One expanded document + one model output -> prompt text and :class:`Record` (harness-free).

Both harness adapters use these two functions, so lm-eval and lighteval render the same
prompts and score answers the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorekit.score.extract import extract_choice, extract_math_answer
from scorekit.score.math_equiv import math_equal
from scorekit.score.records import Record
from scorekit.score.templates import get_template

__all__ = ["prompt_for", "record_for", "equal_for"]


def prompt_for(doc: Mapping[str, Any]) -> str:
    """The SCORE prompt of an expanded document (template chosen by benchmark/family/variant)."""
    template = get_template(doc["benchmark"], doc["family"], int(doc["variant"]))
    return template.render(doc["question"], doc["options"], doc["category"])


def record_for(doc: Mapping[str, Any], output: str | None, *, sample: int | None = None) -> Record:
    """Score one output. Multiple choice: the extracted display letter is mapped through
    ``option_map`` and ``canonical_map`` to the canonical original option (the answer's
    *content*); correct iff it is ``gold_canonical``. MATH: the extracted answer string;
    correct iff :func:`math_equal` to ``gold``. ``sample`` is the repeat index (non-greedy)."""
    variant = int(doc["variant"]) if sample is None else int(sample)
    if doc["benchmark"] == "math":
        answer = extract_math_answer(output)
        correct = math_equal(answer, doc["gold"])
    else:
        shown = extract_choice(output, len(doc["options"]))
        answer = None if shown is None else int(doc["canonical_map"][doc["option_map"][shown]])
        correct = answer is not None and answer == int(doc["gold_canonical"])
    return Record(str(doc["question_id"]), str(doc["family"]), variant, int(doc["n_variants"]),
                  str(doc["category"]), answer, bool(correct))


def equal_for(benchmark: str):
    """Answer equality for CR: :func:`math_equal` for MATH, None (plain ``==``) otherwise."""
    return math_equal if benchmark == "math" else None
