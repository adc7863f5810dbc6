"""One expanded document + one model output -> prompt text and :class:`Record` (harness-free).

Both harness adapters use these two functions, so lm-eval and lighteval render the same
prompts and score answers the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from scorekit.metrics.math_answers import math_equivalent
from scorekit.robustness.benchmarks import get as get_benchmark
from scorekit.robustness.benchmarks import is_robust
from scorekit.robustness.extract import extract_choice, extract_math_answer
from scorekit.robustness.records import MAX_VARIANTS, Family, Record
from scorekit.robustness.templates import get_template

__all__ = ["prompt_for", "record_for", "equal_for", "original_index", "canonical_index"]

_RENDER: dict[tuple[str, str, int], Any] = {}


def prompt_for(doc: Mapping[str, Any]) -> str:
    """The SCORE prompt of an expanded document (template chosen by benchmark/family/variant)."""
    key = (doc["benchmark"], doc["family"], doc["variant"])
    render = _RENDER.get(key)
    if render is None:
        render = _RENDER[key] = get_template(key[0], key[1], int(key[2])).render
    return render(doc["question"], doc["options"], doc["category"])


def original_index(doc: Mapping[str, Any], shown: int) -> int:
    """Index in the dataset's option list of the option shown at display index ``shown``
    (``option_map``; an empty map is the identity)."""
    option_map = doc["option_map"]
    return int(option_map[shown]) if option_map else shown


def canonical_index(doc: Mapping[str, Any], original: int) -> int:
    """Canonical original index of an original option index (``canonical_map``; an empty map is
    the identity: all options differ)."""
    canonical_map = doc["canonical_map"]
    return int(canonical_map[original]) if canonical_map else original


def record_for(doc: Mapping[str, Any], output: str | None, *, sample: int | None = None) -> Record:
    """Score one output. Multiple choice (the benchmark has options): the extracted display letter is mapped through
    ``option_map`` and ``canonical_map`` (empty = identity) to the canonical original option
    (the answer's *content*); correct iff it is ``gold_canonical``. Free form (MATH): the extracted answer
    string; correct iff :func:`~scorekit.metrics.math_equivalent` to ``gold``. ``sample`` is the repeat index
    (non-greedy). A variant outside ``0..n_variants - 1`` raises ValueError."""
    if get_benchmark(doc["benchmark"]).options == 0:
        answer = extract_math_answer(output)
        correct = math_equivalent(answer, doc["gold"])
    else:
        shown = extract_choice(output, len(doc["options"]))
        if shown is None:
            answer, correct = None, False
        else:
            answer = canonical_index(doc, original_index(doc, shown))
            correct = answer == int(doc["gold_canonical"])
    variant, n_variants = int(doc["variant"] if sample is None else sample), int(doc["n_variants"])
    if not 0 <= variant < n_variants <= MAX_VARIANTS:  # raised here, where the reader can name the file and line
        raise ValueError(f"question {str(doc['question_id'])!r}: variant {variant} outside 0..{n_variants - 1}")
    return Record(str(doc["question_id"]), cast(Family, str(doc["family"])), variant, n_variants, str(doc["category"]), answer, bool(correct))


def equal_for(benchmark: str):
    """Answer equality for CR: :func:`~scorekit.metrics.math_equivalent` for SCORE's free-form
    answers (MATH), None (plain ``==``) for multiple choice and for tasks written by
    ``scorekit variants`` (their answers are already the wrapped task's filtered outputs)."""
    return math_equivalent if not is_robust(benchmark) and get_benchmark(benchmark).options == 0 else None
