"""End to end through the real lm-eval: scripted models with exact expected numbers, the
upstream tasks side by side, --limit, the lm_eval CLI with --model dummy, a tiny hf model.

Fixture data: tests/robustness/fixtures (MMLU-Pro: q101 math 10 options gold B, q102 physics 10
options gold C, q103 biology 4 options gold D, q104 math 5 options gold B).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.robustness.analysis import summarize
from scorekit.robustness.records import records_from_items
from tests.robustness.fixture_tasks import build_fixture_tasks, close, original_gold_letter, shown_gold_letter

pytestmark = pytest.mark.slow
LETTERS = "ABCDEFGHIJ"


@pytest.fixture(scope="module")
def fixture_tasks(tmp_path_factory) -> Path:
    return build_fixture_tasks(tmp_path_factory.mktemp("score_suite"))


@pytest.fixture(scope="module")
def tm(fixture_tasks):
    from lm_eval.tasks import TaskManager

    return TaskManager(include_path=[str(fixture_tasks)], include_defaults=False)


def run(tm, tasks, generate, **kwargs):
    import lm_eval

    from tests.support.fake_lm import ScriptedLM

    out = lm_eval.simple_evaluate(model=ScriptedLM(generate=generate), tasks=tasks, task_manager=tm,
                                  log_samples=True, bootstrap_iters=0, **kwargs)
    out["results"], out["samples"] = plain_keys(out["results"]), plain_keys(out.get("samples") or {})
    res = {task: {k.removesuffix(",none"): v for k, v in m.items()} for task, m in out["results"].items()}
    return res, out


def plain_keys(by_task: dict) -> dict:
    """lm-eval 0.5 names a task run inside a group ``group::task`` (in results and samples)."""
    return {task.rpartition("::")[2]: v for task, v in by_task.items()}


def answer(letter_of):
    """generate() answering 'The best answer is X.' (five times for the non-greedy family)."""
    def gen(context, gen_kwargs, doc):
        text = f"The best answer is {letter_of(doc)}."
        return [text] * 5 if doc.get("family") == "non_greedy" else text
    return gen


MMLU = "score_robustness_mmlu_pro"
P, O, N = "score_prompt_robustness_mmlu_pro", "score_option_order_robustness_mmlu_pro", "score_non_greedy_robustness_mmlu_pro"


def test_mmlu_pro_always_correct(tm):
    res, _ = run(tm, [MMLU], answer(shown_gold_letter))
    for v in range(10):
        assert res[P][f"{v}_macro_accuracy"] == 1.0
        assert res[O][f"per_option_macro_accuracy_{LETTERS[v]}"] == 1.0
    assert res[P]["consistency_rate"] == res[O]["options_consistency_rate"] == 1.0
    assert res[N]["non_greedy_macro_accuracy"] == res[N]["non_greedy_consistency_rate"] == 1.0
    assert res[P]["unparsed_rate"] == res[O]["unparsed_rate"] == res[N]["unparsed_rate"] == 0.0
    assert res[P]["accuracy_range"] == 0.0 and res[O]["accuracy_std"] == 0.0


def test_mmlu_pro_always_letter_c(tm):
    res, _ = run(tm, [P, O], answer(lambda doc: "C"))
    # prompt family: only q102 (physics, gold C) is right; macro over math/physics/biology = 1/3;
    # the same letter over unchanged options is the same content -> CR 1
    assert all(close(res[P][f"{v}_macro_accuracy"], 1 / 3) for v in range(10))
    assert res[P]["consistency_rate"] == 1.0
    # option order: right exactly when the gold sits at C. Agreeing pairs per question:
    # q101 C(9,2)=36/45, q102 0/45 (C shows a different option each time), q103 3/6, q104 6/10
    assert close(res[O]["options_consistency_rate"], 45 / 106)
    assert res[O]["per_option_macro_accuracy_C"] == 1.0
    assert all(res[O][f"per_option_macro_accuracy_{x}"] == 0.0 for x in "ABDEFGHIJ")
    assert res[O]["accuracy_min"] == 0.0 and res[O]["accuracy_max"] == 1.0 and res[O]["accuracy_range"] == 1.0
    assert close(res[O]["accuracy_std"], 0.3)  # population std of one 1 and nine 0s


def test_mmlu_pro_position_biased_model(tm):
    res, _ = run(tm, [O], answer(lambda doc: "A"))
    assert res[O]["per_option_macro_accuracy_A"] == 1.0
    assert all(res[O][f"per_option_macro_accuracy_{x}"] == 0.0 for x in "BCDEFGHIJ")
    assert close(res[O]["options_consistency_rate"], 81 / 106)  # 36 + 36 + 3 + 6 of 106 pairs
    lo, hi = res[O]["options_consistency_rate_ci_low"], res[O]["options_consistency_rate_ci_high"]
    assert math.isnan(lo) and math.isnan(hi)  # 4 questions: an interval needs 10


def test_mmlu_pro_unparsable_model(tm):
    with pytest.warns(RuntimeWarning, match="no question has two parsed answers"):
        res, _ = run(tm, [MMLU], lambda c, g, doc: ["I cannot tell."] * 5 if doc["family"] == "non_greedy" else "I cannot tell.")
    # nothing could be read: CR is undefined (said in a warning), not a silent 0
    for task, cr in ((P, "consistency_rate"), (O, "options_consistency_rate"), (N, "non_greedy_consistency_rate")):
        assert math.isnan(res[task][cr]) and math.isnan(res[task][f"{cr}_ci_low"])
    assert res[P]["unparsed_rate"] == res[O]["unparsed_rate"] == res[N]["unparsed_rate"] == 1.0
    assert res[P]["0_macro_accuracy"] == 0.0 and res[N]["non_greedy_macro_accuracy"] == 0.0


def test_mmlu_pro_non_greedy_five_samples_in_one_run(tm):
    def gen(context, gen_kwargs, doc):
        assert gen_kwargs["do_sample"] is True and gen_kwargs["temperature"] == 0.7
        right = f"The best answer is {doc['answer']}."
        return [right, right, right, "lol", "The best answer is A."]  # no fixture gold is A

    res, out = run(tm, [N], gen)
    assert close(res[N]["non_greedy_macro_accuracy"], 0.6)
    assert close(res[N]["non_greedy_consistency_rate"], 0.3)  # C(3,2)=3 of 10 pairs per question
    assert close(res[N]["unparsed_rate"], 0.2)
    sample = out["samples"][N][0]
    assert len(sample["filtered_resps"][0]) == 5
    assert [r[2] for r in sample["non_greedy_consistency_rate"]] == [0, 1, 2, 3, 4]


def test_mmlu_pro_positions_no_question_has_are_absent_not_nan(tmp_path):
    """Questions with at most 5 options: positions F-J exist in no question, so they get no key
    (they were nan before); the positions that exist keep their values."""
    from lm_eval.tasks import TaskManager

    from scorekit.demo.local_tasks import write_local_tasks
    from tests.robustness.fixture_tasks import fixture_rows

    rows = [r for r in fixture_rows("mmlu_pro.jsonl") if len(r["options"]) <= 5]  # q103 (4), q104 (5)
    data = tmp_path / "short.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    folder = write_local_tasks(tmp_path / "tasks", {O: data}, max_gen_toks=8)
    res, out = run(TaskManager(include_path=[str(folder)], include_defaults=False), [O], answer(lambda doc: "A"))
    keys = {k for k in out["results"][O] if k.startswith("per_option_")}
    assert keys == {f"per_option_macro_accuracy_{x},none" for x in "ABCDE"} | {
        f"per_option_macro_accuracy_{x}_stderr,none" for x in "ABCDE"}
    # no nan position; (the CR interval is nan: 2 questions are fewer than the 10 it needs)
    assert not any(isinstance(v, float) and math.isnan(v) for k, v in out["results"][O].items() if k.startswith("per_option_"))
    assert res[O]["per_option_macro_accuracy_A"] == 1.0 and res[O]["per_option_macro_accuracy_E"] == 0.0
    assert close(res[O]["options_consistency_rate"], (3 + 6) / (6 + 10))  # answering A: the gold's pairs are lost
    # the full fixture (q101, q102 have 10 options) still has J, from the 10-option questions only
    res_full, _ = run(TaskManager(include_path=[str(build_fixture_tasks(tmp_path / "full"))], include_defaults=False),
                      [O], answer(shown_gold_letter))
    assert res_full[O]["per_option_macro_accuracy_J"] == 1.0


def test_samples_carry_docs_and_records(tm):
    _, out = run(tm, [O], answer(lambda doc: "A"))
    samples = out["samples"][O]
    assert len(samples) == 10 + 10 + 4 + 5  # every option position of every question
    doc = samples[2]["doc"]
    assert {"question_id", "family", "variant", "n_variants", "options", "option_map", "canonical_map",
            "gold", "gold_index", "category"} <= set(doc)
    assert doc["options"][doc["gold_index"]] == doc["gold"] == "144"
    recs = records_from_items(json.loads(json.dumps([s["options_consistency_rate"] for s in samples])))
    again = summarize(recs, macro=True).metrics()
    res, _ = run(tm, [O], answer(lambda doc: "A"))
    assert again["options_consistency_rate"] == res[O]["options_consistency_rate"]


def test_limit_takes_whole_questions_and_partial_ones_do_not_count(tm):
    def gen(context, gen_kwargs, doc):
        if doc["question_id"] == "103":  # answers that would change CR if a partial q103 counted
            return f"The best answer is {'ABCD'[doc['variant'] % 4]}."
        return f"The best answer is {doc['answer']}."

    with pytest.warns(RuntimeWarning, match="missing variants"):
        res, _ = run(tm, [P], gen, limit=25)  # q101, q102 whole; 5 of q103's 10 prompts
    assert res[P]["consistency_rate"] == 1.0 and res[P]["0_macro_accuracy"] == 1.0
    res, _ = run(tm, [P], gen, limit=30)  # 3 whole questions
    # q103 letters A,B,C,D,A,B,C,D,A,B -> 3+3+1+1 = 8 agreeing pairs of 45
    assert close(res[P]["consistency_rate"], (45 + 45 + 8) / 135)


def test_upstream_option_order_scores_one_where_scorekit_scores_zero(tm, tmp_path):
    """A model that always answers the ORIGINAL letter picks different content at every
    position: scorekit's CR is 0; upstream's option-order task on the same data says 1.0.
    The dummy-like 'lol' model also gets CR 1.0 upstream (garbage agrees with itself)."""
    from lm_eval.tasks import TaskManager

    from scorekit.robustness.templates import upstream_score_dir
    from tests.robustness.fixture_tasks import FIXTURES

    upstream_yaml = upstream_score_dir() / "mmlu_pro" / "score_option_order_robustness_mmlu_pro.yaml"
    (tmp_path / "up.yaml").write_text(
        f"include: {upstream_yaml}\ntask: score_option_order_robustness_mmlu_pro\ntag: []\nvalidation_split: null\n"
        f"dataset_path: json\ndataset_name: null\n"
        f"dataset_kwargs:\n  data_files:\n    test: {FIXTURES / 'mmlu_pro.jsonl'}\n"
        "generation_kwargs:\n  until: []\n  max_gen_toks: 16\n  do_sample: false\n"
    )
    up_tm = TaskManager(include_path=[str(tmp_path)])
    up, _ = run(up_tm, [O], answer(original_gold_letter))
    ours, _ = run(tm, [O], answer(original_gold_letter))
    assert up[O]["options_consistency_rate"] == 1.0
    assert ours[O]["options_consistency_rate"] == 0.0
    up_lol, _ = run(up_tm, [O], lambda c, g, d: "lol")
    ours_lol, _ = run(tm, [O], lambda c, g, d: "lol")
    assert up_lol[O]["options_consistency_rate"] == 1.0
    assert math.isnan(ours_lol[O]["options_consistency_rate"]) and ours_lol[O]["unparsed_rate"] == 1.0


AGI = ["score_prompt_robustness_agieval", "score_option_order_robustness_agieval", "score_non_greedy_robustness_agieval"]


def test_agieval_group_metrics(tm):
    res, _ = run(tm, ["score_robustness_agieval"], answer(original_gold_letter))
    og = res["score_option_order_robustness_agieval"]
    assert og["options_consistency_rate"] == 0.0
    # all options of each question: 5-option subsets have position E, 4-option subsets do not
    assert "per_option_accuracy_E" in res["option_order_robustness_agieval_aqua_rat"]
    assert "per_option_accuracy_E" not in res["option_order_robustness_agieval_sat_math"]
    assert res["option_order_robustness_agieval_sat_en"]["per_option_accuracy_A"] == 0.5
    # group = docs-weighted mean: only sat_en (8 docs) has a gold at A; 4*10 + 3*8 = 64 docs
    assert close(og["per_option_accuracy_A"], 0.5 * 8 / 64)
    assert res["score_prompt_robustness_agieval"]["consistency_rate"] == 1.0
    assert res["score_prompt_robustness_agieval"]["0_accuracy"] == 1.0


def test_agieval_prompt_group_cr_is_pooled(tm):
    def gen(context, gen_kwargs, doc):
        text = f"The best answer is {doc['answer']}." if doc["variant"] % 2 == 0 else "unsure"
        return [text] * 5 if doc["family"] == "non_greedy" else text

    res, _ = run(tm, [AGI[0]], gen)
    g = res[AGI[0]]
    assert close(g["consistency_rate"], 10 / 45) and close(g["unparsed_rate"], 0.5)
    assert g["0_accuracy"] == 1.0 and g["1_accuracy"] == 0.0


def test_math_equivalent_forms_agree(tm):
    alt = {"4": "4.0", "\\frac{1}{4}": "0.25", "2x": "2 x", "6": "6.0"}

    def gen(context, gen_kwargs, doc):
        gold = doc["gold"]
        if doc["family"] == "non_greedy":
            box = f"The final answer is: $\\boxed{{{gold}}}$"
            return [box, box, "The final answer is: $\\boxed{0}$", "no idea", box]
        shown = alt.get(gold, gold) if doc["variant"] % 2 else gold
        return f"Step 1 ... The final answer is: $\\boxed{{{shown}}}$"

    res, _ = run(tm, ["score_robustness_math"], gen)
    p, n = res["score_prompt_robustness_math"], res["score_non_greedy_robustness_math"]
    assert all(p[f"{v}_accuracy"] == 1.0 for v in range(10))
    assert p["consistency_rate"] == 1.0 and p["unparsed_rate"] == 0.0
    assert close(n["non_greedy_accuracy"], 0.6) and close(n["non_greedy_consistency_rate"], 0.3)
    assert close(n["unparsed_rate"], 0.2)
    assert res["prompt_robustness_math_prealgebra"]["consistency_rate"] == 1.0  # "1/4" vs "0.25"


def test_cli_dummy_model(fixture_tasks, tmp_path):
    """The real `lm_eval` command; the dummy model says "lol" to everything."""
    cmd = [sys.executable, "-m", "lm_eval", "--model", "dummy", "--tasks", MMLU,
           "--include_path", str(fixture_tasks), "--output_path", str(tmp_path), "--log_samples"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = plain_keys(json.loads(next(tmp_path.rglob("results_*.json")).read_text())["results"])
    # nothing parsed: CR undefined (NaN in the results JSON), never 0.00 [0.00-0.00]
    assert math.isnan(results[P]["consistency_rate,none"]) and results[P]["unparsed_rate,none"] == 1.0
    assert math.isnan(results[O]["options_consistency_rate,none"])
    assert math.isnan(results[N]["non_greedy_consistency_rate,none"])
    samples_file = next(tmp_path.rglob(f"samples_*{N}_*.jsonl"))  # 0.5: samples_<group>::<task>_<T>.jsonl
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert len(samples) == 4 and all(len(s["filtered_resps"][0]) == 5 for s in samples)
    # scorekit robustness reads what this lm-eval wrote (0.5: group::task file names and keys)
    report = subprocess.run([sys.executable, "-m", "scorekit", "robustness", str(tmp_path), "--format", "json"],
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr[-2000:]
    (model,) = json.loads(report.stdout)["models"]
    (bench,) = model["benchmarks"]
    families = {f["family"]: f for f in bench["families"]}
    assert bench["benchmark"] == "mmlu_pro" and set(families) == {"prompt", "option_order", "non_greedy"}
    assert all(f["source"] == "samples" and f["n_questions"] == 4 and f["unparsed_rate"] == 1.0 for f in families.values())
    assert families["prompt"]["tasks"] == ["score_prompt_robustness_mmlu_pro"] and families["non_greedy"]["n_records"] == 20


@pytest.mark.hf
def test_tiny_hf_model(tiny_hf_model, tm):
    import lm_eval

    out = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={tiny_hf_model}", device="cpu",
                                  batch_size=1, tasks=[P, N], task_manager=tm, limit=10,
                                  log_samples=True, bootstrap_iters=0)
    out["results"], out["samples"] = plain_keys(out["results"]), plain_keys(out["samples"])
    r = {t: {k.removesuffix(",none"): v for k, v in m.items()} for t, m in out["results"].items()}
    # one whole question (10 prompts) and ten non-greedy questions (all four exist), 5 samples each
    for key in ("unparsed_rate", "0_macro_accuracy"):
        assert 0.0 <= r[P][key] <= 1.0
    # CR is undefined exactly when nothing of a question could be parsed (one question here)
    assert math.isnan(r[P]["consistency_rate"]) == (r[P]["unparsed_rate"] >= 0.9)
    recs = records_from_items([s["consistency_rate"] for s in out["samples"][P]])
    assert len(recs) == 10 and {x.question_id for x in recs} == {"101"}
    s = summarize(recs, macro=True)
    assert _same(s.consistency_rate, r[P]["consistency_rate"])
    assert s.unparsed_rate == r[P]["unparsed_rate"]
    assert all(len(x["filtered_resps"][0]) == 5 for x in out["samples"][N])
    ng = summarize(records_from_items([x["non_greedy_consistency_rate"] for x in out["samples"][N]]), macro=True)
    assert _same(ng.consistency_rate, r[N]["non_greedy_consistency_rate"])


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


# --- the adapter's caches (lm-eval asks for the documents ~5 times; 18 metrics share records) ------

def test_process_docs_is_memoized_per_dataset_and_fingerprint():
    from datasets import load_dataset

    from scorekit.lm_eval import score_suite
    from tests.robustness.fixture_tasks import FIXTURES

    ds = load_dataset("json", data_files={"test": str(FIXTURES / "mmlu_pro.jsonl")})["test"]
    first = score_suite.prompt_docs_mmlu_pro(ds)
    assert score_suite.prompt_docs_mmlu_pro(ds) is first  # same source, unchanged: same documents
    assert len(first) == 40 and first[0]["option_map"] == [] and first[0]["canonical_map"] == []
    other = score_suite.option_order_docs_mmlu_pro(ds)  # same source, another family: its own entry
    assert other is not first and len(other) == 29
    # a new Dataset object with the same content is expanded again (nothing leaks across runs) ...
    ds2 = load_dataset("json", data_files={"test": str(FIXTURES / "mmlu_pro.jsonl")})["test"]
    again = score_suite.prompt_docs_mmlu_pro(ds2)
    assert again is not first and again.to_list() == first.to_list()
    # ... and an in-place change of the source (new fingerprint) too
    ds.set_format("numpy")
    assert score_suite.prompt_docs_mmlu_pro(ds) is not first
    # a plain list (no fingerprint) is expanded every time
    rows = ds2.to_list()
    assert score_suite.prompt_docs_mmlu_pro(rows).to_list() == first.to_list()


def test_aggregation_cache_is_keyed_by_the_items_themselves():
    from scorekit.lm_eval import score_suite
    from scorekit.robustness.records import Record

    def recs(answers):
        return [Record(f"q{i // 2}", "prompt", i % 2, 2, "c", a, a == 0) for i, a in enumerate(answers)]

    items = recs([0, 0, 1, 1, 0, None])
    agg_cr = score_suite.agg_agieval_consistency_rate
    agg_acc = score_suite.agg_agieval_0_accuracy
    assert agg_cr(list(items)) == 2 / 3
    assert agg_acc(list(items)) == 2 / 3  # a new list of the same objects: the cached summary
    equal_content = recs([0, 0, 1, 1, 0, None])
    assert agg_cr(equal_content) == 2 / 3
    changed = recs([0, 1, 1, 1, 0, None])  # same length, other objects and content: recomputed
    assert agg_cr(changed) == 1 / 3
    assert agg_cr(items[:4]) == 1.0  # a prefix of the cached items: recomputed
