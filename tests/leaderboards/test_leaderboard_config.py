"""The leaderboard's normalization as threshold scoring (good = 1, bad = chance, scale 100):
the docs' worked examples, the score layout's keys for it (num_choices, aggregation: mean_value,
scale, harness, subtask_sizes), the shipped leaderboard configs, and the error for a config in
the old leaderboard layout."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit.leaderboards.leaderboard import columns
from scorekit.leaderboards.results_files import check_fraction
from scorekit.leaderboards.scorecard_config import load_scorecard_config
from scorekit.leaderboards.threshold import scorecard_values
from scorekit.errors import ScorekitError
from scorekit.resources import config_path
from tests.leaderboards.leaderboard_fixtures.layouts import GPQA_MUSR_CONFIG

fractions = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


def _config(tmp_path, text: str):
    path = tmp_path / "cfg.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_scorecard_config(path)


def _bench(scored: dict, name: str) -> dict:
    return next(b for c in scored["categories"].values() for n, b in c["benchmarks"].items() if n == name)


def test_docs_gpqa_and_musr_examples(tmp_path):
    cfg = _config(tmp_path, GPQA_MUSR_CONFIG)
    values = {"leaderboard_gpqa": {"acc_norm,none": 0.6}, "leaderboard_musr_murder_mysteries": {"acc_norm,none": 0.7},
              "leaderboard_musr_object_placements": {"acc_norm,none": 0.4},
              "leaderboard_musr_team_allocation": {"acc_norm,none": 0.6}}
    (m,) = scorecard_values(cfg, {"m": values}, missing="strict")
    assert _bench(m, "GPQA")["score"] == 46.666666666666664  # (0.6 - 1/4) / (3/4) * 100
    musr = _bench(m, "MUSR")
    assert [x["score"] for x in musr["metrics"].values()] == pytest.approx([40.0, 25.0, 40.0], abs=1e-12)
    assert musr["score"] == pytest.approx(35.0, abs=1e-12)  # exactly 1/3 for team allocation (0.333: 35.01)
    assert m["overall"] == pytest.approx((46.666666666666664 + 35.0) / 2, abs=1e-12)


MEAN_VALUE = """\
scale: 100
categories:
  c:
    benchmarks:
      each:
        metrics:
          a: {key: {task: a, metric: m}, good: 1.0, num_choices: 2}
          b: {key: {task: b, metric: m}, good: 1.0, num_choices: 2}
      once:
        aggregation: mean_value
        metrics:
          a: {key: {task: a, metric: m}, good: 1.0, bad: 0.5}
          b: {key: {task: b, metric: m}, good: 1.0, bad: 0.5}
"""


def test_each_part_clamped_before_averaging_unless_mean_value(tmp_path):
    cfg = _config(tmp_path, MEAN_VALUE)
    values = {"a": {"m": 0.2, "m_stderr": 0.02}, "b": {"m": 0.9, "m_stderr": 0.04}}
    (m,) = scorecard_values(cfg, {"x": values}, missing="strict")
    each, once = _bench(m, "each"), _bench(m, "once")
    assert each["score"] == pytest.approx((0 + 80) / 2)  # clamping the mean instead would give 10
    assert once["score"] == pytest.approx(10.0)  # mean_value: (0.55 - 0.5) / 0.5 * 100
    # independent parts: sqrt(sum se^2) / n; mean_value: the parts share questions, se = mean se
    assert each["stderr"] == pytest.approx((0.04**2 + 0.08**2) ** 0.5 / 2 * 100, rel=1e-12)
    assert once["stderr"] == pytest.approx(0.03 / 0.5 * 100, rel=1e-12)
    assert once["ci_high"] <= 100.0 and each["ci_low"] >= 0.0


@given(st.lists(fractions, min_size=1, max_size=24), st.lists(st.integers(2, 20), min_size=24, max_size=24), st.data())
def test_benchmark_score_in_range_and_monotone_in_each_part(values, choices, data):
    from scorekit.leaderboards.scorecard_config import ConfigBenchmark, ConfigCategory, ConfigMetric, ScorecardConfig

    specs = tuple(ConfigMetric("c", "b", f"t{i}", ((f"t{i}", "m"),), 1.0, 1 / choices[i]) for i in range(len(values)))
    cfg = ScorecardConfig("x", (ConfigCategory("c", 1.0, (ConfigBenchmark("c", "b", 1.0, specs),)),), scale=100.0)

    def score(vals):
        (m,) = scorecard_values(cfg, {"m": {f"t{i}": {"m": v} for i, v in enumerate(vals)}})
        return m["overall"]

    before = score(values)
    assert 0.0 <= before <= 100.0 + 1e-9
    i = data.draw(st.integers(0, len(values) - 1))
    bumped = list(values)
    bumped[i] = data.draw(st.floats(min_value=values[i], max_value=1.0))
    assert score(bumped) >= before - 1e-9


@pytest.mark.parametrize(
    "value, message",
    [(float("nan"), "NaN"), (1.5, "outside [0, 1]"), (-0.1, "outside [0, 1]"), ("N/A", "got str"), (True, "got bool"),
     (None, "got NoneType")],
)
def test_check_fraction_rejects(value, message):
    with pytest.raises(ScorekitError) as exc:
        check_fraction(value, path="f.json", where='results["t"]["m"]')
    assert message in str(exc.value)
    assert str(exc.value).startswith('f.json: results["t"]["m"]: ')


def test_shipped_leaderboard_configs_match_the_reference():
    cfg = load_scorecard_config(config_path("open_llm_leaderboard_v2.yaml"))
    assert columns(cfg) == ["IFEval", "BBH", "MATH Lvl 5", "GPQA", "MUSR", "MMLU-PRO"]
    assert cfg.scale == 100 and cfg.harness == "lm-eval"
    assert all(s.good == 1.0 and s.weight == 1.0 for s in cfg.metrics)
    by = {b.name: b for b in cfg.benchmarks}
    assert len(by["BBH"].metrics) == 24 and all(s.keys[0][1] == "acc_norm,none" for s in by["BBH"].metrics)
    bbh = {s.keys[0][0].removeprefix("leaderboard_bbh_"): s.bad for s in by["BBH"].metrics}
    assert bbh["object_counting"] == 1 / 19 and bbh["geometric_shapes"] == 1 / 11
    assert bbh["reasoning_about_colored_objects"] == 1 / 18 and bbh["web_of_lies"] == 1 / 2
    assert [s.bad for s in by["MUSR"].metrics] == [1 / 2, 1 / 5, 1 / 3]  # exactly 1/3, not 0.333
    assert [s.bad for s in by["GPQA"].metrics] == [0.25] and [s.bad for s in by["MMLU-PRO"].metrics] == [0.1]
    assert by["IFEval"].aggregation == "mean_value" and all(b.aggregation == "mean_score" for b in cfg.benchmarks[1:])
    assert [s.keys[0][1] for s in by["IFEval"].metrics] == ["prompt_level_strict_acc,none", "inst_level_strict_acc,none"]
    assert dict(by["GPQA"].metrics[0].subtask_sizes) == {"leaderboard_gpqa_diamond": 198, "leaderboard_gpqa_extended": 546,
                                                         "leaderboard_gpqa_main": 448}
    assert sum(n for _, n in by["MATH Lvl 5"].metrics[0].subtask_sizes) == 1324
    lv = load_scorecard_config(config_path("open_llm_leaderboard_v2_lighteval.yaml"))
    assert columns(lv) == columns(cfg) and lv.harness == "lighteval" and lv.scale == 100
    assert [s.bad for s in lv.benchmarks[1].metrics] == [s.bad for s in by["BBH"].metrics]


@pytest.mark.parametrize("name", ["score_demo_normalization.yaml", "score_robustness_normalization.yaml"])
def test_shipped_score_normalization_configs(name):
    cfg = load_scorecard_config(config_path(name))
    assert columns(cfg) == ["MMLU-Pro", "AGIEval", "MATH"] and cfg.scale == 100
    for bench in cfg.benchmarks:  # ten prompts per task, each against the task's chance level
        tasks = {s.keys[0][0] for s in bench.metrics}
        assert len(bench.metrics) == 10 * len(tasks)
    assert {s.bad for s in cfg.benchmarks[2].metrics} == {0.0}  # MATH: generative


BASE = "categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t, metric: m}, good: 1.0, %s}\n"


@pytest.mark.parametrize(
    "text, where, message",
    [
        (BASE % "num_choices: 1", "line 6, categories.c.benchmarks.b.metrics.m.num_choices", "integer >= 2, got 1"),
        (BASE % "num_choices: true", "line 6, categories.c.benchmarks.b.metrics.m.num_choices", "integer >= 2, got True"),
        (BASE % "num_choices: 4, bad: 0.25", "line 6, categories.c.benchmarks.b.metrics.m", "give 'bad' or 'num_choices'"),
        (BASE % "weight: 1", "line 6, categories.c.benchmarks.b.metrics.m", "give 'bad' or 'num_choices'"),
        (BASE % "bad: 0.0, subtask_sizes: {s: 0}", "line 6, categories.c.benchmarks.b.metrics.m.subtask_sizes.s", "integer >= 1"),
        (BASE % "bad: 0.0, subtask_sizes: [s]", "line 6, categories.c.benchmarks.b.metrics.m.subtask_sizes", "subtask -> number"),
        ("scale: 0\n" + BASE % "bad: 0.0", "line 1, scale", "expected a number > 0"),
        ("scale: '100'\n" + BASE % "bad: 0.0", "line 1, scale", "expected a number"),
        ("harness: vllm\n" + BASE % "bad: 0.0", "line 1, harness", "expected one of any, lm-eval, lighteval"),
        (BASE.replace("      b:\n", "      b:\n        aggregation: median\n") % "bad: 0.0",
         "line 5, categories.c.benchmarks.b.aggregation", "expected one of mean_score, mean_value"),
        (BASE.replace("      b:\n", "      b:\n        aggregation: mean_value\n") % "bad: 0.0"
         + "          n: {key: {task: t, metric: n}, good: 1.0, bad: 0.5}\n",
         "line 5, categories.c.benchmarks.b.aggregation", "one good and one bad"),
    ],
)
def test_layout_errors_name_the_place(tmp_path, text, where, message):
    path = tmp_path / "my.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScorekitError) as exc:
        load_scorecard_config(path)
    assert str(exc.value).startswith(f"{path}: {where}: "), str(exc.value)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_old_leaderboard_layout_is_refused_saying_what_to_change(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("name: mine\naverage: Average\nbenchmarks:\n  - column: GPQA\n    results_key: leaderboard_gpqa\n"
                    "    metric: acc_norm,none\n    num_choices: 4\n", encoding="utf-8")
    with pytest.raises(ScorekitError) as exc:
        load_scorecard_config(path)
    text = str(exc.value)
    assert text.startswith(f"{path}: line 3, benchmarks: this is the old `scorekit leaderboard` layout")
    assert "categories.<category>.benchmarks.<column>.metrics.<metric>" in text and "scale: 100" in text
    assert "docs/scorecard.md" in text and "\n" not in text


def test_leaderboard_runs_a_normalizer_beside_its_config_only_with_allow_code(tmp_path, capsys):
    """The leaderboard reads the score layout whole, custom normalizers included, under the same
    --allow-code rule as `scorekit scorecard`."""
    import json
    import uuid

    from scorekit.cli import main
    from tests.leaderboards.leaderboard_fixtures.layouts import lm_eval_body, write_lm_eval_results

    module = f"sk_lb_norm_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text("def half(value, good, bad):\n    return 0.5\n", encoding="utf-8")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(f'normalizer: "{module}:half"\nscale: 100\n' + GPQA_MUSR_CONFIG.split("scale: 100\n", 1)[1],
                   encoding="utf-8")
    values = {"leaderboard_gpqa": {"acc_norm,none": 0.6}, "leaderboard_musr_murder_mysteries": {"acc_norm,none": 0.7},
              "leaderboard_musr_object_placements": {"acc_norm,none": 0.4},
              "leaderboard_musr_team_allocation": {"acc_norm,none": 0.6}}
    write_lm_eval_results(tmp_path / "out", lm_eval_body(values, model="org/m"))
    assert main(["leaderboard", str(tmp_path / "out"), "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"scorekit: error: {cfg}: line 1, normalizer: ") and "--allow-code" in err and err.count("\n") == 1
    assert main(["leaderboard", str(tmp_path / "out"), "--config", str(cfg), "--allow-code", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["models"]
    assert row["scores"] == {"GPQA": 50.0, "MUSR": 50.0, "Average": 50.0}
    assert row["stderr"]["GPQA"] is None  # a custom normalizer's score has no propagated stderr
