"""Few-shot examples of the SCORE tasks, end to end through lm-eval with a scripted model: they
come from the few-shot split (MMLU-Pro validation, MATH train) and never from the test
questions; a task without a few-shot split (AGIEval, local data without a few-shot file)
refuses ``num_fewshot`` > 0 instead of drawing examples from the test questions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.robustness.fixture_tasks import FIXTURES, build_fixture_tasks, fixture_rows

pytestmark = pytest.mark.slow

P, O, N = "score_prompt_robustness_mmlu_pro", "score_option_order_robustness_mmlu_pro", "score_non_greedy_robustness_mmlu_pro"
MATH_P = "prompt_robustness_math_algebra"

VALIDATION = [  # MMLU-Pro validation rows (other question ids than the test fixture's 101-104)
    {"question_id": 901, "question": "VALQ901 Which planet is closest to the Sun?",
     "options": ["Venus", "Mercury", "Earth", "Mars"], "answer": "B", "answer_index": 1, "cot_content": "",
     "category": "physics", "src": "scorekit-fixture-validation"},
    {"question_id": 902, "question": "VALQ902 What is 7 times 6?",
     "options": ["40", "41", "42", "43", "44"], "answer": "C", "answer_index": 2, "cot_content": "",
     "category": "math", "src": "scorekit-fixture-validation"},
    {"question_id": 903, "question": "VALQ903 Which gas do plants take in for photosynthesis?",
     "options": ["oxygen", "nitrogen", "helium", "carbon dioxide"], "answer": "D", "answer_index": 3,
     "cot_content": "", "category": "biology", "src": "scorekit-fixture-validation"},
]
TRAIN = [  # MATH training rows
    {"problem": "TRAINQ1 Compute $3 + 4$.", "level": "Level 1", "type": "Algebra",
     "solution": "$3 + 4 = \\boxed{7}$."},
    {"problem": "TRAINQ2 Solve $x - 5 = 1$.", "level": "Level 1", "type": "Algebra",
     "solution": "$x = \\boxed{6}$."},
]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def tasks_with_fewshot(tmp_path_factory) -> Path:
    from scorekit.demo.local_tasks import write_local_tasks

    tmp = tmp_path_factory.mktemp("fewshot")
    val, train = _jsonl(tmp / "validation.jsonl", VALIDATION), _jsonl(tmp / "train.jsonl", TRAIN)
    mmlu = FIXTURES / "mmlu_pro.jsonl"
    return write_local_tasks(tmp / "tasks", {P: mmlu, O: mmlu, N: mmlu, MATH_P: FIXTURES / "math_algebra.jsonl"},
                             max_gen_toks=8, fewshot_files={P: val, O: val, N: val, MATH_P: train})


def _contexts(folder: Path, tasks: list[str], shots: int) -> list[dict]:
    import lm_eval
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    lm = ScriptedLM(generate=lambda context, gen_kwargs, doc: "The best answer is A.")
    lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=TaskManager(include_path=[str(folder)], include_defaults=False),
                            num_fewshot=shots, log_samples=True, bootstrap_iters=0, fewshot_random_seed=3)
    return lm.calls


def test_mmlu_pro_examples_come_from_validation_never_from_the_test_questions(tasks_with_fewshot):
    calls = _contexts(tasks_with_fewshot, [P, O, N], 2)
    test_questions = {str(r["question_id"]): r["question"] for r in fixture_rows("mmlu_pro.jsonl")}
    assert {c["task"] for c in calls} == {P, O, N} and len(calls) == 40 + 29 + 4 * 5
    seen = set()
    for call in calls:
        context, doc = call["args"][0], call["doc"]
        shown = re.findall(r"VALQ(\d+)", context)
        assert len(shown) == 2 and len(set(shown)) == 2, context  # two distinct validation questions
        seen.update(shown)
        for qid, text in test_questions.items():  # only the question under test, once, at the end
            assert context.count(text) == (1 if qid == doc["question_id"] else 0), (qid, context)
        assert context.rindex(test_questions[doc["question_id"]]) > max(context.rindex(f"VALQ{q}") for q in shown)
        for q in shown:  # each example is followed by its own answer letter
            row = next(r for r in VALIDATION if str(r["question_id"]) == q)
            block = context[context.index(f"VALQ{q}"):]
            assert re.search(r"\s([A-J])\n\n", block) is not None
            assert row["options"][row["answer_index"]] in block
    assert seen == {"901", "902", "903"}


def test_math_examples_come_from_train(tasks_with_fewshot):
    calls = _contexts(tasks_with_fewshot, [MATH_P], 1)
    tests = [r["problem"] for r in fixture_rows("math_algebra.jsonl")]
    assert len(calls) == 2 * 10
    for call in calls:
        context = call["args"][0]
        assert len(re.findall(r"TRAINQ\d", context)) == 1
        assert sum(context.count(t) for t in tests) == 1
        train_answer = "7" if "TRAINQ1" in context else "6"
        assert f" {train_answer}\n\n" in context


def test_tasks_without_a_fewshot_split_refuse(tmp_path):
    from lm_eval.tasks import TaskManager  # noqa: F401  (lm-eval installed)

    folder = build_fixture_tasks(tmp_path / "plain")  # local test files only, AGIEval has no split anyway
    for task in (P, "prompt_robustness_agieval_sat_math"):
        with pytest.raises(ValueError, match="without a few-shot split"):
            _contexts(folder, [task], 1)
    assert len(_contexts(folder, [P], 0)) == 40  # zero-shot runs as before
