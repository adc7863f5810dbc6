"""Each scorekit lighteval Metric against the scorekit.metrics function it wraps, through
lighteval's own Metric interface (compute_sample / get_corpus_aggregations), plus the
lighteval built-in defects they avoid."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

pytest.importorskip("lighteval", reason="needs the lighteval extra")

from lighteval.metrics.metrics_sample import GPassAtK as LightevalGPassAtK  # noqa: E402
from lighteval.metrics.metrics_sample import NormalizedMultiChoiceProbability, PassAtK as LightevalPassAtK  # noqa: E402
from lighteval.models.model_output import ModelResponse  # noqa: E402
from lighteval.tasks.requests import Doc  # noqa: E402

from scorekit import metrics as M  # noqa: E402
from scorekit.lighteval import metrics as LM  # noqa: E402


def gen_doc(gold="42", **specific):
    return Doc(query="q", choices=[gold], gold_index=0, specific=specific or None, id="0", task_name="t|0")


def mc_doc(n_choices=4, gold=1):
    return Doc(query="q", choices=[f" {c}" for c in "ABCDEFGHIJ"[:n_choices]], gold_index=gold, id="0", task_name="t|0")


def sample(metric, doc, resp):
    return metric.compute_sample(doc=doc, model_response=resp)


def corpus(metric, outputs):
    """Aggregate per-sample outputs the way lighteval's MetricsLogger does."""
    values = {}
    for out in outputs:
        for k, v in out.items():
            values.setdefault(k, []).append(v)
    aggs = metric.get_corpus_aggregations()
    result = {}
    for name, vals in values.items():
        if name in result:
            continue
        r = aggs[name](vals)
        result.update(r if isinstance(r, dict) else {name: r})
    return result


# ---------------------------------------------------------------- consistency rate


def test_consistency_rate_groups_samples_by_question_and_matches_scorekit():
    metric = LM.consistency_rate_metric(confidence=None)
    script = {"q1": ["A", "A", "B"], "q2": ["C", "C"], "q3": ["D", " ", "D", "D"]}  # " " -> unparsed
    outputs = []
    for qid, answers in script.items():
        for a in answers:
            outputs.append(sample(metric, gen_doc(question_id=qid), ModelResponse(text=[a])))
    got = corpus(metric, outputs)
    groups = [["A", "A", "B"], ["C", "C"], ["D", None, "D", "D"]]
    assert got == {"consistency_rate": M.consistency_rate(groups)}
    assert got["consistency_rate"] == pytest.approx((1 + 1 + 3) / (3 + 1 + 6))


def test_consistency_rate_pooled_and_per_question_differ_for_unequal_groups():
    outputs_for = lambda metric: [  # noqa: E731
        sample(metric, gen_doc(question_id=q), ModelResponse(text=[a]))
        for q, answers in {"a": "AA", "b": "AABB"}.items() for a in answers
    ]
    pooled = corpus(LM.consistency_rate_metric(confidence=None), outputs_for(LM.consistency_rate_metric()))
    per_q = LM.consistency_rate_metric(confidence=None, pooled=False)
    assert pooled["consistency_rate"] == pytest.approx(3 / 7)
    assert corpus(per_q, outputs_for(per_q))["consistency_rate"] == pytest.approx((1 + 1 / 3) / 2)


def test_consistency_rate_within_doc_samples_and_interval():
    metric = LM.consistency_rate_metric("non_greedy_cr", group_field=None)
    answers = [["7", "7", "7", "8", "7"], ["1", "2", "3", "4", "5"], ["x", "x", "x", "x", "x"]] * 4  # 12: an interval needs 10
    outputs = []
    for i, texts in enumerate(answers):
        doc = gen_doc()
        doc.id = str(i)
        outputs.append(sample(metric, doc, ModelResponse(text=texts)))
    got = corpus(metric, outputs)
    assert got["non_greedy_cr"] == M.consistency_rate(answers)
    lo, hi = M.consistency_rate_interval(answers)
    assert (got["non_greedy_cr_ci_low"], got["non_greedy_cr_ci_high"]) == (lo, hi)
    assert lo < got["non_greedy_cr"] < hi


def test_consistency_rate_is_undefined_when_nothing_parses():
    # lighteval has no filter writing a fallback: unparsed is what ``extract`` returns as None
    def answer_is(doc, text):
        return text.rsplit("answer is ", 1)[1] if "answer is " in text else None

    metric = LM.consistency_rate_metric(group_field=None, extract=answer_is)
    outputs = [sample(metric, gen_doc(), ModelResponse(text=["lol", "no idea", " "])) for _ in range(12)]
    with pytest.warns(RuntimeWarning, match="undefined"):
        got = corpus(metric, outputs)
    assert all(math.isnan(v) for v in got.values()) and set(got) == {
        "consistency_rate", "consistency_rate_ci_low", "consistency_rate_ci_high"}


def test_consistency_needs_the_group_field():
    metric = LM.consistency_rate_metric()
    with pytest.raises(ValueError, match="question_id"):
        sample(metric, gen_doc(), ModelResponse(text=["A"]))


# ---------------------------------------------------------------- pass@k, G-Pass@k


@pytest.mark.parametrize("n,c,k", [(10, 5, 4), (48, 12, 4), (20, 0, 4), (5, 5, 3)])
def test_g_pass_at_k_matches_scorekit_and_names_are_lightevals(n, c, k):
    metric = LM.g_pass_at_k_metric(k, n)
    texts = ["42"] * c + ["0"] * (n - c)
    out = sample(metric, gen_doc(), ModelResponse(text=texts))
    taus = (0.0, 0.25, 0.5, 0.75, 1.0)
    expected = {f"g-pass@{k}_{t}": M.g_pass_at_k(n, c, k, t) for t in taus}
    expected[f"mg-pass@{k}"] = M.mg_pass_at_k(n, c, k)
    assert out == expected
    # unprefixed names are exactly lighteval's own
    assert list(out) == LightevalGPassAtK(k=k, n=n).metric_names


def test_g_pass_at_k_metric_vectors_from_the_paper():
    out = sample(LM.g_pass_at_k_metric(4, 10), gen_doc(), ModelResponse(text=["42"] * 5 + ["1"] * 5))
    assert out["g-pass@4_0.5"] == pytest.approx(0.7380952380952381, rel=1e-12)
    assert out["mg-pass@4"] == pytest.approx(0.14285714285714285, rel=1e-12)


def test_g_pass_prefix_applies_to_every_name_and_corpus_mean():
    metric = LM.g_pass_at_k_metric([1, 4], 8, thresholds=[0.5, 1], prefix="math")
    assert metric.metric_name == ["math_g-pass@1_0.5", "math_g-pass@1_1.0", "math_mg-pass@1",
                                  "math_g-pass@4_0.5", "math_g-pass@4_1.0", "math_mg-pass@4"]
    # lighteval's own prefix handling gives "mmath_g-pass@4" for the mG name
    assert "mmath_g-pass@4" in LightevalGPassAtK(k=4, n=8, name_prefix="math").metric_names
    outs = [sample(metric, gen_doc(), ModelResponse(text=["42"] * c + ["0"] * (8 - c))) for c in (0, 3, 8)]
    got = corpus(metric, outs)
    for name in metric.metric_name:
        assert got[name] == pytest.approx(np.mean([o[name] for o in outs]))
    assert got["math_g-pass@4_1.0"] == pytest.approx(np.mean([M.g_pass_at_k(8, c, 4, 1.0) for c in (0, 3, 8)]))


def test_g_pass_rename_through_metric_call_keeps_aggregations_consistent():
    metric = LM.g_pass_at_k_metric(4, 8)
    metric = metric(sample_params={"k": [2]})
    out = sample(metric, gen_doc(), ModelResponse(text=["42"] * 8))
    assert set(out) == set(metric.metric_name) == set(metric.get_corpus_aggregations())


def test_g_pass_and_pass_at_k_refuse_k_larger_than_n():
    with pytest.raises(ValueError, match="larger than n"):
        LM.g_pass_at_k_metric(8, 4)
    with pytest.raises(ValueError, match="larger than n"):
        LM.pass_at_k_metric(5, 4)
    # n unset: the doc's generations count; too few of them is an error naming the doc
    with pytest.raises(ValueError, match=r"task t\|0, doc 0: 3 generation"):
        sample(LM.pass_at_k_metric(4), gen_doc(), ModelResponse(text=["0", "0", "0"]))
    # lighteval's built-in answers 1.0 here although nothing is correct
    builtin = LightevalPassAtK(k=4, n=3, strip_strings=True)
    assert builtin.compute(gen_doc(), ModelResponse(text=["0", "0", "0"])) == 1.0


@pytest.mark.parametrize("n,c,k", [(10, 5, 4), (16, 1, 1), (16, 0, 8), (16, 15, 2)])
def test_pass_at_k_matches_scorekit(n, c, k):
    metric = LM.pass_at_k_metric(k, n)
    assert metric.metric_name == f"pass@{k}"
    out = sample(metric, gen_doc(), ModelResponse(text=["0"] * (n - c) + [" 42 "] * c))
    assert out == {f"pass@{k}": M.pass_at_k(n, c, k)}


def test_sampling_metrics_request_enough_samples():
    from lighteval.tasks.lighteval_task import LightevalTask, LightevalTaskConfig

    cfg = LightevalTaskConfig(name="x", prompt_function=lambda line, task: None, hf_repo="/nonexistent",
                              hf_subset="default", metrics=[LM.g_pass_at_k_metric([2, 4], 16), LM.avg_at_k_metric(5)],
                              hf_avail_splits=["test"], evaluation_splits=["test"])
    assert max(LightevalTask(cfg).num_samples) == 16
    assert LM.g_pass_at_k_metric([2, 4]).sample_level_fn.num_samples() == 4


def test_avg_and_maj_at_k():
    texts = ["42", "41", "42", "7", "7", "7"]
    out = sample(LM.avg_at_k_metric(4), gen_doc(), ModelResponse(text=texts))
    assert out == {"avg@4": M.avg_at_k([1, 0, 1, 0], 4)} == {"avg@4": 0.5}
    # first 5: 42 x2, 7 x2 -> tie, earliest first occurrence (42) wins
    assert sample(LM.maj_at_k_metric(5), gen_doc(), ModelResponse(text=texts)) == {"maj@5": 1.0}
    assert sample(LM.maj_at_k_metric(6), gen_doc(), ModelResponse(text=texts)) == {"maj@6": 0.0}
    with pytest.raises(ValueError, match="needs 6"):
        sample(LM.avg_at_k_metric(6), gen_doc(), ModelResponse(text=texts[:4]))


# ---------------------------------------------------------------- log-probabilities


def test_normalized_mc_probability_does_not_underflow():
    logprobs = [-800.0, -801.0, -802.5, -805.0]
    doc = mc_doc(4, gold=1)
    resp = ModelResponse(logprobs=logprobs, output_tokens=[[1]] * 4)
    out = sample(LM.normalized_mc_probability_metric(), doc, resp)
    assert out == {"normalized_mc_probability": M.normalized_mc_probability(logprobs, 1)}
    shifted = [lp + 800 for lp in logprobs]  # the same ratio, shifted by hand
    assert out["normalized_mc_probability"] == pytest.approx(math.exp(shifted[1]) / sum(map(math.exp, shifted)), rel=1e-12)
    with np.errstate(all="ignore"):
        builtin = NormalizedMultiChoiceProbability().compute(doc, resp)
    assert not builtin > 0.0  # lighteval's built-in underflows (0.0 or nan)


def test_logprob_family_matches_scorekit():
    logprobs = [-3.0, -1.0, -1.0, -0.5, -7.0]
    doc = mc_doc(5, gold=2)
    resp = ModelResponse(logprobs=logprobs, output_tokens=[[1]] * 5)
    assert sample(LM.gold_probability_metric(), doc, resp) == {"gold_probability": M.gold_probability(logprobs, 2)}
    assert sample(LM.loglikelihood_accuracy_metric(), doc, resp) == {"loglikelihood_accuracy": 0.0}
    for k, want in [(1, 0.0), (2, 0.0), (3, 1.0)]:  # index 2 ties index 1 and ranks after it
        assert sample(LM.recall_at_k_metric(k), doc, resp) == {f"recall@{k}": want}
        assert want == M.recall_at_k(logprobs, 2, k)
    assert sample(LM.mrr_metric(), doc, resp) == {"mrr": M.reciprocal_rank(logprobs, 2)} == {"mrr": 1 / 3}


def test_logprob_metric_checks_number_of_logprobs():
    with pytest.raises(ValueError, match="2 log-probabilities for 4 choices"):
        sample(LM.normalized_mc_probability_metric(), mc_doc(4), ModelResponse(logprobs=[-1.0, -2.0]))


# ---------------------------------------------------------------- strings


def test_string_metrics_match_scorekit():
    doc = Doc(query="q", choices=["the cat sat", "a dog"], gold_index=[0, 1], id="0", task_name="t|0")
    resp = ModelResponse(text=["  the cat sat down "])
    pred = "the cat sat down"
    assert sample(LM.exact_match_metric(), doc, resp) == {"exact_match": 0.0}
    assert sample(LM.exact_match_metric("prefix"), doc, resp) == {"exact_match_prefix": 1.0}
    assert sample(LM.bow_f1_metric(), doc, resp) == {"bow_f1": M.bow_f1(pred, ["the cat sat", "a dog"])}
    assert sample(LM.edit_similarity_metric(), doc, resp) == {
        "edit_similarity": max(M.edit_similarity(pred, g) for g in ["the cat sat", "a dog"])
    }
    src_doc = gen_doc(text="the cat sat on the mat today")
    got = sample(LM.extractiveness_metric(), src_doc, ModelResponse(text=["the cat sat today"]))
    want = M.extractiveness("the cat sat on the mat today", "the cat sat today")
    assert got == {f"extractiveness_{k}": v for k, v in want.items()}


# ---------------------------------------------------------------- pickling


def test_every_metric_pickles():
    metrics = [
        LM.consistency_rate_metric(), LM.pass_at_k_metric(2, 4), LM.g_pass_at_k_metric([1, 2], 4, prefix="p"),
        LM.avg_at_k_metric(2), LM.maj_at_k_metric(3), LM.normalized_mc_probability_metric(),
        LM.gold_probability_metric(), LM.loglikelihood_accuracy_metric(), LM.recall_at_k_metric(2),
        LM.mrr_metric(), LM.exact_match_metric(), LM.bow_f1_metric(), LM.edit_similarity_metric(),
        LM.extractiveness_metric(),
    ]
    for metric in metrics:
        clone = pickle.loads(pickle.dumps(metric))
        assert clone.metric_name == metric.metric_name
        for fn in clone.get_corpus_aggregations().values():
            pickle.loads(pickle.dumps(fn))
