"""The real model path: ``lighteval accelerate`` (offline, via ``python -m scorekit.lighteval``)
on the tiny Llama built in the test session, with the tasks loaded from the shipped FILE
``tasks/lighteval/score_suite.py``; the consistency rate comes from the details parquet."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from tests.lighteval.conftest import REPO, results_file, run_lighteval

pytestmark = [pytest.mark.slow, pytest.mark.hf]


def test_accelerate_tiny_model_prompt_robustness(tiny_hf_model, lighteval_env, tmp_path):
    from scorekit.robustness.analysis import summarize
    from scorekit.robustness.readers import read_paths
    from scorekit.robustness.readers.lighteval_details import LightevalDetailsReader

    env = {**lighteval_env, "SCOREKIT_SCORE_GENERATION_SIZE": "8"}
    out = tmp_path / "out"
    run_lighteval(["accelerate", f"model_name={tiny_hf_model},batch_size=8,cache_dir={tmp_path / 'cache'}",
                   "score_prompt_robustness_mmlu_pro|0", "--custom-tasks", str(REPO / "tasks/lighteval/score_suite.py"),
                   "--output-dir", str(out), "--save-details"], env)
    model = str(tiny_hf_model).lstrip("/")
    results = results_file(out, model)["results"]
    for v in range(10):
        acc = results[f"score_prompt_robustness_mmlu_pro:template_{v}|0"]["macro_accuracy"]
        assert 0.0 <= acc <= 1.0
    read = read_paths([out], readers=[LightevalDetailsReader()])
    (sample_set,) = read.samples
    # the model given by absolute path is named by it (harness_outputs.details_model), the same
    # name its results file gives: lighteval drops the leading "/" in the folders only
    assert sample_set.task.name == "score_prompt_robustness_mmlu_pro" and sample_set.model == str(tiny_hf_model)
    assert len(sample_set.records) == 4 * 10  # four fixture questions x ten templates
    summary = summarize(sample_set.records, macro=True)
    assert summary.n_questions == 4 and summary.n_incomplete == 0
    # CR is defined exactly when some question has two parsed answers (a random tiny model may
    # produce none); then it lies in [0, 1]
    parsed = Counter(r.question_id for r in sample_set.records if r.answer is not None)
    if any(n >= 2 for n in parsed.values()):
        assert 0.0 <= summary.consistency_rate <= 1.0
    else:
        assert math.isnan(summary.consistency_rate)
    for v in range(10):  # the report's per-template accuracy is lighteval's own number
        assert summary.variant_accuracy[v] == pytest.approx(
            results[f"score_prompt_robustness_mmlu_pro:template_{v}|0"]["macro_accuracy"], abs=1e-12)


def test_accelerate_tiny_model_non_greedy_samples_whatever_the_generation_config(tiny_hf_model, lighteval_env, tmp_path):
    """The tiny model's generation_config.json does not set do_sample (transformers' default:
    greedy); the documented non-greedy command used to stop with "Greedy methods ... do not
    support num_return_sequences". Now each question gets five sampled answers."""
    import json

    from scorekit.robustness.readers import read_paths
    from scorekit.robustness.readers.lighteval_details import LightevalDetailsReader

    assert "do_sample" not in json.loads((tiny_hf_model / "generation_config.json").read_text())
    env = {**lighteval_env, "SCOREKIT_SCORE_GENERATION_SIZE": "6"}
    out = tmp_path / "out"
    run_lighteval(["accelerate", f"model_name={tiny_hf_model},batch_size=4,cache_dir={tmp_path / 'cache'},"
                   "generation_parameters={temperature:0.7}", "score_non_greedy_robustness_mmlu_pro|0",
                   "--custom-tasks", "scorekit.lighteval.score_suite", "--output-dir", str(out), "--save-details"], env)
    model = str(tiny_hf_model).lstrip("/")
    results = results_file(out, model)["results"]["score_non_greedy_robustness_mmlu_pro|0"]
    cr = results["non_greedy_consistency_rate"]
    if results["unparsed_rate"] == 1.0:  # a random model rarely names a letter: CR is then undefined
        assert cr != cr
    else:
        assert 0.0 <= cr <= 1.0
    read = read_paths([out], readers=[LightevalDetailsReader()])
    (sample_set,) = read.samples
    assert len(sample_set.records) == 4 * 5  # four fixture questions x five samples
    assert sorted({r.variant for r in sample_set.records}) == [0, 1, 2, 3, 4]
    # a random 6-token continuation at temperature 0.7 from a ~400-token vocabulary: sampled,
    # so no question got five identical texts
    assert set(sample_set.identical.values()) == {False}
