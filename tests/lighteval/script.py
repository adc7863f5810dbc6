"""One deterministic script of model answers for both harnesses, keyed on the SCORE fields of
an expanded document (question_id, family, variant): lm-eval's ScriptedLM calls
:func:`scripted_answer` with its doc, lighteval's scripted model reads :func:`write_script`'s
JSON (built from the same expansion of the same fixture rows)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from scorekit.robustness.score_documents import expand, questions_from_rows

LETTERS = "ABCDEFGHIJ"


def _pick(*parts: object) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode()) % 5


def _one(doc: dict, salt: int) -> str:
    kind = _pick(doc["question_id"], doc["family"], doc["variant"], salt)
    if doc["benchmark"] == "math":
        return [f"So the answer is $\\boxed{{{doc['gold']}}}$.", f"\\boxed{{{doc['gold']}}}",
                "I cannot solve this.", f"\\boxed{{{doc['gold']}1}}", f"The final answer is {doc['gold']}"][kind]
    n = len(doc["options"])
    wrong = LETTERS[(int(doc["gold_index"]) + 1) % n]
    return [f"The best answer is {doc['answer']}.", f"the best answer is ({doc['answer']})", "lol",
            f"The best answer is {wrong}.", "The best answer is A."][kind]


def scripted_answer(doc: dict) -> str | list[str]:
    """The answer to one expanded document (five samples for the non-greedy family)."""
    if doc["family"] == "non_greedy":
        return [_one(doc, s) for s in range(5)]
    return _one(doc, 0)


def expanded_docs(rows_by_source: dict[tuple[str, str], list[dict]], families=("prompt", "option_order", "non_greedy")):
    """Every expanded document of the given fixture rows ({(benchmark, subset): rows})."""
    for (benchmark, subset), rows in rows_by_source.items():
        questions = questions_from_rows(rows, benchmark, subset)
        for family in families:
            if benchmark == "math" and family == "option_order":
                continue
            cols = expand(questions, family)
            for i in range(len(cols["question_id"])):
                yield {k: v[i] for k, v in cols.items()}


def write_script(path: Path, rows_by_source: dict[tuple[str, str], list[dict]]) -> Path:
    answers = {f"{d['question_id']}|{d['family']}|{d['variant']}": scripted_answer(d)
               for d in expanded_docs(rows_by_source)}
    path.write_text(json.dumps({"answers": answers}))
    return path
