"""A stderr lm-eval writes as "N/A" (IFEval's instruction level) computed from the run's samples
log: the formula against independent computations, its coverage on simulated IFEval-shaped data,
and `scorekit leaderboard` / `scorekit scorecard` on runs written by real lm-eval versions (corpus)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from scorekit.cli import main
from scorekit.metrics.intervals import clustered_stderr, z_value

CORPUS = Path(__file__).resolve().parents[1] / "conformance" / "corpus"
# every corpus version whose leaderboard run wrote "N/A" for the instruction level next to a samples log
VERSIONS = ["lm-eval-0.4.5", "lm-eval-0.4.7", "lm-eval-0.4.9", "lm-eval-0.4.11", "lm-eval-0.4.13"]


def _run_folder(version: str) -> Path:
    (folder,) = [p.parent for p in (CORPUS / version / "leaderboard").glob("*/results_*.json")]
    return folder


def _ratio_se_by_hand(docs: list[list[bool]]) -> tuple[float, float]:
    """Ratio estimator over documents, written out the textbook way: Var(R) ~ s_d^2 / (n kbar^2)."""
    c = np.array([sum(d) for d in docs], dtype=float)
    k = np.array([len(d) for d in docs], dtype=float)
    r = c.sum() / k.sum()
    s2 = np.var(c - r * k, ddof=1)
    return r, math.sqrt(s2 / (len(docs) * k.mean() ** 2))


def test_numbers_give_lm_evals_mean_stderr():
    from lm_eval.api.metrics import mean_stderr

    rng = np.random.default_rng(3)
    x = list((rng.random(57) < 0.4).astype(int))
    value, se = clustered_stderr(x)
    assert value == pytest.approx(np.mean(x), abs=1e-15)
    assert se == pytest.approx(mean_stderr(x), rel=1e-12)


def test_lists_give_the_ratio_estimators_stderr():
    rng = np.random.default_rng(4)
    docs = [list(rng.random(rng.integers(1, 4)) < 0.7) for _ in range(40)]
    value, se = clustered_stderr(docs)
    r, se_hand = _ratio_se_by_hand(docs)
    assert value == pytest.approx(r, abs=1e-15)
    assert se == pytest.approx(se_hand, rel=1e-12)


def test_edge_cases():
    assert math.isnan(clustered_stderr([])[0])
    value, se = clustered_stderr([[True, False]])
    assert value == 0.5 and math.isnan(se)  # one document: no stderr
    assert clustered_stderr([[], [True], [False]]) == clustered_stderr([[True], [False]])  # empty lists left out
    assert clustered_stderr([[1, 1], [1]])[1] == 0.0


def test_coverage_on_ifeval_shaped_data():
    """541 prompts with 1-3 instructions each, instructions of one prompt correlated (a prompt
    effect): the 95% interval value -/+ z se covers the true instruction-level accuracy >= 93%."""
    rng = np.random.default_rng(11)
    n_prompts, runs, z = 541, 400, z_value(0.95)
    k = rng.choice([1, 2, 3], size=n_prompts, p=[0.55, 0.35, 0.10])
    # population: per-prompt success probability from a logit prompt effect; the truth is the
    # expected pooled instruction accuracy over prompts drawn this way (large sample)
    def draw(n):
        kk = rng.choice([1, 2, 3], size=n, p=[0.55, 0.35, 0.10])
        p = 1 / (1 + np.exp(-(1.0 + 1.5 * rng.standard_normal(n))))
        return kk, p
    kk, pp = draw(2_000_000)
    truth = float((kk * pp).sum() / kk.sum())
    covered = 0
    for _ in range(runs):
        k, p = draw(n_prompts)
        docs = [list(rng.random(ki) < pi) for ki, pi in zip(k, p)]
        value, se = clustered_stderr(docs)
        covered += abs(value - truth) <= z * se
    assert covered / runs >= 0.93, covered / runs


@pytest.mark.parametrize("version", VERSIONS)
def test_leaderboard_computes_ifeval_stderr_from_the_samples_log(version, tmp_path, capsys):
    folder = _run_folder(version)
    results = json.loads(next(folder.glob("results_*.json")).read_text())
    assert results["results"]["leaderboard_ifeval"]["inst_level_strict_acc_stderr,none"] == "N/A"
    (samples,) = folder.glob("samples_leaderboard_ifeval_*.jsonl")
    rows = [json.loads(line) for line in samples.read_text().splitlines() if line.strip()]
    r, se_inst = _ratio_se_by_hand([row["inst_level_strict_acc"] for row in rows])
    assert r == pytest.approx(results["results"]["leaderboard_ifeval"]["inst_level_strict_acc,none"])
    se_prompt = results["results"]["leaderboard_ifeval"]["prompt_level_strict_acc_stderr,none"]

    out = tmp_path / "lb.json"
    assert main(["leaderboard", str(folder), "--format", "json", "--output", str(out)]) == 0
    (row,) = json.loads(out.read_text())["models"]
    # IFEval is mean_raw of the prompt and instruction level: mean(se) * 100 (lower 0)
    assert row["stderr"]["IFEval"] == pytest.approx((se_prompt + se_inst) / 2 * 100, rel=1e-12)
    assert row["scores_ci_low"]["IFEval"] is not None
    err = capsys.readouterr().err
    assert f"inst_level_strict_acc_stderr,none computed from {samples}" in err
    assert "no usable inst_level_strict_acc_stderr" not in err


def _copy_run(tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(_run_folder("lm-eval-0.4.13"), dst)
    return dst


def _ifeval(out: Path) -> tuple[float | None, str | None]:
    (row,) = json.loads(out.read_text())["models"]
    return row["stderr"]["IFEval"], row["scores_ci_low"]["IFEval"]


def test_without_samples_log_the_interval_stays_unknown(tmp_path, capsys):
    run = _copy_run(tmp_path)
    for p in run.glob("samples_leaderboard_ifeval_*.jsonl"):
        p.unlink()
    out = tmp_path / "lb.json"
    assert main(["leaderboard", str(run), "--format", "json", "--output", str(out)]) == 0
    assert _ifeval(out) == (None, None)
    assert "no usable inst_level_strict_acc_stderr,none, no samples log of the run" in capsys.readouterr().err


def test_samples_of_other_documents_are_not_used(tmp_path, capsys):
    run = _copy_run(tmp_path)
    (samples,) = run.glob("samples_leaderboard_ifeval_*.jsonl")
    rows = [json.loads(line) for line in samples.read_text().splitlines() if line.strip()]
    rows[0]["inst_level_strict_acc"] = [not x for x in rows[0]["inst_level_strict_acc"]]  # not what the results say
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "lb.json"
    assert main(["leaderboard", str(run), "--format", "json", "--output", str(out)]) == 0
    assert _ifeval(out) == (None, None)
    assert "not the same documents; the stderr was not computed" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["bad json", "repeated doc", "text value"])
def test_a_damaged_samples_log_is_named_not_fatal(damage, tmp_path, capsys):
    run = _copy_run(tmp_path)
    (samples,) = run.glob("samples_leaderboard_ifeval_*.jsonl")
    lines = samples.read_text().splitlines()
    if damage == "bad json":
        lines[1] = lines[1][:-5]
    elif damage == "repeated doc":
        lines.append(lines[0])
    else:
        row = json.loads(lines[0])
        row["inst_level_strict_acc"] = ["yes"]
        lines[0] = json.dumps(row)
    samples.write_text("\n".join(lines) + "\n")
    out = tmp_path / "lb.json"
    assert main(["leaderboard", str(run), "--format", "json", "--output", str(out)]) == 0
    assert _ifeval(out) == (None, None)
    err = capsys.readouterr().err
    assert str(samples) in err and "the stderr was not computed" in err


def test_score_uses_the_same_stderr(tmp_path, capsys):
    folder = _run_folder("lm-eval-0.4.13")
    (samples,) = folder.glob("samples_leaderboard_ifeval_*.jsonl")
    rows = [json.loads(line) for line in samples.read_text().splitlines() if line.strip()]
    _, se_inst = _ratio_se_by_hand([row["inst_level_strict_acc"] for row in rows])
    config = tmp_path / "ifeval.yaml"
    config.write_text(
        "name: instruction level only\n"
        "categories:\n"
        "  following:\n"
        "    benchmarks:\n"
        "      ifeval:\n"
        "        metrics:\n"
        "          inst:\n"
        "            key: [{task: leaderboard_ifeval, metric: \"inst_level_strict_acc,none\"}]\n"
        "            good: 0.9\n"
        "            bad: 0.1\n"
    )
    out = tmp_path / "score.json"
    assert main(["scorecard", str(folder), "--config", str(config), "--format", "json", "--output", str(out)]) == 0
    (model,) = json.loads(out.read_text())["models"]
    assert model["overall_stderr"] == pytest.approx(se_inst / 0.8, rel=1e-12)
    assert "inst_level_strict_acc_stderr,none computed from" in capsys.readouterr().err


def test_a_score_log_is_read_to_its_first_line_only(tmp_path, capsys):
    """SCORE tasks write "N/A" stderr and a record per document: the first line tells the
    record is no number, so a (possibly 1 GB) log is not read on for nothing."""
    run = tmp_path / "run"
    shutil.copytree(CORPUS / "lm-eval-0.4.13" / "score-scorekit", run)
    logs = sorted(run.glob("*/samples_prompt_robustness_agieval_sat_math_*.jsonl"))
    assert logs
    for log in logs:  # the second line and every later one unreadable: reading on would say so
        lines = log.read_text().splitlines()
        log.write_text("\n".join(lines[:1] + ["{broken"] * len(lines[1:])) + "\n")
    config = Path(__file__).resolve().parents[2] / "configs" / "score_demo_normalization.yaml"
    assert main(["leaderboard", str(run), "--config", str(config), "--format", "json",
                 "--output", str(tmp_path / "lb.json"), "-v"]) == 0  # -v: each metric's note
    err = capsys.readouterr().err
    assert "no usable 0_accuracy_stderr,none, its per-document value is not a number or a list of 0/1 items" in err
    assert "unreadable" not in err and "invalid JSON" not in err
