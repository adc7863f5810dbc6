"""Harness-free SCORE core: templates from lm-eval, variants, scoring, analysis."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

from scorekit.errors import ScorekitError
from scorekit.robustness.analysis import metric_names, summarize
from scorekit.robustness.records import Record, as_record, records_from_items
from scorekit.robustness.grading import prompt_for, record_for
from scorekit.robustness.templates import get_template, load_templates, template_file, upstream_score_dir
from scorekit.robustness.task_variants import PERMUTATIONS, arrangements, swap_order
from scorekit.robustness.score_documents import Question, agieval_question, expand, questions_from_rows
from tests.robustness.fixture_tasks import close, fixture_rows, oracle_cr


# --- templates -------------------------------------------------------------------------------------

@pytest.mark.parametrize("bench", ["mmlu_pro", "agieval", "math"])
def test_templates_are_lm_evals_own(bench):
    import lm_eval

    path = template_file(bench)
    assert str(path).startswith(str(upstream_score_dir()))
    assert upstream_score_dir().parent.parent == __import__("pathlib").Path(lm_eval.__file__).parent
    raw = json.loads(path.read_text())
    loaded = load_templates(bench)
    assert len(loaded["prompt"]) == 10
    assert [t.prompt for t in loaded["prompt"]] == [e["prompt"] for e in raw["prompt_robustness"]]
    assert loaded["non_greedy"][0].prompt == raw["non_greedy_robustness"]["prompt"]
    assert ("option_order" in loaded) == (bench != "math")


def test_no_template_text_is_copied_into_scorekit():
    from pathlib import Path

    import scorekit

    raw = json.loads(template_file("mmlu_pro").read_text())
    needle = raw["prompt_robustness"][8]["prompt"][40:90]
    root = Path(scorekit.__file__).parent
    for path in [*root.rglob("*.py"), *root.parent.parent.joinpath("tasks").rglob("*")]:
        if path.is_file():
            assert needle not in path.read_text(errors="ignore"), path


def test_render_matches_upstream_layout():
    t = get_template("mmlu_pro", "prompt", 4)
    text = t.render("Q?", ["x", "y"], "physics")
    assert "related to physics" in text and "Question:Q?\nA: x\nB: y\n" in text
    m = get_template("math", "prompt", 0).render("1+1?")
    assert "\\boxed{answer}" in m and "Problem: 1+1?" in m


# --- variants ----------------------------------------------------------------------------------------

def test_swap_order_puts_gold_everywhere():
    for n in (3, 4, 5, 10):
        for gold in range(n):
            for p in range(n):
                order = swap_order(n, gold, p)
                assert sorted(order) == list(range(n))
                assert order[p] == gold


def test_option_order_covers_all_options_question_major():
    rows = fixture_rows("agieval_aqua_rat.jsonl")
    qs = questions_from_rows(rows, "agieval", "aqua_rat")
    assert qs[0].options == ("$8", "$10", "$12", "$14", "$16") and qs[0].gold == "$12"
    cols = expand(qs, "option_order")
    # 5 options -> 5 positions (upstream stops at D), whole questions first
    assert cols["question_id"] == ["aqua_rat/0"] * 5 + ["aqua_rat/1"] * 5
    assert cols["variant"] == [0, 1, 2, 3, 4] * 2
    assert cols["answer"][:5] == ["A", "B", "C", "D", "E"]
    for opts, gi, gold in zip(cols["options"], cols["gold_index"], cols["gold"]):
        assert opts[gi] == gold


def test_prompt_family_is_question_major_with_ten_templates():
    qs = questions_from_rows(fixture_rows("mmlu_pro.jsonl"), "mmlu_pro")
    cols = expand(qs, "prompt")
    assert len(cols["question_id"]) == 40
    assert cols["question_id"][:10] == ["101"] * 10 and cols["variant"][:10] == list(range(10))
    ng = expand(qs, "non_greedy")
    assert ng["n_variants"] == [5] * 4 and "variant_kind" not in ng
    # identity maps are stored empty: no option is reordered and the fixture's options all differ
    assert cols["option_map"] == [[]] * 40 and cols["canonical_map"] == [[]] * 40


def test_option_order_maps_are_compact_but_complete():
    q = Question("q1", "mmlu_pro", "math", "Which?", ("x", "N/A", "y", "N/A "), 2, "y")
    cols = expand([q], "option_order")
    # position 2 already shows the gold: original order, empty map; the others swap two options
    assert cols["option_map"] == [[2, 1, 0, 3], [0, 2, 1, 3], [], [0, 1, 3, 2]]
    assert cols["options"][2] == list(q.options)
    assert cols["canonical_map"] == [[0, 1, 2, 1]] * 4  # "N/A" and "N/A " are one content
    for position in range(4):
        compact = {k: v[position] for k, v in cols.items()}
        full = dict(compact, option_map=swap_order(4, 2, position), canonical_map=[0, 1, 2, 1])
        for out in ("The best answer is A", "B", "Answer: C", "**D**", "nothing"):
            assert record_for(compact, out) == record_for(full, out), (position, out)


def test_template_render_equals_str_format_per_option():
    """The pre-split option pieces give exactly upstream's per-option ``str.format``."""
    import string

    from scorekit.robustness.templates import Template, load_templates

    options = ["0", "{x}", "a\\b", "%s", "", "ten"] + [f"opt {i}" for i in range(20)]
    templates = [t for b in ("mmlu_pro", "agieval") for ts in load_templates(b).values() for t in ts]
    templates += [Template("{question}|{options}|{category}", "<{lower_case_letter}>{option}[{letter}]"),
                  Template("{question}{options}", "{option!r}{letter}"), Template("{options}", "{letter}{option}{option}"),
                  Template("{question!s:>30}|{options}{{x}}", "{letter}) {option}"), Template("{{{options}}}{question}{options}", "{option}")]
    for t in templates:
        for n in (0, 1, 4, 10, 26):
            ref = "".join(t.options_format.format(letter=string.ascii_uppercase[i], lower_case_letter=string.ascii_lowercase[i],
                                                  option=o) for i, o in enumerate(options[:n]))
            assert t.render("Q {?}", options[:n], "law") == t.prompt.format(question="Q {?}", options=ref, category="law")


def test_agieval_question_parsing():
    row = {"query": "Q: Pick one. Answer Choices: (A)x (B)y\nA: Among A through B, the answer is",
           "choices": ["(A)x", "(B)y"], "gold": [1]}
    q = agieval_question(row, 7, "sat_math")
    assert q == Question("sat_math/7", "agieval", "sat_math", "Pick one.", ("x", "y"), 1, "y")


def test_bad_row_names_the_place():
    with pytest.raises(ScorekitError, match="row 1.*answer_index"):
        questions_from_rows([fixture_rows("mmlu_pro.jsonl")[0], {"question_id": 1, "options": ["a"], "question": "q", "category": "c"}],
                            "mmlu_pro", source="mmlu_pro.jsonl")


# --- scoring ------------------------------------------------------------------------------------------

def _doc(options, gold, position, duplicate_of=None):
    q = Question("q1", "mmlu_pro", "math", "Which?", tuple(options), gold, options[gold])
    cols = expand([q], "option_order")
    return {k: v[position] for k, v in cols.items()}


def test_record_maps_letter_to_original_content():
    doc = _doc(["a", "b", "c", "d"], gold=2, position=0)  # correct option now shown at A
    assert doc["options"] == ["c", "b", "a", "d"]
    assert record_for(doc, "The best answer is A").answer == 2  # content "c"
    assert record_for(doc, "The best answer is A").correct
    assert record_for(doc, "The best answer is C").answer == 0  # shown C is original "a"
    assert record_for(doc, "The best answer is C").correct is False
    assert record_for(doc, "no idea").answer is None


def test_same_text_twice_is_the_same_content():
    doc = _doc(["x", "N/A", "y", "N/A"], gold=0, position=0)
    assert record_for(doc, "B").answer == record_for(doc, "D").answer == 1


def test_prompt_for_uses_the_variant_template():
    qs = questions_from_rows(fixture_rows("mmlu_pro.jsonl"), "mmlu_pro")
    cols = expand(qs[:1], "prompt")
    docs = [{k: v[i] for k, v in cols.items()} for i in range(10)]
    texts = [prompt_for(d) for d in docs]
    assert len(set(texts)) == 10
    assert texts[3] == get_template("mmlu_pro", "prompt", 3).render(qs[0].question, list(qs[0].options), "math")


# --- analysis -------------------------------------------------------------------------------------------

def _recs(answers_by_q, family="prompt", gold=None, categories=None):
    out = []
    for qi, answers in enumerate(answers_by_q):
        for v, a in enumerate(answers):
            cat = categories[qi] if categories else "c"
            out.append(Record(f"q{qi}", family, v, len(answers), cat, a, a is not None and a == (gold[qi] if gold else 0)))
    return out


def test_cr_pooled_matches_oracle_on_random_data():
    rng = np.random.default_rng(3)
    groups = [[None if rng.random() < 0.2 else int(rng.integers(0, 3)) for _ in range(10)] for _ in range(30)]
    s = summarize(_recs(groups))
    assert close(s.consistency_rate, oracle_cr(groups))
    lo, hi = s.consistency_rate_ci
    assert lo <= s.consistency_rate <= hi and lo < hi


def test_unparsed_answers_never_agree():
    s = summarize(_recs([[None] * 10, ["A", "A"] + [None] * 8]))
    assert s.consistency_rate == 1 / 90 and s.agree_pairs == 1 and s.total_pairs == 90


def test_all_unparsed_is_undefined_and_said_not_a_silent_zero():
    with pytest.warns(RuntimeWarning, match="SCORE prompt: .*no question has two parsed answers") as caught:
        s = summarize(_recs([[None] * 10] * 12))
    assert len([w for w in caught if "parsed answers" in str(w.message)]) == 1  # one note, not one per number
    assert math.isnan(s.consistency_rate) and all(math.isnan(x) for x in s.consistency_rate_ci)
    assert s.unparsed_rate == 1.0 and s.accuracy == 0.0 and (s.agree_pairs, s.total_pairs) == (0, 12 * 45)
    assert math.isnan(s.metrics()["consistency_rate"])


def test_macro_accuracy_is_mean_over_categories():
    recs = _recs([[0, 0], [1, 1], [0, 1]], categories=["a", "b", "b"])
    s = summarize(recs, macro=True)
    # variant 0: a -> 1/1, b -> (0 + 1)/2 ; variant 1: a -> 1, b -> (0 + 0)/2
    assert s.variant_accuracy == {0: 0.75, 1: 0.5}
    assert summarize(recs).variant_accuracy == {0: 2 / 3, 1: 1 / 3}
    m = s.metrics()
    assert m["0_macro_accuracy"] == 0.75 and m["accuracy_range"] == 0.25 and close(m["accuracy_std"], 0.125)


def test_incomplete_questions_are_left_out_with_a_warning():
    complete = _recs([[0] * 10, [1] * 10])
    partial = [Record("qX", "prompt", v, 10, "c", 0, True) for v in range(3)]
    with pytest.warns(RuntimeWarning, match="1 question"):
        s = summarize(complete + partial)
    assert s.n_questions == 2 and s.n_incomplete == 1 and s.incomplete_questions == ("qX",)
    assert s.consistency_rate == 1.0  # the partial question adds no pairs
    assert s.variant_accuracy[0] == 0.5 and s.variant_accuracy[9] == 0.5


def test_duplicate_and_mixed_records_are_errors():
    rec = Record("q", "prompt", 0, 2, "c", 0, True)
    with pytest.raises(ScorekitError, match="more than once"):
        summarize([rec, rec])
    with pytest.raises(ScorekitError, match="several families"):
        summarize([rec, rec._replace(family="non_greedy")])
    with pytest.raises(ScorekitError, match="n_variants"):
        summarize([rec, rec._replace(variant=1, n_variants=3)])


def test_math_equality_in_cr():
    from scorekit.metrics import math_equivalent

    recs = [Record("m", "non_greedy", i, 3, "algebra", a, True) for i, a in enumerate(["0.5", "\\frac{1}{2}", "1/2"])]
    assert summarize(recs, equal=math_equivalent).consistency_rate == 1.0
    assert summarize(recs).consistency_rate == 0.0


def test_records_round_trip_through_json():
    rec = Record("q", "non_greedy", 1, 5, "c", 3, False)
    again = records_from_items(json.loads(json.dumps([[rec, rec._replace(variant=2)], rec._replace(family="prompt")])))
    assert again[0] == rec and len(again) == 3
    with pytest.raises(ScorekitError, match="unknown SCORE family"):
        as_record(["q", "bogus", 0, 1, "c", None, False])


def test_metric_names_keep_upstream_names():
    assert metric_names("prompt", macro=True)[:2] == ["0_macro_accuracy", "1_macro_accuracy"]
    assert "per_option_accuracy_E" in metric_names("option_order", macro=False, n_variants=5)
    assert metric_names("non_greedy", macro=True)[0] == "non_greedy_macro_accuracy"
    assert "non_greedy_consistency_rate_ci_high" in metric_names("non_greedy", macro=False)


def test_empty_summary_is_nan_not_zero():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = summarize([])
    assert math.isnan(s.consistency_rate) and math.isnan(s.unparsed_rate)


def test_every_number_is_independent_of_record_order():
    """Data-parallel runs gather each rank's records in turn (rank 0's documents, then rank 1's),
    files are read in any order: the summary, bootstrap interval included, must not depend on it."""
    rng = np.random.default_rng(7)
    recs = [Record(f"aqua_rat/{q}", "prompt", v, 4, "c", int(rng.integers(0, 3)), bool(rng.integers(0, 2)))
            for q in range(12) for v in range(4)]
    first = summarize(recs)
    for _ in range(3):
        shuffled = list(recs)
        rng.shuffle(shuffled)
        again = summarize(shuffled)
        assert again.metrics() == first.metrics()
        assert again.consistency_rate_ci == first.consistency_rate_ci
    # natural order of the ids: aqua_rat/2 before aqua_rat/10, as the rows of the dataset
    interleaved = [r for rank in (0, 1) for r in recs if int(r.question_id.split("/")[1]) % 2 == rank]
    assert summarize(interleaved).consistency_rate_ci == first.consistency_rate_ci


@pytest.mark.parametrize("scheme", PERMUTATIONS)
def test_every_arrangement_shows_the_gold_at_its_position(scheme):
    for n in range(1, 12):
        for gold in range(n):
            got = arrangements(n, gold, scheme)
            assert [p for p, _ in got] == list(range(n))  # one arrangement per position, sorted
            assert all(order[p] == gold and sorted(order) == list(range(n)) for p, order in got)
