"""`scorekit plan` and scorekit.compare.power: closed forms (Connor 1987, the normal paired-t size),
exact power against a brute-force enumeration written here, simulated power at the planned size,
the command's interfaces, a pilot from two real lm-eval runs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom

from scorekit.cli import main
from scorekit.compare import power as pw
from tests.compare.test_compare_e2e import N_DOCS, RIGHT, lm_eval_runs  # noqa: F401  (module fixture)


def _power_by_enumeration(n: int, delta: float, psi: float, alpha: float = 0.05) -> float:
    """Sum over every (n10, n01) of the multinomial probability of the cells the exact McNemar
    test (minlike two-sided binomial sum, computed with math.comb) rejects."""
    p10, p01 = (psi + delta) / 2, (psi - delta) / 2
    total = 0.0
    for n10 in range(n + 1):
        for n01 in range(n - n10 + 1):
            nd = n10 + n01
            pmf = [math.comb(nd, i) / 2**nd for i in range(nd + 1)]
            p = 1.0 if nd == 0 else min(1.0, sum(q for q in pmf if q <= pmf[n10] * (1 + 1e-7)))
            if p <= alpha:
                total += (math.comb(n, n10) * math.comb(n - n10, n01) * p10**n10 * p01**n01
                          * (1 - psi) ** (n - nd))
    return total


@pytest.mark.parametrize("n,delta,psi", [(30, 0.2, 0.3), (40, 0.1, 0.25), (25, 0.0, 0.4), (35, 0.3, 0.3)])
def test_exact_power_matches_the_enumeration(n, delta, psi):
    assert pw.mcnemar_power(n, delta, psi) == pytest.approx(_power_by_enumeration(n, delta, psi), abs=1e-9)


def test_connor_closed_form():
    za, zb = 1.959963984540054, 0.8416212335729143
    for delta, psi in [(0.05, 0.2), (0.02, 0.1), (0.1, 0.15)]:
        expected = (za * math.sqrt(psi) + zb * math.sqrt(psi - delta**2)) ** 2 / delta**2
        assert pw.connor_sample_size(delta, psi) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("delta,psi", [(0.05, 0.2), (0.1, 0.15), (0.2, 0.25)])
def test_planned_size_is_the_smallest_with_the_power_and_simulation_agrees(delta, psi):
    n, achieved, connor = pw.mcnemar_sample_size(delta, psi)
    assert achieved >= 0.8 > pw.mcnemar_power(n - 1, delta, psi)
    assert n >= connor * 0.95  # Connor's approximation is close, a little optimistic
    rng = np.random.default_rng(1)
    cells = rng.multinomial(n, [(psi + delta) / 2, (psi - delta) / 2, 1 - psi], size=4000)
    nd = cells[:, 0] + cells[:, 1]
    p = np.where(nd > 0, np.minimum(1, 2 * binom.cdf(cells[:, :2].min(axis=1), nd, 0.5)), 1.0)
    assert abs(float(np.mean(p <= 0.05)) - 0.8) <= 0.03


def test_mdd_inverts_the_sample_size():
    n, _, _ = pw.mcnemar_sample_size(0.05, 0.2)
    d = pw.mcnemar_mdd(n, 0.2)
    assert d <= 0.05 and pw.mcnemar_power(n, d, 0.2) >= 0.8
    assert math.isnan(pw.mcnemar_mdd(10, 0.05))  # 10 questions, 5% discordant: nothing detectable


def test_paired_t_against_the_normal_closed_form():
    n, achieved, normal = pw.paired_t_sample_size(0.1, 0.5)
    assert normal == pytest.approx((1.959963984540054 + 0.8416212335729143) ** 2 * 25, rel=1e-12)
    assert achieved >= 0.8 > pw.paired_t_power(n - 1, 0.1, 0.5) and n - math.ceil(normal) in range(0, 5)
    rng = np.random.default_rng(2)
    d = rng.normal(0.1, 0.5, (4000, n))
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
    from scipy.stats import t as student

    assert abs(float(np.mean(np.abs(t) > student.ppf(0.975, n - 1))) - 0.8) <= 0.03
    assert pw.paired_t_mdd(n, 0.5) <= 0.1


def _plan(capsys, args):
    assert main(["plan", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_command_interfaces(capsys):
    out = _plan(capsys, ["--difference", "0.05", "--discordance", "0.2"])
    assert out["questions"] == pw.mcnemar_sample_size(0.05, 0.2)[0] and out["test"] == "mcnemar_exact"
    out = _plan(capsys, ["--questions", "600", "--discordance", "0.2", "--alpha", "0.01", "--power", "0.9"])
    assert out["min_detectable_difference"] == pytest.approx(pw.mcnemar_mdd(600, 0.2, 0.01, 0.9))
    # accuracies 0.8 / 0.75 with phi 0.5: P(both right) = 0.6 + 0.5 sqrt(.16 * .1875)
    both = 0.6 + 0.5 * math.sqrt(0.16 * 0.1875)
    out = _plan(capsys, ["--accuracies", "0.8", "0.75", "--correlation", "0.5", "--questions", "1000"])
    assert out["discordance"] == pytest.approx(1.55 - 2 * both)
    out = _plan(capsys, ["--difference", "0.1", "--sd", "0.5"])
    assert out["questions"] == pw.paired_t_sample_size(0.1, 0.5)[0] and out["test"] == "paired_t"


def test_accuracies_with_a_difference_or_questions_as_docs_plan_md_writes_them(capsys):
    """`--accuracies A B --correlation R (--difference D | --questions N)`: A, B and R give the
    discordance; D is A - B unless --difference names another target."""
    pa, pb, r = 0.8, 0.75, 0.5
    psi = pa + pb - 2 * (pa * pb + r * math.sqrt(pa * (1 - pa) * pb * (1 - pb)))
    out = _plan(capsys, ["--accuracies", "0.8", "0.75", "--correlation", "0.5", "--difference", "0.02"])
    assert out["discordance"] == pytest.approx(psi) and out["difference"] == 0.02
    assert out["questions"] == pw.mcnemar_sample_size(0.02, psi)[0]
    out = _plan(capsys, ["--accuracies", "0.8", "0.75", "--correlation", "0.5"])
    assert out["difference"] == 0.05 and out["questions"] == pw.mcnemar_sample_size(0.05, psi)[0]
    out = _plan(capsys, ["--accuracies", "0.8", "0.75", "--correlation", "0.5", "--questions", "1000"])
    assert out["min_detectable_difference"] == pytest.approx(pw.mcnemar_mdd(1000, psi)) and out["at_questions"] == 1000
    assert out["questions"] == pw.mcnemar_sample_size(0.05, psi)[0]
    assert out["power_at_questions"] == pytest.approx(pw.mcnemar_power(1000, 0.05, psi))


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "json", "html", "latex"])
def test_every_format_of_the_other_commands(capsys, fmt):
    import csv
    import io

    assert main(["plan", "--difference", "0.05", "--discordance", "0.2", "--format", fmt]) == 0
    text = capsys.readouterr().out
    if fmt == "csv":
        rows = dict(csv.reader(io.StringIO(text)))
        assert rows["questions"] == "658" and rows["quantity"] == "value"
    elif fmt == "json":
        assert json.loads(text)["questions"] == 658
    else:
        assert "658" in text and ("</html>" in text) == (fmt == "html") and (r"\toprule" in text) == (fmt == "latex")


@pytest.mark.parametrize("args,needle", [
    (["--difference", "0.3", "--discordance", "0.2"], "cannot exceed the discordance"),
    (["--difference", "0.05", "--discordance", "1.5"], "--discordance must be a fraction"),
    (["--difference", "0.05"], "give --discordance"),
    (["--discordance", "0.2"], "give --difference"),
    (["--accuracies", "0.9", "0.1", "--correlation", "0.9", "--questions", "100"], "impossible"),
    (["--accuracies", "0.8", "0.7", "--difference", "0.05"], "--accuracies needs --correlation"),
    (["--correlation", "0.5", "--discordance", "0.2", "--difference", "0.05"], "--correlation goes with --accuracies"),
    (["--accuracies", "0.8", "0.7", "--correlation", "0.5", "--discordance", "0.2"], "leave out --discordance"),
    (["--accuracies", "0.8", "0.7", "--correlation", "1.5"], "--correlation must be between -1 and 1"),
])
def test_bad_arguments_are_one_line(capsys, args, needle):
    assert main(["plan", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("scorekit: error:") and needle in err


@pytest.mark.slow
def test_pilot_from_two_lm_eval_runs(lm_eval_runs, capsys):  # noqa: F811
    out = _plan(capsys, ["--pilot", str(lm_eval_runs["acme/strong"]), str(lm_eval_runs["acme/weak"])])
    a = np.array([RIGHT["acme/strong"](i) for i in range(N_DOCS)])
    b = np.array([RIGHT["acme/weak"](i) for i in range(N_DOCS)])
    psi, delta = float(np.mean(a != b)), float(a.mean() - b.mean())
    assert out["pilot"]["n_paired"] == N_DOCS and out["pilot"]["metric"] == "acc,none"
    assert out["discordance"] == pytest.approx(psi) and out["difference"] == pytest.approx(delta)
    assert out["questions"] == pw.mcnemar_sample_size(delta, psi)[0]
    assert out["min_detectable_difference"] == pytest.approx(pw.mcnemar_mdd(N_DOCS, psi)) and out["at_questions"] == N_DOCS
    # the same as compare's min_detectable_difference of that pair
    assert main(["compare", str(lm_eval_runs["acme/strong"]), str(lm_eval_runs["acme/weak"]), "-f", "json"]) == 0
    (c,) = [c for c in json.loads(capsys.readouterr().out)["comparisons"] if c["metric"] == "acc,none"]
    assert c["min_detectable_difference"] == pytest.approx(out["min_detectable_difference"])


def _sampler_run(tmp: Path, name: str, count) -> Path:
    """A real lm-eval run of a sampling task (8 samples per question, ``count(i)`` right)."""
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM
    from tests.support.sampling_task import write_sampling_task

    (tmp / name).mkdir()
    tasks = write_sampling_task(tmp / name, "sk_plan", n_docs=40, n_samples=8, metric_list="""\
          - metric: pass_at_k
            k: 2
    """)

    def generate(context, gen_kwargs, doc):
        return [doc["answer"]] * count(doc["i"]) + ["wrong"] * (8 - count(doc["i"]))

    out = tmp / name / "out"
    tracker = EvaluationTracker(output_path=str(out))
    results = lm_eval.simple_evaluate(
        model=ScriptedLM(generate=generate), model_args=f"pretrained=acme/{name}", tasks=["sk_plan"],
        task_manager=TaskManager(include_path=str(tasks), include_defaults=False), evaluation_tracker=tracker,
        log_samples=True, random_seed=0,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name="sk_plan", samples=samples["sk_plan"])
    (folder,) = {p.parent for p in out.rglob("samples_sk_plan_*.jsonl")}
    return folder


@pytest.mark.slow
def test_pilot_of_a_per_question_score_uses_the_paired_t(tmp_path, capsys):
    """pass@2 per question (8 samples, c right: 1 - C(8-c, 2)/C(8, 2)) of two real runs: the sd
    of the per-question differences and the paired-t size computed here from the formula."""
    count_a, count_b = (lambda i: (i * 7) % 9), (lambda i: (i * 5) % 9)
    a, b = _sampler_run(tmp_path, "a", count_a), _sampler_run(tmp_path, "b", count_b)
    assert main(["compare", str(a), str(b), "-f", "json"]) == 0
    (c,) = [c for c in json.loads(capsys.readouterr().out)["comparisons"] if c["kind"] == "mean"]
    out = _plan(capsys, ["--pilot", str(a), str(b), "--metric", c["metric"], "--difference", "0.05"])

    def pass2(cnt):
        return 1 - math.comb(8 - cnt, 2) / math.comb(8, 2)

    d = np.array([pass2(count_a(i)) - pass2(count_b(i)) for i in range(40)])
    assert out["test"] == "paired_t" and out["sd"] == pytest.approx(d.std(ddof=1), rel=1e-9)
    assert out["questions"] == pw.paired_t_sample_size(0.05, d.std(ddof=1))[0]
    assert out["min_detectable_difference"] == pytest.approx(pw.paired_t_mdd(40, d.std(ddof=1)))
