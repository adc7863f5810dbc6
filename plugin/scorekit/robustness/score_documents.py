"""Dataset rows -> questions -> SCORE documents (every variant of a question), columnar and harness-free.

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

question_id, benchmark, family, variant, n_variants, category, question, options (display
order), option_map (display index -> index in the dataset's original option list; ``[]`` when
the display order is the original one), canonical_map (original index -> first original index
with the same text, so equal content has one canonical value; ``[]`` when all options differ),
gold_index (display index of the correct option; -1 for MATH), gold (correct content: option
text or MATH answer), gold_canonical (canonical original index of the correct option; -1 for
MATH), answer (the gold letter as displayed; MATH: gold). The identity maps are left empty
because lm-eval reads every document back several times (see docs/score-suite.md,
"Performance"); :func:`scorekit.robustness.grading.record_for` reads both forms. ``variant``
counts prompt templates, answer positions or samples.

Which benchmarks, subsets and dataset fields exist is :mod:`scorekit.robustness.benchmarks`;
the row rule of each benchmark is :func:`question_from_row`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorekit.errors import ScorekitError
from scorekit.robustness.benchmarks import BENCHMARKS, LETTERS, SCOREBenchmark
from scorekit.robustness.benchmarks import get as get_benchmark
from scorekit.robustness.extract import math_gold_answer
from scorekit.robustness.records import FAMILIES, Family
from scorekit.robustness.task_variants import canonical_map, swap_order
from scorekit.robustness.templates import N_PROMPT_TEMPLATES

__all__ = [
    "DOC_FIELDS", "N_SAMPLES", "Question", "mmlu_pro_question", "agieval_question", "math_question",
    "question_from_row", "ROW_RULES", "register_benchmark", "questions_from_rows", "expand",
]

N_SAMPLES = 5
DOC_FIELDS: tuple[str, ...] = (
    "question_id", "benchmark", "family", "variant", "n_variants", "category", "question",
    "options", "option_map", "canonical_map", "gold_index", "gold", "gold_canonical", "answer",
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


# Upstream's label rule (lm_eval/tasks/score/agi_eval/utils_agieval.py, initial_process_docs):
# "(A)" (3 characters), "A " (2) or "A? " (3) at the start of a choice is cut, with nothing else,
# so "(A) 13.35" keeps its space; letters A-E only. Prompts then match upstream's byte for byte.
_AGI_LABEL = re.compile(r"^(?:\([A-E]\)|[A-E]\?? )")


def agieval_question(row: Mapping[str, Any], index: int, subset: str, where: str = "AGIEval row") -> Question:
    """hails/agieval-<subset> row (query, choices, gold). The question is the query before
    " Answer Choices:" without a leading "Q: "; a choice's label "(A)", "A " or "A? " is cut as
    upstream cuts it (a space after "(A)" stays)."""
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


def _math_row(row: Mapping[str, Any], index: int, subset: str, where: str) -> Question:
    from scorekit.robustness.templates import math_answer_corrections

    return math_question(row, index, subset, math_answer_corrections(), where)


RowRule = Callable[[Mapping[str, Any], int, str, str], Question]

# Row rule of each benchmark: (row, row index, subset key, where) -> Question (register_benchmark adds one).
ROW_RULES: dict[str, RowRule] = {
    "mmlu_pro": lambda row, index, subset, where: mmlu_pro_question(row, where), "agieval": agieval_question,
    "math": _math_row,
}


def register_benchmark(benchmark: SCOREBenchmark, row_rule: RowRule) -> None:
    """Add a SCORE-style benchmark: its entry in :data:`scorekit.robustness.benchmarks.BENCHMARKS`
    and the rule turning one of its dataset rows into a :class:`Question`
    (``row_rule(row, row index, subset key, where)``). Registering the same pair again changes
    nothing; another benchmark or rule under a key in use raises ValueError (docs/extending.md)."""
    key = benchmark.key
    if key in BENCHMARKS and (BENCHMARKS[key] != benchmark or ROW_RULES.get(key) is not row_rule):
        raise ValueError(f"a SCORE benchmark {key!r} is already registered")
    BENCHMARKS[key] = benchmark
    ROW_RULES[key] = row_rule


def question_from_row(row: Mapping[str, Any], benchmark: str, subset: str = "", index: int = 0, *,
                      where: str = "dataset row") -> Question:
    """One dataset row of ``benchmark`` as a :class:`Question`, by the benchmark's row rule
    (:data:`ROW_RULES`; ``index``: the row number, part of AGIEval and MATH question ids). The row
    must have the benchmark's ``fields`` (:mod:`scorekit.robustness.benchmarks`); a missing one
    raises ScorekitError naming ``where``."""
    for key in get_benchmark(benchmark).fields:
        _need(row, key, where)
    return ROW_RULES[benchmark](row, index, subset, where)


def questions_from_rows(rows: Iterable[Mapping[str, Any]], benchmark: str, subset: str = "", *,
                        source: str = "dataset") -> list[Question]:
    """Questions of a whole split; ``subset`` is the subset key (AGIEval subset, MATH subject)."""
    return [question_from_row(row, benchmark, subset, i, where=f"{source} row {i}") for i, row in enumerate(rows)]


def expand(questions: Sequence[Question], family: Family) -> dict[str, list[Any]]:
    """Columns (:data:`DOC_FIELDS`) of the expanded documents of ``family``, question-major.

    Rows of one question may share list objects (``options`` and the maps); treat them as
    read-only.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}")
    cols: dict[str, list[Any]] = {k: [] for k in DOC_FIELDS}
    (c_qid, c_bench, c_family, c_variant, c_nvar, c_cat, c_question, c_options, c_omap, c_canon,
     c_gold_index, c_gold, c_gold_canon, c_answer) = (cols[k] for k in DOC_FIELDS)
    n_fixed = {"prompt": N_PROMPT_TEMPLATES, "non_greedy": 1}.get(family, 0)  # option order: one per option
    variants_fixed = list(range(n_fixed))
    no_map: list[int] = []
    for q in questions:
        n_opt = len(q.options)
        canon = canonical_map(q.options)
        if canon == list(range(n_opt)):  # every option distinct: the identity, stored as []
            canon = no_map
        gold = q.gold_index
        gold_canon = (canon[gold] if canon else gold) if n_opt else -1
        if family == "option_order":
            if n_opt == 0:
                raise ValueError(f"question {q.question_id}: option order needs options")
            k = n_opt
            c_variant.extend(range(n_opt))
            c_nvar.extend([n_opt] * n_opt)
            original = list(q.options)
            for p in range(n_opt):
                if p == gold:  # the gold is already at this position: the original order
                    c_options.append(original)
                    c_omap.append(no_map)
                else:
                    order = swap_order(n_opt, gold, p)
                    c_options.append([q.options[i] for i in order])
                    c_omap.append(order)
            c_gold_index.extend(range(n_opt))
            c_answer.extend(LETTERS[:n_opt])
        else:
            k = n_fixed
            c_variant.extend(variants_fixed)
            c_nvar.extend([N_SAMPLES if family == "non_greedy" else k] * k)
            c_options.extend([list(q.options)] * k)
            c_omap.extend([no_map] * k)
            c_gold_index.extend([gold if n_opt else -1] * k)
            c_answer.extend([LETTERS[gold] if n_opt else q.gold] * k)
        c_qid.extend([q.question_id] * k)
        c_bench.extend([q.benchmark] * k)
        c_family.extend([family] * k)
        c_cat.extend([q.category] * k)
        c_question.extend([q.question] * k)
        c_canon.extend([canon] * k)
        c_gold.extend([q.gold] * k)
        c_gold_canon.extend([gold_canon] * k)
    return cols
