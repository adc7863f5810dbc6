"""The SCORE benchmark table: every name rule is the inverse of its parser, and the table
agrees with the committed YAMLs and the installed templates."""

from __future__ import annotations

import pytest

from scorekit.robustness.benchmarks import (
    BENCHMARKS,
    classify_task,
    get,
    lighteval_task,
    parse_lighteval_task,
)
from scorekit.robustness.templates import load_templates


def test_lm_eval_names_round_trip():
    seen = set()
    for key, bench in BENCHMARKS.items():
        for family in bench.families:
            for subset in bench.subset_keys:
                name = bench.lm_eval_task(family, subset)
                assert name not in seen
                seen.add(name)
                t = classify_task(name)
                assert (t.benchmark, t.family, t.subset or "", t.is_group) == (key, family, subset, False)
            if bench.subsets:
                g = classify_task(bench.lm_eval_group(family))
                assert (g.benchmark, g.family, g.subset, g.is_group) == (key, family, None, True)
    assert len(seen) == 3 + 3 * 7 + 2 * 7


def test_subset_suffix_mapping_both_ways():
    math = get("math")
    assert math.suffix("counting_and_probability") == "counting_and_prob"
    assert math.subset_of_suffix("counting_and_prob") == "counting_and_probability"
    assert math.subset_of_suffix("counting_and_probability") is None
    assert classify_task("prompt_robustness_math_counting_and_probability") is None
    assert classify_task("option_order_robustness_math_algebra") is None  # MATH has no option order
    assert classify_task("score_prompt_robustness_mmlu_pro_law") is None


def test_lighteval_names_round_trip():
    for key, bench in BENCHMARKS.items():
        for family in bench.families:
            for subset in bench.subset_keys:
                n = {"prompt": 10, "option_order": bench.n_options(subset), "non_greedy": 1}[family]
                for v in range(n):
                    name = lighteval_task(key, family, subset, v)
                    assert parse_lighteval_task(name + "|0") == (key, family, subset, v)
    for other in ("score_prompt_robustness_mmlu_pro:template_10", "score_prompt_robustness_agieval:template_1",
                  "score_non_greedy_robustness_math:algebra:template_0", "score_option_order_robustness_math:algebra:position_A",
                  "mmlu_pro|0"):
        assert parse_lighteval_task(other) is None, other


def test_datasets_and_options():
    assert get("agieval").dataset("lsat_ar") == ("hails/agieval-lsat-ar", "default")
    assert get("math").dataset("precalculus") == ("EleutherAI/hendrycks_math", "precalculus")
    assert get("mmlu_pro").dataset() == ("TIGER-Lab/MMLU-Pro", "default")
    assert [get("agieval").n_options(s) for s in get("agieval").subset_keys] == [5, 4, 5, 5, 5, 4, 4]
    assert get("agieval").options == max(s.options for s in get("agieval").subsets)
    with pytest.raises(ValueError, match="unknown SCORE benchmark"):
        get("gsm8k")


def test_template_families_match_table():
    for key, bench in BENCHMARKS.items():
        assert tuple(load_templates(key)) == bench.families, key


def test_register_benchmark_adds_table_entry_and_row_rule(monkeypatch):
    from scorekit.robustness import benchmarks, score_documents
    from scorekit.robustness.benchmarks import SCOREBenchmark

    monkeypatch.setattr(benchmarks, "BENCHMARKS", dict(BENCHMARKS))
    monkeypatch.setattr(score_documents, "BENCHMARKS", benchmarks.BENCHMARKS)
    monkeypatch.setattr(score_documents, "ROW_RULES", dict(score_documents.ROW_RULES))
    toy = SCOREBenchmark(key="toy", label="Toy", dataset_path="me/toy", dataset_name="default",
                         fields=("q", "options", "gold"), options=4, macro=False, template_dir="mmlu_pro",
                         fewshot_split=None)

    def row_rule(row, index, subset, where):
        return score_documents.Question(f"q{index}", "toy", "all", row["q"], tuple(row["options"]), row["gold"],
                                       row["options"][row["gold"]])

    score_documents.register_benchmark(toy, row_rule)
    score_documents.register_benchmark(toy, row_rule)  # the same pair again: nothing changes
    assert get("toy") is toy and classify_task("score_option_order_robustness_toy").benchmark == "toy"
    (q,) = score_documents.questions_from_rows([{"q": "Which?", "options": ["a", "b", "c", "d"], "gold": 2}], "toy")
    assert (q.question_id, q.gold) == ("q0", "c")
    with pytest.raises(ValueError, match="already registered"):
        score_documents.register_benchmark(BENCHMARKS["mmlu_pro"], row_rule)
