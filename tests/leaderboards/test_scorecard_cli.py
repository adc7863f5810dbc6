"""`scorekit scorecard`: config loading/validation, custom normalizers, results files, output."""

from __future__ import annotations

import math

import json
import re
import textwrap
import uuid
from pathlib import Path

import pytest
import yaml

from scorekit.leaderboards.scorecard_config import import_normalizer, load_scorecard_config
from scorekit.leaderboards.threshold import threshold_score
from scorekit.cli import main
from scorekit.errors import ScorekitError
from scorekit.resources import config_path
from tests.leaderboards.leaderboard_fixtures.layouts import lm_eval_body, write_lighteval_results, write_lm_eval_results

GOLDEN = Path(__file__).resolve().parent / "leaderboard_fixtures" / "oll-golden-pythia-410m.json"

SMALL = """\
categories:
  knowledge:
    benchmarks:
      gpqa:
        metrics:
          acc_norm:
            key: {task: leaderboard_gpqa, metric: "acc_norm,none"}
            good: 0.75
            bad: 0.25
  math:
    weight: 3
    benchmarks:
      math_hard:
        metrics:
          em:
            key: {task: leaderboard_math_hard, metric: "exact_match,none"}
            good: 0.5
            bad: 0.0
"""


def run_cli(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def write_config(tmp_path: Path, text: str, name: str = "scoring.yaml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


@pytest.fixture
def results(tmp_path):
    out = tmp_path / "results"
    write_lm_eval_results(
        out,
        lm_eval_body(
            {"leaderboard_gpqa": {"acc_norm,none": 0.5}, "leaderboard_math_hard": {"exact_match,none": 0.1}},
            model="org/complete",
        ),
    )
    write_lm_eval_results(out, lm_eval_body({"leaderboard_gpqa": {"acc_norm,none": 0.625}}, model="org/partial"))
    return out


# --- through the CLI ------------------------------------------------------------------------


def test_score_json_and_partial_flags(tmp_path, results, capsys):
    cfg = write_config(tmp_path, SMALL)
    code, out, err = run_cli(["scorecard", results, "--config", cfg, "--format", "json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["missing_policy"] == "partial"
    by = {m["model"]: m for m in doc["models"]}
    c = by["org/complete"]
    # gpqa: (0.5-0.25)/0.5 = 0.5; math: 0.1/0.5 = 0.2; overall (1*0.5 + 3*0.2)/4 = 0.275
    assert c["categories"]["knowledge"]["score"] == 0.5
    assert c["categories"]["math"]["score"] == pytest.approx(0.2)
    assert c["overall"] == pytest.approx(0.275) and not c["partial"]
    assert c["sources"][0].endswith(".json")
    p = by["org/partial"]
    assert p["overall"] == pytest.approx(0.75) and p["partial"] is True
    assert p["missing"] == {"math/math_hard/em": "not in results"}
    assert p["categories"]["math"]["score"] is None
    assert [m["model"] for m in doc["models"]] == ["org/partial", "org/complete"]  # best first
    assert "org/partial: partial, without math/math_hard/em (not in results)" in err
    assert p["indistinguishable_from_best"] is True and c["indistinguishable_from_best"] is False
    assert c["overall_ci_low"] < c["overall"] < c["overall_ci_high"]


def test_score_strict_csv(tmp_path, results, capsys):
    cfg = write_config(tmp_path, SMALL)
    code, out, _ = run_cli(["scorecard", results, "--config", cfg, "--format", "csv", "--missing", "strict"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Model,Overall,Overall_ci_low,Overall_ci_high,Tied with best,knowledge,math,Missing"
    # interval from the results' stderr (the fixture writes sqrt(v(1-v)/(n-1)), n = 250):
    # overall = (1 * gpqa + 3 * math) / 4, scores scaled by 1/|good - bad|
    se = math.sqrt((math.sqrt(0.25 / 249) / 0.5) ** 2 + (3 * math.sqrt(0.09 / 249) / 0.5) ** 2) / 4
    cells = lines[1].split(",")
    assert cells[0] == "org/complete" and float(cells[1]) == pytest.approx(0.275)
    assert float(cells[2]) == pytest.approx(0.275 - 1.959963984540054 * se) and lines[1].endswith(",")
    assert float(cells[3]) == pytest.approx(0.275 + 1.959963984540054 * se) and cells[4] == "True"
    assert lines[2] == "org/partial,,,,,0.75,,math/math_hard/em (not in results)"  # strict: no score, no interval


def test_score_table_marks_partial(tmp_path, results, capsys):
    cfg = write_config(tmp_path, SMALL)
    code, out, _ = run_cli(["scorecard", results, "--config", cfg, "--format", "markdown", "--detail", "metric"], capsys)
    assert code == 0
    rows = out.splitlines()
    assert rows[0] == (
        "| Model | Overall | Overall 95% CI | Tied with best | knowledge | math | knowledge/gpqa | math/math_hard | knowledge/gpqa/acc_norm "
        "| math/math_hard/em | Missing |"
    )
    half = 1.959963984540054 * math.sqrt(0.625 * 0.375 / 249) / 0.5  # partial: gpqa alone
    ci = f"[{0.75 - half:.3f}, {0.75 + half:.3f}]"
    assert rows[2] == f"| org/partial | 0.750* | {ci} | yes | 0.750 | - | 0.750 | - | 0.750 | - | math/math_hard/em (not in results) |"
    # 0.275 against the best 0.75: far beyond the noise of either
    assert rows[3].startswith("| org/complete | 0.275 | [0.") and rows[3].endswith("| no | 0.500 | 0.200 | 0.500 | 0.200 | 0.500 | 0.200 | - |")
    assert "* partial" in out
    code, out, _ = run_cli(["scorecard", results, "--config", cfg], capsys)
    assert code == 0 and "0.750*" in out and "org/complete" in out


def test_output_file_atomic(tmp_path, results, capsys):
    cfg = write_config(tmp_path, SMALL)
    target = tmp_path / "o" / "scores.html"
    code, out, _ = run_cli(["scorecard", results, "--config", cfg, "--format", "html", "--output", target], capsys)
    assert code == 0 and out == ""
    assert "<td>org/complete</td><td>0.275</td>" in target.read_text()
    assert [p.name for p in target.parent.iterdir()] == ["scores.html"]


def test_lighteval_results(tmp_path, capsys):
    out = tmp_path / "le"
    write_lighteval_results(out, "org/le-model", {"gpqa:mc|0": {"acc": 0.375}})
    cfg = config_path("llm_benchmarks_scoring.yaml")
    code, text, err = run_cli(["scorecard", out, "--config", cfg, "--format", "json"], capsys)
    assert code == 0, err
    (m,) = json.loads(text)["models"]
    gpqa = m["categories"]["knowledge"]["benchmarks"]["gpqa"]
    assert gpqa["score"] == pytest.approx((0.375 - 0.25) / (0.60 - 0.25))
    assert gpqa["metrics"]["acc_norm"]["source"] == "gpqa:mc|0 -> acc"
    assert m["partial"] and "math/math_hard/exact_match" in m["missing"]


def test_shipped_config_by_name_reproduces_threshold_formula(capsys, tmp_path):
    golden = json.loads(GOLDEN.read_text())
    out = tmp_path / "r"
    write_lm_eval_results(out, lm_eval_body(golden["results"], model="EleutherAI/pythia-410m"))
    code, text, err = run_cli(["scorecard", out, "--format", "json"], capsys)  # default config
    assert code == 0, err
    (m,) = json.loads(text)["models"]
    assert not m["missing"]
    cfg = load_scorecard_config(config_path("llm_benchmarks_scoring.yaml"))
    for spec in cfg.metrics:
        (task, metric) = spec.keys[0]
        got = m["categories"][spec.category]["benchmarks"][spec.benchmark]["metrics"][spec.name]["score"]
        assert got == threshold_score(golden["results"][task][metric], spec.good, spec.bad), spec.path


def test_good_one_bad_chance_reproduces_open_llm_leaderboard(tmp_path, capsys):
    """With good = 1 and bad = the leaderboard's lower bounds, benchmark scores are the
    published normalized columns / 100 (real pythia-410m run)."""
    golden = json.loads(GOLDEN.read_text())
    cfg = yaml.safe_load(config_path("llm_benchmarks_scoring.yaml").read_text())
    for cat in cfg["categories"].values():
        for bench in cat["benchmarks"].values():
            for metric in bench["metrics"].values():
                metric["good"] = 1.0
                keys = metric["key"] if isinstance(metric["key"], list) else [metric["key"]]
                if keys[0]["task"] == "leaderboard_ifeval":
                    metric["bad"] = 0.0
    p = tmp_path / "oll.yaml"
    p.write_text(yaml.safe_dump(cfg))
    out = tmp_path / "r"
    write_lm_eval_results(out, lm_eval_body(golden["results"], model="EleutherAI/pythia-410m"))
    code, text, err = run_cli(["scorecard", out, "--config", p, "--format", "json"], capsys)
    assert code == 0, err
    (m,) = json.loads(text)["models"]
    bench = {name: b["score"] for c in m["categories"].values() for name, b in c["benchmarks"].items()}
    published = golden["published"]
    for ours, theirs in [("ifeval", "IFEval"), ("bbh", "BBH"), ("math_hard", "MATH Lvl 5"), ("gpqa", "GPQA"),
                         ("musr", "MUSR"), ("mmlu_pro", "MMLU-PRO")]:
        assert bench[ours] * 100 == pytest.approx(published[theirs], abs=1e-9), ours


@pytest.mark.slow
def test_real_lm_eval_run_end_to_end(tmp_path, capsys):
    """A real lm-eval evaluation (scripted model, local task) written by lm-eval's tracker."""
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    data = tmp_path / "data.jsonl"
    rows = [{"question": f"q{i}", "choices": ["a", "b"], "label": i % 2} for i in range(4)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "sk_score_mc.yaml").write_text(
        textwrap.dedent(
            f"""\
            task: sk_score_mc
            dataset_path: json
            dataset_kwargs:
              data_files:
                test: {data}
            test_split: test
            output_type: multiple_choice
            doc_to_text: "{{{{question}}}}"
            doc_to_choice: "{{{{choices}}}}"
            doc_to_target: label
            metric_list:
              - metric: acc
                aggregation: mean
                higher_is_better: true
            metadata:
              version: 1.0
            """
        )
    )
    # right on docs 0, 1, 2; wrong on doc 3 -> acc 0.75
    def ll(context, continuation, doc):
        right = doc["choices"][doc["label"]]
        correct = (continuation.strip() == right) != (doc["question"] == "q3")
        return (-0.5 if correct else -3.0, correct)

    lm = ScriptedLM(loglikelihood=ll)
    res = lm_eval.simple_evaluate(model=lm, tasks=["sk_score_mc"], task_manager=TaskManager(include_path=str(tasks), include_defaults=False))
    assert res["results"]["sk_score_mc"]["acc,none"] == 0.75
    res["config"]["model_args"] = "pretrained=scripted/model"
    tracker = EvaluationTracker(output_path=str(tmp_path / "out"))
    tracker.general_config_tracker.log_experiment_args(
        model_source="scripted", model_args="pretrained=scripted/model", system_instruction=None,
        chat_template=None, fewshot_as_multiturn=False,
    )
    tracker.save_results_aggregated(results=res, samples=None)
    cfg = write_config(
        tmp_path,
        """\
        categories:
          c:
            benchmarks:
              mc:
                metrics:
                  acc: {key: {task: sk_score_mc, metric: "acc,none"}, good: 1.0, bad: 0.5}
        """,
    )
    code, out, err = run_cli(["scorecard", tmp_path / "out", "--config", cfg, "--format", "json"], capsys)
    assert code == 0, err
    (m,) = json.loads(out)["models"]
    assert m["overall"] == pytest.approx(0.5) and m["missing"] == {}


# --- custom normalizer ----------------------------------------------------------------------


def _norm_module(tmp_path: Path, body: str) -> str:
    name = f"sk_norm_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    return name


NORM_CONFIG = """\
normalizer: "{spec}"
categories:
  c:
    benchmarks:
      b:
        metrics:
          m: {{key: {{task: leaderboard_gpqa, metric: "acc_norm,none"}}, good: 0.75, bad: 0.25}}
          n:
            key: {{task: leaderboard_math_hard, metric: "exact_match,none"}}
            good: 0.5
            bad: 0.0
            {metric_norm}
"""


def test_custom_normalizer_by_import_path(tmp_path, results, capsys):
    mod = _norm_module(
        tmp_path,
        """\
        def step(value, good, bad):
            return 1.0 if (value >= good if good > bad else value <= good) else 0.0

        def half(value, good, bad):
            return 0.5
        """,
    )
    cfg = write_config(tmp_path, NORM_CONFIG.format(spec=f"{mod}:step", metric_norm=f'normalizer: "{mod}:half"'))
    loaded = load_scorecard_config(cfg, allow_code=True)
    assert loaded.metrics[0].normalizer_name == f"{mod}:step" and loaded.metrics[1].normalizer_name == f"{mod}:half"
    code, out, err = run_cli(["scorecard", results, "--config", cfg, "--format", "json", "--allow-code"], capsys)
    assert code == 0, err
    by = {m["model"]: m for m in json.loads(out)["models"]}
    b = by["org/complete"]["categories"]["c"]["benchmarks"]["b"]
    assert b["metrics"]["m"]["score"] == 0.0  # step: 0.5 < good 0.75 (linear would give 0.5)
    assert b["metrics"]["n"]["score"] == 0.5  # per-metric override
    assert b["score"] == 0.25


@pytest.mark.parametrize(
    "body,message",
    [
        ("def f(v, g, b):\n    return 1.5\n", "returned 1.5, outside [0, 1]"),
        ("def f(v, g, b):\n    return 'high'\n", "returned str 'high', expected a number"),
        ("def f(v, g, b):\n    raise RuntimeError('boom')\n", "raised RuntimeError: boom"),
    ],
)
def test_custom_normalizer_bad_results(tmp_path, results, capsys, body, message):
    mod = _norm_module(tmp_path, body)
    cfg = write_config(tmp_path, NORM_CONFIG.format(spec=f"{mod}:f", metric_norm=""))
    out_file = tmp_path / "x.json"
    code, out, err = run_cli(["scorecard", results, "--config", cfg, "--output", out_file, "--allow-code"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"scorekit: error: {cfg}: ") and message in err
    assert not out_file.exists()


def test_custom_normalizer_none_is_no_score(tmp_path, results, capsys):
    mod = _norm_module(tmp_path, "def f(v, g, b):\n    return None if v < 0.3 else 1.0\n")
    cfg = write_config(tmp_path, NORM_CONFIG.format(spec=f"{mod}:f", metric_norm=""))
    code, out, _ = run_cli(["scorecard", results, "--config", cfg, "--format", "json", "--allow-code"], capsys)
    assert code == 0
    c = {m["model"]: m for m in json.loads(out)["models"]}["org/complete"]
    assert c["missing"] == {"c/b/n": "normalizer gave no score"} and c["overall"] == 1.0 and c["partial"]


@pytest.mark.parametrize(
    "spec,message",
    [
        ("no_such_module_sk_xyz:f", "cannot import normalizer module 'no_such_module_sk_xyz'"),
        ("json:no_such_function", "normalizer module 'json' has no attribute 'no_such_function'"),
        ("json", "must look like 'package.module:function'"),
        ("json:", "must look like 'package.module:function'"),
        ("os:sep", "normalizer 'os:sep' is not callable"),
        ("a b:c", "must look like"),
    ],
)
def test_bad_normalizer_import_path(tmp_path, capsys, spec, message):
    cfg = write_config(tmp_path, NORM_CONFIG.format(spec=spec, metric_norm=""))
    with pytest.raises(ScorekitError) as info:
        load_scorecard_config(cfg)
    assert message in str(info.value)
    assert str(info.value).startswith(f"{cfg}: line 1, normalizer: ")
    (tmp_path / "r.json").write_text(json.dumps({"results": {"t": {"a": 1}}, "versions": {}}))
    code, out, err = run_cli(["scorecard", tmp_path / "r.json", "--config", cfg], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_normalizer_module_failing_at_import(tmp_path):
    mod = _norm_module(tmp_path, "raise ImportError('needs something')\n")
    with pytest.raises(ScorekitError, match="importing normalizer module .* failed: ImportError: needs something"):
        import_normalizer(f"{mod}:f", search_dir=tmp_path, allow_code=True)


# --- config validation ----------------------------------------------------------------------

BASE_METRIC = '{key: {task: t, metric: m}, good: 1.0, bad: 0.0}'

BAD_CONFIGS = [
    ("- a\n- b\n", None, "top level: expected a mapping, got a list"),
    ("name: x\n", None, "missing required key 'categories'"),
    ("", None, "config is empty"),
    ("categories: {}\n", "line 1", "no category defined"),
    ("categories:\n  c:\n    wieght: 2\n    benchmarks: {}\n", "line 3, categories.c.wieght", "unknown key 'wieght'"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t, metric: m}, good: '0.5', bad: 0.0}\n",
     "line 6, categories.c.benchmarks.b.metrics.m.good", "expected a number, got a string '0.5'"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t, metric: m}, good: 1e-3, bad: 0.0}\n",
     "categories.c.benchmarks.b.metrics.m.good", "write it with a decimal point"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t, metric: m}, good: .nan, bad: 0.0}\n",
     "metrics.m.good", "expected a finite number, got nan"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t, metric: m}, good: 1.0, bad: .inf}\n",
     "metrics.m.bad", "expected a finite number, got inf"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t, metric: m}, good: 1.0, bad: 0.0, weight: -1}\n",
     "metrics.m.weight", "weight must be >= 0"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t, metric: m}, good: 1.0, bad: 0.0, weight: true}\n",
     "metrics.m.weight", "expected a number, got a boolean True"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t}, good: 1.0, bad: 0.0}\n",
     "metrics.m.key", "missing required key 'metric'"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: [], good: 1.0, bad: 0.0}\n",
     "metrics.m.key", "key list is empty"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: 3, metric: m}, good: 1.0, bad: 0.0}\n",
     "metrics.m.key.task", "expected a non-empty string, got 3"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t, metric: m}, bad: 0.0}\n",
     "line 6, categories.c.benchmarks.b.metrics.m", "missing required key 'good'"),
    (f"categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {BASE_METRIC}\n          m: {BASE_METRIC}\n",
     "line 7", "duplicate key 'm' (first at line 6)"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t, metric: m}, good: 1.0, bad: 0.0, weight: 0}\n",
     "line 4, categories.c.benchmarks.b", "every metric weight is 0"),
    (f"categories:\n  c:\n    weight: 0\n    benchmarks:\n      b:\n        metrics:\n          m: {BASE_METRIC}\n",
     "categories", "every category weight is 0"),
    (f"categories:\n  c:\n    benchmarks:\n      b:\n        weight: 0\n        metrics:\n          m: {BASE_METRIC}\n",
     "line 2, categories.c", "every benchmark weight is 0"),
    (f"categories:\n  a/b:\n    benchmarks:\n      b:\n        metrics:\n          m: {BASE_METRIC}\n",
     "categories.a/b", "must not contain '/'"),
    (f"categories:\n  c:\n    benchmarks:\n      b:\n        metrics: [1, 2]\n", "categories.c.benchmarks.b.metrics",
     "expected a mapping of metric names, got a list"),
    ("categories:\n  c:\n    benchmarks:\n      b: {metrics: {m: {key: {task: t, metric: m}, good: 1.0, bad: 0.0}}\n",
     "line 5 column 1", "(while parsing a flow mapping started at line 4)"),
    ("categories:\n  c: [\n", "line 3 column", "invalid YAML"),
    ("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n          m: {key: {task: t, metric: m}, good: 1.0, bad: 0.0, unit: 5}\n",
     "metrics.m.unit", "expected a string, got int"),
]


@pytest.mark.parametrize("text,where,message", BAD_CONFIGS)
def test_config_rejections(tmp_path, capsys, text, where, message):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text, encoding="utf-8")
    with pytest.raises(ScorekitError) as info:
        load_scorecard_config(cfg)
    msg = str(info.value)
    assert msg.startswith(f"{cfg}: "), msg
    if where:
        assert where in msg, msg
    assert message in msg, msg
    # the CLI: exit 2, one line, no traceback, no output file
    (tmp_path / "r.json").write_text(json.dumps({"results": {"t": {"m": 0.5}}, "versions": {}}))
    out_file = tmp_path / "scores.csv"
    code, out, err = run_cli(["scorecard", tmp_path / "r.json", "--config", cfg, "--output", out_file], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("scorekit: error: ") and message in err
    assert not out_file.exists()


def test_shipped_config_is_valid():
    cfg = load_scorecard_config(config_path("llm_benchmarks_scoring.yaml"))
    assert [c.name for c in cfg.categories] == ["knowledge", "reasoning", "math", "instruction_following"]
    assert {b.name for b in cfg.benchmarks} == {"mmlu_pro", "gpqa", "bbh", "musr", "math_hard", "ifeval"}
    assert all(0.0 <= m.bad < m.good <= 1.0 for m in cfg.metrics)
    bbh = next(b for b in cfg.benchmarks if b.name == "bbh")
    assert len(bbh.metrics) == 24
    assert next(m for m in bbh.metrics if m.name == "object_counting").bad == 1 / 19


# --- bad results input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "content,message",
    [
        ('{"results": {"leaderboard_gpqa": {"acc_norm,none": "N/A"}}, "versions": {}}',
         r"results\['leaderboard_gpqa'\]\['acc_norm,none'\] is not a number: 'N/A'"),
        ('{"results": {"leaderboard_gpqa": {"acc_norm,none": true}}, "versions": {}}', "is not a number: True"),
        ('{"results": {"leaderboard_gpqa": {"acc_norm,none": 0.5,}}, "versions": {}}', r"line 1 column \d+: invalid JSON"),
        ('{"results": {"leaderboard_gpqa": 3}, "versions": {}}', "expected a mapping of metrics"),
        ('{"results": {}, "versions": {}}', "no task results"),
        ("[]", "not an lm-eval or lighteval results file"),
    ],
)
def test_bad_results_files(tmp_path, capsys, content, message):
    cfg = write_config(tmp_path, SMALL)
    bad = tmp_path / "results_bad.json"
    bad.write_text(content)
    out_file = tmp_path / "o.json"
    code, out, err = run_cli(["scorecard", bad, "--config", cfg, "--output", out_file], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"scorekit: error: {bad}: ") and re.search(message, err), err
    assert not out_file.exists()


def test_nan_result_value_is_flagged_not_zero(tmp_path, capsys):
    cfg = write_config(tmp_path, SMALL)
    f = tmp_path / "results_nan.json"
    f.write_text('{"results": {"leaderboard_gpqa": {"acc_norm,none": NaN}, "leaderboard_math_hard": '
                 '{"exact_match,none": 0.25}}, "versions": {}, "model_name": "m"}')
    code, out, err = run_cli(["scorecard", f, "--config", cfg, "--format", "json"], capsys)
    assert code == 0, err
    (m,) = json.loads(out)["models"]
    assert m["missing"] == {"knowledge/gpqa/acc_norm": "value is NaN"}
    assert m["overall"] == 0.5 and m["partial"]  # math alone, never a silent 0 for gpqa


def test_empty_and_unmatched_inputs(tmp_path, capsys):
    cfg = write_config(tmp_path, SMALL)
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run_cli(["scorecard", empty, "--config", cfg], capsys)
    assert code == 2 and "no lm-eval or lighteval results files found" in err and err.count("\n") == 1
    code, _, err = run_cli(["scorecard", tmp_path / "nope", "--config", cfg], capsys)
    assert code == 2 and "no such file or directory" in err
    f = tmp_path / "results_x.json"
    f.write_text('{"results": {"other": {"acc,none": 0.5}}, "versions": {}}')
    code, _, err = run_cli(["scorecard", f, "--config", cfg], capsys)
    assert code == 2 and f"{cfg}: none of the config's metrics was found" in err
    code, _, err = run_cli(["scorecard", f, "--config", tmp_path / "missing.yaml"], capsys)
    assert code == 2 and "config file not found" in err


def test_infinite_value_scores_and_is_written_as_string(tmp_path, capsys):
    cfg = write_config(tmp_path, SMALL)
    f = tmp_path / "results_inf.json"
    f.write_text('{"results": {"leaderboard_gpqa": {"acc_norm,none": Infinity}, "leaderboard_math_hard": '
                 '{"exact_match,none": 0.25}}, "versions": {}, "model_name": "m"}')
    code, out, err = run_cli(["scorecard", f, "--config", cfg, "--format", "json"], capsys)
    assert code == 0, err
    (m,) = json.loads(out)["models"]
    gpqa = m["categories"]["knowledge"]["benchmarks"]["gpqa"]["metrics"]["acc_norm"]
    assert gpqa["value"] == "inf" and gpqa["score"] == 1.0 and m["overall"] == pytest.approx((1.0 + 3 * 0.5) / 4)


def test_unwritable_output_is_one_line_error(tmp_path, results, capsys):
    cfg = write_config(tmp_path, SMALL)
    target = tmp_path / "dir"
    target.mkdir()
    code, out, err = run_cli(["scorecard", results, "--config", cfg, "--output", target], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "cannot write output" in err
    assert list(target.iterdir()) == []
