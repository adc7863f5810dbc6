"""lm-eval sees scorekit metrics by name after one YAML line; built-ins stay intact; end-to-end runs."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.sampling_task import sampling_task_yaml, task_header

DOCS = [
    {"q": "1+1", "answer": "2", "choices": ["1", "2", "3"], "gold": 1},
    {"q": "2+2", "answer": "4", "choices": ["4", "5", "6"], "gold": 0},
    {"q": "say lol", "answer": "lol", "choices": ["lol", "no", "yes"], "gold": 0},
]


def _write_fixture(root: Path) -> Path:
    data = root / "data.jsonl"
    data.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    tasks = root / "tasks"
    tasks.mkdir()
    (tasks / "sk_gen.yaml").write_text(sampling_task_yaml("sk_gen", data, n_samples=4, metric_list="""\
          - metric: pass_at_k
          - metric: g_pass_at_k
            k: 2
            tau: [0, 1]
          - metric: mg_pass_at_k
            k: 4
          - metric: maj_at_k
          - metric: avg_at_k
          - metric: exact_match_prefix
          - metric: edit_similarity
          - metric: consistency_rate
          - metric: !function scorekit.lm_eval.metrics.bow_f1
    """))
    (tasks / "sk_mc.yaml").write_text(task_header("sk_mc", data) + textwrap.dedent("""\
        output_type: multiple_choice
        doc_to_choice: "{{choices}}"
        doc_to_target: gold
        metric_list:
          - metric: acc
          - metric: loglikelihood_accuracy
          - metric: normalized_mc_probability
          - metric: gold_probability
          - metric: mrr
          - metric: recall_at_k
            k: [1, 2]
    """))
    return tasks


@pytest.fixture()
def fixture_tasks(tmp_path):
    return _write_fixture(tmp_path)


def test_yaml_fixture_is_valid(fixture_tasks):
    text = (fixture_tasks / "sk_gen.yaml").read_text()
    assert "class: !function scorekit.lm_eval.ScorekitTask" in text and "\n        " not in text


def test_names_do_not_clash_with_builtins_and_models_stay_visible():
    code = textwrap.dedent("""
        import json, sys
        import lm_eval.api.metrics
        from lm_eval.api import registry as r
        builtin_metrics = set(r.metric_registry.keys()); builtin_aggs = set(r.aggregation_registry.keys())
        import scorekit.lm_eval
        from scorekit.lm_eval.registry import REGISTERED
        heavy = [m for m in ("torch", "transformers", "lighteval") if m in sys.modules]
        print(json.dumps({"clash": sorted(set(REGISTERED) & builtin_metrics), "heavy": heavy,
                          "ours": sorted(REGISTERED),
                          "metrics_kept": builtin_metrics <= set(r.metric_registry.keys()),
                          "aggs_kept": builtin_aggs <= set(r.aggregation_registry.keys()),
                          "models": [r.get_model(m).__name__ for m in ("dummy", "hf")]}))
    """)
    out = json.loads(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
    assert out["clash"] == [] and out["heavy"] == []
    from scorekit.metric_specs import SPECS

    assert out["ours"] == sorted(s.name for s in SPECS)  # every spec'd metric, consistency_rate included
    assert out["metrics_kept"] and out["aggs_kept"]
    assert out["models"] == ["DummyLM", "HFLM"]


def test_importing_scorekit_first_keeps_builtin_metrics():
    # scorekit imported before anything of lm-eval: built-in names must still resolve
    code = ("import scorekit.lm_eval; from lm_eval.api.registry import metric_registry, get_aggregation, get_model;"
            "assert metric_registry.get('acc') and metric_registry.get('g_pass_at_k') and get_aggregation('mean');"
            "assert get_model('dummy').__name__ == 'DummyLM'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_consistency_rate_is_registered_with_its_aggregation():
    # lm-eval 0.4 keeps functions and separate aggregation/higher-is-better tables; 0.5 keeps one
    # Metric object per name (its .fn wraps scorekit's function: compat.registered_function)
    code = ("import scorekit.lm_eval; from lm_eval.api import registry as r;"
            "from scorekit.lm_eval.compat import SCORERS, registered_function;"
            "fn = registered_function('consistency_rate');"
            "e = r.metric_registry.get('consistency_rate') if SCORERS else None;"
            "agg = e.aggregation if SCORERS else r.get_metric_aggregation('consistency_rate');"
            "better = e.higher_is_better if SCORERS else r.is_higher_better('consistency_rate');"
            "assert fn.__module__ == 'scorekit.lm_eval.metrics' and better;"
            "assert agg is r.get_aggregation('consistency_rate');"
            "print(agg([fn(references=[None], predictions=[['A', 'A', 'B']]), fn(references=[None], predictions=[['C', ' C ']])]))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert float(out) == pytest.approx((1 + 1) / (3 + 1))


def test_registration_is_idempotent():
    import importlib

    import scorekit.lm_eval.registry as reg

    before = dict(reg.REGISTERED)
    importlib.reload(reg)  # a second registration of the same objects must not raise
    assert reg.REGISTERED.keys() == before.keys()


def _scripted_generations(context, gen_kwargs, doc):
    return {"2": ["2", "x", "7", "2"], "4": ["4", "4", "4", "4"], "lol": ["no", "no", "LOL", "no"]}[doc["answer"]]


def _scripted_loglikelihood(context, continuation, doc):
    table = {"1+1": [-2.0, -1.0, -3.0], "2+2": [-1000.0, -1000.0, -1001.0], "say lol": [-5.0, -0.5, -0.5]}
    return table[doc["q"]][doc["choices"].index(continuation.strip())], False


@pytest.mark.slow
def test_in_process_run_with_scripted_lm(fixture_tasks):
    import lm_eval
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    lm = ScriptedLM(generate=_scripted_generations, loglikelihood=_scripted_loglikelihood)
    tm = TaskManager(include_path=str(fixture_tasks), include_defaults=False)
    res = lm_eval.simple_evaluate(model=lm, tasks=["sk_gen", "sk_mc"], task_manager=tm)["results"]

    gen = {k.split(",")[0]: v for k, v in res["sk_gen"].items() if k.endswith(",all")}
    # per doc (n=4): c = 2, 4, 1 (the lowercase filter turns "LOL" into "lol")
    assert gen["pass@1"] == pytest.approx((2 / 4 + 1 + 1 / 4) / 3)
    assert gen["g-pass@2_0.0"] == pytest.approx(((1 - 1 / 6) + 1 + (1 - 3 / 6)) / 3)
    assert gen["g-pass@2_1.0"] == pytest.approx((1 / 6 + 1 + 0) / 3)
    assert gen["mg-pass@4"] == pytest.approx((0 + 1 + 0) / 3)  # k=4: P[X>=3] + P[X>=4], times 2/4
    assert gen["maj@4"] == pytest.approx((1 + 1 + 0) / 3)
    assert gen["avg@4"] == pytest.approx((0.5 + 1 + 0.25) / 3)
    assert gen["exact_match_prefix"] == pytest.approx((0.5 + 1 + 0.25) / 3)
    # "x"/"7" vs "2": 0; "no" vs "lol": Lev 2 over length 3 -> 1/3
    assert gen["edit_similarity"] == pytest.approx((0.5 + 1 + (1 + 3 * (1 / 3)) / 4) / 3)
    assert gen["bow_f1"] == pytest.approx((0.5 + 1 + 0.25) / 3)
    # agreeing pairs of the 4 samples: 1 ("2", "2"), 6, 3 ("no" x3) of 6 each, pooled
    assert gen["consistency_rate"] == pytest.approx(10 / 18)

    mc = {k.split(",")[0]: v for k, v in res["sk_mc"].items() if k.endswith(",none")}
    p1 = math.exp(-1) / (math.exp(-2) + math.exp(-1) + math.exp(-3))
    p2 = 1 / (2 + math.exp(-1))
    p3 = math.exp(-5) / (math.exp(-5) + 2 * math.exp(-0.5))
    assert mc["normalized_mc_probability"] == pytest.approx((p1 + p2 + p3) / 3, rel=1e-12)
    assert mc["gold_probability"] == pytest.approx((math.exp(-1) + 0 + math.exp(-5)) / 3, rel=1e-12)
    assert mc["acc"] == pytest.approx(2 / 3)
    assert mc["loglikelihood_accuracy"] == mc["acc"]
    # ranks of the gold: 1, 1 (tie with choice 1, earlier wins), 3
    assert mc["mrr"] == pytest.approx((1 + 1 + 1 / 3) / 3)
    assert mc["recall@1"] == pytest.approx(2 / 3)
    assert mc["recall@2"] == pytest.approx(2 / 3)
    assert len([c for c in lm.calls if c["type"] == "generate_until"]) == 12
    assert [c["repeat"] for c in lm.calls if c["type"] == "generate_until"][:4] == [0, 1, 2, 3]


@pytest.mark.slow
def test_plain_lm_eval_cli_with_dummy_model(fixture_tasks, tmp_path):
    out_dir = tmp_path / "out"
    cmd = [sys.executable, "-m", "lm_eval", "--model", "dummy", "--tasks", "sk_gen,sk_mc",
           "--include_path", str(fixture_tasks), "--output_path", str(out_dir), "--seed", "0"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (results_file,) = out_dir.glob("*/results_*.json")
    res = json.loads(results_file.read_text())["results"]
    gen = res["sk_gen"]
    # the dummy model answers "lol" every time: only the third doc is right, all 4 samples
    assert gen["pass@1,all"] == pytest.approx(1 / 3)
    assert gen["g-pass@2_1.0,all"] == pytest.approx(1 / 3)
    assert gen["mg-pass@4,all"] == pytest.approx(1 / 3)
    assert gen["maj@4,all"] == pytest.approx(1 / 3)
    assert gen["edit_similarity,all"] == pytest.approx((0 + 0 + 1) / 3)
    mc = res["sk_mc"]
    for key in ("normalized_mc_probability,none", "gold_probability,none", "mrr,none", "recall@2,none"):
        assert 0 < mc[key] <= 1
