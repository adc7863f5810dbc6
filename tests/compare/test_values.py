"""The values report of `scorekit compare` (one RUN, or --values): each run's own value of every
metric with its interval over questions, on samples logs written by the real lm-eval with
scripted models. The corpus G-Pass@k / mG-Pass@k / pass@k values are checked against the
formulas applied to the scripted correct counts, their intervals against a bootstrap over
questions written here by index resampling (a different algorithm from scorekit's multinomial
draws, so they agree to Monte-Carlo error), and against lm-eval's own stderr."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from scorekit.cli import main
from tests.compare.test_compare_e2e import N_DOCS, RIGHT, lm_eval_runs  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow

Q, N_SAMPLES = 50, 8


def _correct_count(i: int) -> int:
    return (i * 7) % (N_SAMPLES + 1)


def _hypergeom_tail(c: int, k: int, at_least: int) -> float:
    return sum(math.comb(c, j) * math.comb(N_SAMPLES - c, k - j) for j in range(at_least, k + 1)) / math.comb(N_SAMPLES, k)


@pytest.fixture(scope="module")
def gpass_run(tmp_path_factory):
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM
    from tests.support.sampling_task import write_sampling_task

    tmp = tmp_path_factory.mktemp("values_gpass")
    tasks = write_sampling_task(tmp, "sk_values", n_docs=Q, n_samples=N_SAMPLES, metric_list="""\
          - metric: g_pass_at_k
            k: 4
            tau: [0.5, 1.0]
          - metric: mg_pass_at_k
            k: 4
          - metric: pass_at_k
            k: 2
    """)

    def generate(context, gen_kwargs, doc):
        c = _correct_count(doc["i"])
        return [doc["answer"]] * c + ["wrong"] * (N_SAMPLES - c)

    out = tmp / "out"
    tracker = EvaluationTracker(output_path=str(out))
    results = lm_eval.simple_evaluate(
        model=ScriptedLM(generate=generate), model_args="pretrained=acme/sampler", tasks=["sk_values"],
        task_manager=TaskManager(include_path=str(tasks), include_defaults=False), evaluation_tracker=tracker,
        log_samples=True, random_seed=0,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name="sk_values", samples=samples["sk_values"])
    (folder,) = {p.parent for p in out.rglob("samples_sk_values_*.jsonl")}
    return folder, results["results"]["sk_values"]


def _index_bootstrap(values: np.ndarray, n_boot: int = 20000, seed: int = 12345) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    draws = values[rng.integers(0, len(values), size=(n_boot, len(values)))].mean(axis=1)
    return float(np.quantile(draws, 0.025)), float(np.quantile(draws, 0.975))


def test_gpass_corpus_values_with_bootstrap_intervals(gpass_run, capsys):
    folder, lm_results = gpass_run
    assert main(["compare", str(folder), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["comparisons"] == []
    shown = {v["metric"]: v for v in doc["values"]}
    counts = [_correct_count(i) for i in range(Q)]
    expected = {
        "g-pass@4_0.5,all": [_hypergeom_tail(c, 4, 2) for c in counts],
        "g-pass@4_1.0,all": [_hypergeom_tail(c, 4, 4) for c in counts],
        "mg-pass@4,all": [(2 / 4) * sum(_hypergeom_tail(c, 4, j) for j in (3, 4)) for c in counts],
        "pass@2,all": [_hypergeom_tail(c, 2, 1) for c in counts],
    }
    for metric, per_question in expected.items():
        v = np.array(per_question)
        row = shown[metric]
        assert (row["run"], row["model"], row["task"], row["n"]) == ("acme/sampler", "acme/sampler", "sk_values", Q)
        assert row["method"] == "bootstrap" and row["kind"] == "mean"
        assert row["value"] == pytest.approx(v.mean(), abs=1e-12), metric
        name, filt = metric.split(",")
        assert row["value"] == pytest.approx(lm_results[f"{name},{filt}"], abs=1e-12)
        lo, hi = _index_bootstrap(v)
        se = lm_results[f"{name}_stderr,{filt}"]
        assert se == pytest.approx(v.std(ddof=1) / math.sqrt(Q), rel=1e-9)
        # Monte-Carlo error of 2000 draws and the expanded tails: within 0.3 stderr
        assert row["ci_low"] == pytest.approx(lo, abs=0.3 * se) and row["ci_high"] == pytest.approx(hi, abs=0.3 * se)
        assert row["ci_low"] < row["value"] < row["ci_high"]


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "html", "latex"])
def test_values_in_every_format(gpass_run, capsys, fmt):
    folder, _ = gpass_run
    assert main(["compare", str(folder), "--format", fmt]) == 0
    text = capsys.readouterr().out
    if fmt == "csv":
        import csv
        import io

        header, *rows = csv.reader(io.StringIO(text))
        assert header == ["task", "metric", "run", "model", "n", "value", "ci_low", "ci_high", "method", "kind", "note"]
        row = next(r for r in rows if r[1] == "g-pass@4_0.5,all")
        assert float(row[6]) < float(row[5]) < float(row[7])
    else:
        name = "g-pass@4\\_0.5,all" if fmt == "latex" else "g-pass@4_0.5,all"
        assert name in text and "bootstrap" in text and "[0." in text
    if fmt == "latex":
        assert "\\toprule" in text


def test_values_of_several_runs_wilson_for_accuracy(lm_eval_runs, capsys):  # noqa: F811
    from scorekit.metrics.intervals import wilson_interval

    args = [str(lm_eval_runs["acme/strong"]), str(lm_eval_runs["acme/weak"])]
    assert main(["compare", *args, "--values", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["comparisons"]  # JSON holds both lists
    rows = [v for v in doc["values"] if v["metric"] == "acc,none"]
    assert [v["run"] for v in rows] == ["acme/strong", "acme/weak"]
    for v in rows:
        right = sum(RIGHT[v["run"]](i) for i in range(N_DOCS))
        assert v["value"] == pytest.approx(right / N_DOCS) and v["method"] == "wilson" and v["n"] == N_DOCS
        assert (v["ci_low"], v["ci_high"]) == pytest.approx(wilson_interval(right, N_DOCS), abs=1e-12)
    assert main(["compare", *args, "--values"]) == 0
    assert "Values on each run's questions" in capsys.readouterr().out
