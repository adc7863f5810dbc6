"""The demo's bundled questions: real test questions in the hub datasets' row formats, each file
with its source (repository, commit, path, rows) and license beside it."""

from __future__ import annotations

import json
import re

import pytest

from scorekit.demo.pipeline import DATA_DIR, DEMO_TASKS
from scorekit.robustness.score_documents import questions_from_rows

MMLU_PRO_COLUMNS = ["question_id", "question", "options", "answer", "answer_index", "cot_content", "category", "src"]
PROVENANCE = json.loads((DATA_DIR / "provenance.json").read_text(encoding="utf-8"))


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA_DIR / name).read_text(encoding="utf-8").split("\n") if line.strip()]


def test_every_file_has_its_source_and_license():
    files = sorted(p.name for p in DATA_DIR.glob("*.jsonl"))
    assert files == sorted(set(DEMO_TASKS.values())) == sorted(PROVENANCE)
    notice = (DATA_DIR / "NOTICE.md").read_text(encoding="utf-8")
    assert "Apache License" in (DATA_DIR / "LICENSE-Apache-2.0.txt").read_text(encoding="utf-8")
    for name, source in PROVENANCE.items():
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]), name
        assert source["repo"] in ("TIGER-AI-Lab/MMLU-Pro", "ruixiangcui/AGIEval", "microsoft/ToRA")
        assert source["path"] and source["license"]
        assert f"github.com/{source['repo']}" in notice and f"`{name}" in notice
        rows = source.get("question_ids", source.get("source_rows"))
        assert len(rows) == len(_rows(name)) and len(set(rows)) == len(rows)


def test_mmlu_pro_rows_are_the_test_sets_in_the_hub_columns():
    rows = _rows("mmlu_pro.jsonl")
    assert [r["question_id"] for r in rows] == PROVENANCE["mmlu_pro.jsonl"]["question_ids"]
    for r in rows:
        assert list(r) == MMLU_PRO_COLUMNS
        # the demo asks 4 option orders per question (its speed choice); MMLU-Pro's src names the origin
        assert len(r["options"]) == 4 and "ABCD"[r["answer_index"]] == r["answer"]
        assert re.fullmatch(r"(ori_mmlu|stemez|theoremQA|scibench)-.+", r["src"]), r["src"]
    assert len({r["category"] for r in rows}) == len(rows)  # one question per category


@pytest.mark.parametrize("name", ["agieval_aqua_rat.jsonl", "agieval_sat_math.jsonl"])
def test_agieval_rows_are_agievals_zero_shot_queries(name):
    for r in _rows(name):
        assert list(r) == ["query", "choices", "gold"]
        last = "ABCDE"[len(r["choices"]) - 1]
        assert r["query"].startswith("Q: ")
        assert r["query"].endswith(f" Answer Choices: {' '.join(r['choices'])}\nA: Among A through {last}, the answer is")
        assert len(r["gold"]) == 1 and 0 <= r["gold"][0] < len(r["choices"])
    assert {len(r["choices"]) for r in _rows(name)} == {5 if "aqua" in name else 4}


@pytest.mark.parametrize("name,kind", [("math_algebra.jsonl", "Algebra"), ("math_prealgebra.jsonl", "Prealgebra"),
                                       ("math_number_theory.jsonl", "Number Theory")])
def test_math_rows_are_hendrycks_math_rows(name, kind):
    for r in _rows(name):
        assert list(r) == ["problem", "level", "type", "solution"]
        assert r["type"] == kind and re.fullmatch(r"Level [1-5]", r["level"]) and "\\boxed" in r["solution"]


def test_every_row_reads_as_a_score_question():
    for name in PROVENANCE:
        bench, _, subset = name.removesuffix(".jsonl").partition("_")
        if bench == "mmlu":
            bench, subset = "mmlu_pro", ""
        questions = questions_from_rows(_rows(name), bench, subset, source=name)
        assert len(questions) == len(_rows(name))
