"""AGIEval prompts are byte-identical to upstream's SCORE prompts, for every label shape.

The rows are in hails/agieval's format (query, choices, gold) with the choice shapes AGIEval v1
really has: "(A)text"; "(A) text" and "(A)  text" (AQuA-RAT, where upstream keeps the space);
"A text" and "A? text" (LogiQA); a choice with no label at all; 4 and 5 options.
"""

from __future__ import annotations

import pytest

from scorekit.robustness.grading import prompt_for
from scorekit.robustness.score_documents import expand, questions_from_rows


def _row(question: str, choices: list[str], gold: int, passage: str = "") -> dict:
    labels = " ".join(choices)
    return {"query": f"Q: {passage + ' ' if passage else ''}{question} Answer Choices: {labels}\nA: Among A through "
                     f"{'ABCDE'[len(choices) - 1]}, the answer is", "choices": choices, "gold": [gold]}


ROWS = [
    _row("A tank fills in 6 hours and empties in 8 hours. How long does it take to fill?",
         ["(A)20 hours", "(B)22 hours", "(C)24 hours", "(D)26 hours", "(E)None of these"], 2),
    _row("What is the square root of 178.3?", ["(A) 13.3542", "(B) 15.8113", "(C) 18.3451", "(D) 19.5667", "(E) 20.8888"], 0),
    _row("A sum doubles in 4 years. What is the rate?", ["(A)  20%", "(B)  25%", "(C)  30%", "(D)  35%", "(E)  40%"], 1),
    _row("Which plant grows in the north?", ["A No pine", "B No oak", "C Birch", "D Willow"], 2,
         passage="In the northern county, only some trees survive the winter."),
    _row("Which of the following weakens the argument?",
         ["A? Prices rose in every district.", "B? Turnover increased by 23%.", "(C)Nothing changed.", "(D)Sales fell."], 1,
         passage="The city reported that housing demand fell last year."),
    _row("Which storehouse holds the grain?", ["Storehouse A.1", "Storehouse B.3", "(C)Storehouse C.2", "(D)None"], 1,
         passage="Three storehouses are numbered by district."),
    _row("If 3x + 2 = 11, what is x?", ["(A)2", "(B)3", "(C)4", "(D)5"], 1),
]


def _upstream_prompts(family: str) -> list[str]:
    datasets = pytest.importorskip("datasets")
    from lm_eval.tasks.score.agi_eval import utils_agieval
    from lm_eval.tasks.score.utils import robustness_doc_to_text

    process = {"prompt": utils_agieval.prompt_robustness_process_docs,
               "option_order": utils_agieval.option_order_robustness_process_docs,
               "non_greedy": utils_agieval.non_greedy_robustness_process_docs}[family]
    docs = process(datasets.Dataset.from_list(ROWS))
    return [robustness_doc_to_text(doc) for doc in docs]


def _scorekit_prompts(family: str) -> list[tuple[int, str]]:
    """(answer position or prompt index, prompt) per expanded document, question-major."""
    cols = expand(questions_from_rows(ROWS, "agieval", "logiqa_en"), family)
    docs = [dict(zip(cols, values)) for values in zip(*cols.values())]
    return [(doc["variant"], prompt_for(doc)) for doc in docs]


def test_prompt_and_non_greedy_prompts_are_upstreams():
    for family in ("prompt", "non_greedy"):
        ours = [text for _, text in _scorekit_prompts(family)]
        theirs = _upstream_prompts(family)
        assert len(ours) == len(theirs) == len(ROWS) * (10 if family == "prompt" else 1)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert a == b, (family, i)


def test_option_order_prompts_are_upstreams_where_upstream_has_them():
    # upstream moves the gold through positions A-D only; scorekit also through E (5 options)
    ours = _scorekit_prompts("option_order")
    theirs = _upstream_prompts("option_order")
    assert len(theirs) == 4 * len(ROWS)
    assert len(ours) == sum(len(r["choices"]) for r in ROWS)
    ours_a_to_d = [text for position, text in ours if position < 4]
    assert len(ours_a_to_d) == len(theirs)
    for i, (a, b) in enumerate(zip(ours_a_to_d, theirs)):
        assert a == b, i


def test_the_space_after_a_bracketed_label_stays():
    (q,) = questions_from_rows(ROWS[1:2], "agieval", "aqua_rat")
    cols = expand([q], "non_greedy")
    assert q.options[0] == " 13.3542"
    assert "\nA:  13.3542\nB:  15.8113" in prompt_for({k: v[0] for k, v in cols.items()})
    (q,) = questions_from_rows(ROWS[4:5], "agieval", "logiqa_en")
    assert q.options == ("Prices rose in every district.", "Turnover increased by 23%.", "Nothing changed.", "Sales fell.")
    (q,) = questions_from_rows(ROWS[5:6], "agieval", "logiqa_en")
    assert q.options[:2] == ("Storehouse A.1", "Storehouse B.3")  # no label: nothing cut
