"""Dataset rows -> questions -> SCORE variants (expanded documents), columnar and harness-free.

A :class:`Question` is a dataset row in one shape for all three benchmarks. :func:`expand`
turns a list of questions into the columns of the expanded documents of one family,
**question-major** (all variants of question 1, then of question 2, ...), so taking the first
``k * n_variants`` documents (lm-eval ``--limit``) takes ``k`` whole questions:

- ``prompt``: one document per prompt template (10);
- ``option_order``: one document per answer position 0..n_options-1: the options are shown
  with the correct one swapped into that position (SCORE's definition), over ALL options of
  the question (AGIEval AQuA-RAT and LSAT have 5, MMLU-Pro up to 10);
- ``non_greedy``: one document per question; the harness samples it 5 times.

Fields of every expanded document (:data:`DOC_FIELDS`; they appear under ``"doc"`` in
lm-eval's ``samples_*.jsonl``):

question_id, benchmark, family, variant, variant_kind, n_variants, category, question,
options (display order), option_map (display index -> index in the dataset's original option
list), canonical_map (original index -> first original index with the same text, so equal
content has one canonical value), gold_index (display index of the correct option; -1 for
MATH), gold (correct content: option text or MATH answer), gold_canonical (canonical original
index of the correct option; -1 for MATH), answer (the gold letter as displayed; MATH: gold).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorekit.errors import ScorekitError
from scorekit.score.extract import math_gold_answer
from scorekit.score.records import FAMILIES, VARIANT_KINDS
from scorekit.score.templates import N_PROMPT_TEMPLATES

__all__ = [
    "DOC_FIELDS",
    "N_SAMPLES",
    "Question",
    "mmlu_pro_question",
    "agieval_question",
    "math_question",
    "questions_from_rows",
    "swap_order",
    "expand",
]

N_SAMPLES = 5
LETTERS = string.ascii_uppercase
DOC_FIELDS: tuple[str, ...] = (
    "question_id", "benchmark", "family", "variant", "variant_kind", "n_variants", "category",
    "question", "options", "option_map", "canonical_map", "gold_index", "gold", "gold_canonical",
    "answer",
)


@dataclass(frozen=True)
class Question:
    """One benchmark question. ``options`` empty and ``gold_index`` -1 for MATH."""

    question_id: str
    benchmark: str
    category: str
    question: str
    options: tuple[str, ...]
    gold_index: int
    gold: str


def _need(row: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in row:
        raise ScorekitError(f"dataset row lacks field {key!r} (has {sorted(row)})", where=where)
    return row[key]


def mmlu_pro_question(row: Mapping[str, Any], where: str = "MMLU-Pro row") -> Question:
    """TIGER-Lab/MMLU-Pro row (question_id, question, options, answer_index, category)."""
    options = tuple(str(o) for o in _need(row, "options", where))
    gold = int(_need(row, "answer_index", where))
    if not 0 <= gold < len(options):
        raise ScorekitError(f"answer_index {gold} outside the {len(options)} options", where=where)
    if len(options) > len(LETTERS):
        raise ScorekitError(f"{len(options)} options; at most {len(LETTERS)} are supported", where=where)
    return Question(str(_need(row, "question_id", where)), "mmlu_pro", str(_need(row, "category", where)),
                    str(_need(row, "question", where)), options, gold, options[gold])


_AGI_LABEL = re.compile(r"^(?:\([A-J]\)\s*|[A-J]\?? )")


def agieval_question(row: Mapping[str, Any], index: int, subset: str, where: str = "AGIEval row") -> Question:
    """hails/agieval-<subset> row (query, choices, gold). The question is the query before
    " Answer Choices:" without a leading "Q: "; option labels such as "(A)" are removed."""
    query = str(_need(row, "query", where))
    question = query.split(" Answer Choices:")[0]
    if question.startswith("Q: "):
        question = question[3:]
    options = tuple(_AGI_LABEL.sub("", str(c), count=1) for c in _need(row, "choices", where))
    gold_raw = _need(row, "gold", where)
    gold = int(gold_raw[0] if isinstance(gold_raw, Sequence) and not isinstance(gold_raw, str) else gold_raw)
    if not 0 <= gold < len(options):
        raise ScorekitError(f"gold {gold} outside the {len(options)} choices", where=where)
    return Question(f"{subset}/{index}", "agieval", subset, question, options, gold, options[gold])


def math_question(row: Mapping[str, Any], index: int, subject: str, corrections: Mapping[str, str] | None = None,
                  where: str = "MATH row") -> Question:
    """EleutherAI/hendrycks_math row (problem, solution, type); gold = :func:`math_gold_answer`."""
    problem = str(_need(row, "problem", where))
    gold = math_gold_answer(str(_need(row, "solution", where)), problem, dict(corrections or {}))
    if gold is None:
        raise ScorekitError("solution has no \\boxed{...} answer", where=where)
    return Question(f"{subject}/{index}", "math", subject, problem, (), -1, gold)


def questions_from_rows(rows: Iterable[Mapping[str, Any]], benchmark: str, subset: str = "", *,
                        source: str = "dataset") -> list[Question]:
    """Questions of a whole split; ``subset`` is the AGIEval subset / MATH subject key."""
    if benchmark == "math":
        from scorekit.score.templates import math_answer_corrections

        corrections = math_answer_corrections()
    out = []
    for i, row in enumerate(rows):
        where = f"{source} row {i}"
        if benchmark == "mmlu_pro":
            out.append(mmlu_pro_question(row, where))
        elif benchmark == "agieval":
            out.append(agieval_question(row, i, subset, where))
        elif benchmark == "math":
            out.append(math_question(row, i, subset, corrections, where))
        else:
            raise ValueError(f"unknown SCORE benchmark {benchmark!r}")
    return out


def swap_order(n_options: int, gold: int, position: int) -> list[int]:
    """Display order (display index -> original index) with the gold option swapped into
    ``position`` and the option that was there moved to the gold's place."""
    order = list(range(n_options))
    order[position], order[gold] = order[gold], order[position]
    return order


def _canonical_map(options: Sequence[str]) -> list[int]:
    first: dict[str, int] = {}
    return [first.setdefault(o.strip(), i) for i, o in enumerate(options)]


def expand(questions: Sequence[Question], family: str) -> dict[str, list[Any]]:
    """Columns (:data:`DOC_FIELDS`) of the expanded documents of ``family``, question-major."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}")
    cols: dict[str, list[Any]] = {k: [] for k in DOC_FIELDS}
    kind = VARIANT_KINDS[family]
    for q in questions:
        n_opt = len(q.options)
        canon = _canonical_map(q.options)
        if family == "prompt":
            orders = [list(range(n_opt))] * N_PROMPT_TEMPLATES
        elif family == "option_order":
            if n_opt == 0:
                raise ValueError(f"question {q.question_id}: option order needs options")
            orders = [swap_order(n_opt, q.gold_index, p) for p in range(n_opt)]
        else:
            orders = [list(range(n_opt))]
        n_variants = N_SAMPLES if family == "non_greedy" else len(orders)
        for v, order in enumerate(orders):
            gold_disp = order.index(q.gold_index) if n_opt else -1
            cols["question_id"].append(q.question_id)
            cols["benchmark"].append(q.benchmark)
            cols["family"].append(family)
            cols["variant"].append(v)
            cols["variant_kind"].append(kind)
            cols["n_variants"].append(n_variants)
            cols["category"].append(q.category)
            cols["question"].append(q.question)
            cols["options"].append([q.options[i] for i in order])
            cols["option_map"].append(order)
            cols["canonical_map"].append(canon)
            cols["gold_index"].append(gold_disp)
            cols["gold"].append(q.gold)
            cols["gold_canonical"].append(canon[q.gold_index] if n_opt else -1)
            cols["answer"].append(LETTERS[gold_disp] if n_opt else q.gold)
    return cols
