"""``scorekit compare`` on budgeted lighteval runs (issue 32, item 3): two runs of one budgeted
variants module (``local_budget``, 30 rows, prompt family of 5 templates and option order of 4
arrangements, 2 per question, seed 3), made by the real lighteval CLI with two scripted models
that differ (robust_scripted_model.py, the second salted by ``$SCOREKIT_ROBUST_SALT``), compared
at family level as budgeted lm-eval runs are (tests/robustness/test_budget_cli.py holds the
lm-eval route to the same contract): ``<variant>_accuracy`` on the questions the design gives
that variant (exact McNemar), ``accuracy`` as each question's mean over its B variants (paired
bootstrap), the consistency rate over each question's B answers; the spread not compared, with a
note. Runs of another seed, or a full run beside a budgeted one: one line, exit 2, nothing written.

The expected numbers are computed here from the details files alone: the option each row's
log-likelihoods pick (its label read back to the option text in the query) and the row's gold."""

from __future__ import annotations

import json
import re
import subprocess
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from tests.lighteval.conftest import run_lighteval
from tests.lighteval.test_task_variants_budget import (B, LOCAL_TASKS, MODEL, N, SEED, TASK, TEMPLATES, V, one_line,
                                                       scorekit)

pytestmark = pytest.mark.slow

CR = {"prompt": "consistency_rate", "option_order": "options_consistency_rate"}


def _variant_metric(fam: str, v: int) -> str:
    return f"{v}_accuracy" if fam == "prompt" else f"per_option_accuracy_{'ABCD'[v]}"


def _write(tmp: Path, name: str, families: list[str], env: dict, *budget: str) -> Path:
    """``scorekit variants --harness lighteval`` for ``local_budget``; the module written."""
    templates = tmp / "templates.yml"
    templates.write_text("".join(f"- {json.dumps(t)}\n" for t in TEMPLATES))
    fams = [a for f in families for a in ("--family", f)]
    if "prompt" in families:
        fams += ["--templates", str(templates)]
    proc = scorekit("variants", "local_budget", *fams, "--harness", "lighteval",
                    "--custom-tasks", str(LOCAL_TASKS), *budget, "--output-dir", str(tmp / name), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tmp / name / "robust_lighteval_tasks.py"


def _run(tmp: Path, name: str, module: Path, families: list[str], env: dict, salt: str = "") -> Path:
    out = tmp / name
    run_lighteval(["custom", "scripted", str(MODEL), ",".join(f"{TASK[f]}|0" for f in families), "--custom-tasks",
                   str(module), "--output-dir", str(out), "--save-details"],
                  {**env, "SCOREKIT_ROBUST_CALLS": str(tmp / f"calls_{name}.jsonl"), "SCOREKIT_ROBUST_SALT": salt})
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory, lighteval_env):
    tmp = tmp_path_factory.mktemp("compare_lighteval_budget")
    both = ["prompt", "option_order"]
    budgeted = _write(tmp, "gen", both, lighteval_env, "--budget", str(B), "--seed", str(SEED))
    other_seed = _write(tmp, "gen_seed", ["prompt"], lighteval_env, "--budget", str(B), "--seed", str(SEED + 1))
    full = _write(tmp, "gen_full", ["option_order"], lighteval_env)
    return {"a": _run(tmp, "a", budgeted, both, lighteval_env),
            "b": _run(tmp, "b", budgeted, both, lighteval_env, salt="other model"),
            "seed": _run(tmp, "seed", other_seed, ["prompt"], lighteval_env),
            "full": _run(tmp, "full", full, ["option_order"], lighteval_env)}


def _compare(env: dict, *args: str) -> subprocess.CompletedProcess:
    return scorekit("compare", *map(str, args), env=env)


def _json(env: dict, *args: str) -> dict:
    proc = _compare(env, *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def by_hand(out: Path, fam: str) -> dict[str, dict[int, tuple[float, str]]]:
    """{question: {variant: (correct, the option picked)}} read from the details of one family:
    the label of the highest log-likelihood, the option the query shows under it, the row's gold."""
    import pyarrow.parquet as pq

    got: dict[str, dict[int, tuple[float, str]]] = defaultdict(dict)
    files = sorted(out.glob(f"details/*/*/details_{TASK[fam]}:*.parquet"))
    assert len(files) == V[fam], files
    for f in files:
        for row in pq.read_table(f, columns=["doc", "model_response"]).to_pylist():
            doc, logprobs = row["doc"], row["model_response"]["logprobs"]
            meta = doc["specific"]["robust"]
            k = int(np.argmax(logprobs))
            text = re.search(rf"\n{doc['choices'][k].strip()}\. (.*)", doc["query"]).group(1)
            got[meta["question_id"]][meta["variant"]] = (float(k == doc["gold_index"]), text)
    return got


@pytest.mark.parametrize("fam", ["prompt", "option_order"])
def test_two_budgeted_runs_of_one_design_compare_question_by_question(runs, lighteval_env, fam):
    from scipy.stats import binomtest

    from scorekit.robustness.budget import Design, assign

    out = _json(lighteval_env, runs["a"], runs["b"])
    rows = {c["metric"]: c for c in out["comparisons"] if c["task"] == TASK[fam]}
    variants = [_variant_metric(fam, v) for v in range(V[fam])]
    assert set(rows) == {"accuracy", CR[fam], *variants}  # no per-variant-task rows, no spread rows
    a, b = by_hand(runs["a"], fam), by_hand(runs["b"], fam)
    design = assign(range(N), Design.make(V[fam], B, SEED))
    assert {q: tuple(sorted(v)) for q, v in a.items()} == {q: tuple(sorted(v)) for q, v in b.items()} == design
    qs = sorted(a, key=int)
    # accuracy: the mean over questions of each question's mean over its B variants, paired on all N
    mean_a = np.mean([np.mean([c for c, _ in a[q].values()]) for q in qs])
    mean_b = np.mean([np.mean([c for c, _ in b[q].values()]) for q in qs])
    acc = rows["accuracy"]
    assert acc["n_paired"] == N and acc["test"] == "paired_bootstrap" and acc["kind"] == "mean"
    assert acc["a_value"] == pytest.approx(mean_a) and acc["b_value"] == pytest.approx(mean_b)
    assert acc["difference"] == pytest.approx(mean_a - mean_b)
    assert acc["ci_low"] <= acc["difference"] <= acc["ci_high"]
    # the consistency rate: agreeing pairs among each question's B answers (one pair each at B = 2)
    cr = rows[CR[fam]]
    agree_a = np.mean([len({t for _, t in a[q].values()}) == 1 for q in qs])
    agree_b = np.mean([len({t for _, t in b[q].values()}) == 1 for q in qs])
    assert cr["n_paired"] == N and cr["test"] == "paired_bootstrap" and cr["kind"] == "ratio"
    assert (cr["a_value"], cr["b_value"]) == (pytest.approx(agree_a), pytest.approx(agree_b))
    # each variant: on the questions the design gives it (N·B/V, ±1), exact McNemar on its counts
    for v, name in enumerate(variants):
        on = [q for q in qs if v in a[q]]
        xa, xb = np.array([a[q][v][0] for q in on]), np.array([b[q][v][0] for q in on])
        n10, n01 = int(np.sum((xa == 1) & (xb == 0))), int(np.sum((xa == 0) & (xb == 1)))
        row = rows[name]
        assert row["n_paired"] == len(on) and N * B // V[fam] <= len(on) <= -(-N * B // V[fam])
        assert row["test"] == "mcnemar" and row["kind"] == "binary"
        assert (row["a_value"], row["b_value"]) == (pytest.approx(xa.mean()), pytest.approx(xb.mean()))
        p = 1.0 if n10 + n01 == 0 else min(1.0, binomtest(n10, n10 + n01, 0.5).pvalue)
        assert row["p_value"] == pytest.approx(p)
    assert any(f"{TASK[fam]}: budgeted (2 of {V[fam]} variants per question, seed {SEED}): compared question by question"
               in n and "spread across variants is not" in n for n in out["notes"])


def test_the_two_models_differ(runs):
    """The comparison has something to find: the salted model answers some questions otherwise."""
    for fam in ("prompt", "option_order"):
        a, b = by_hand(runs["a"], fam), by_hand(runs["b"], fam)
        assert any(a[q][v][1] != b[q][v][1] for q in a for v in a[q]), fam
        assert 0 < np.mean([c for q in a for c, _ in a[q].values()]) < 1


@pytest.mark.parametrize("other, said", [("seed", f"seed {SEED + 1}"), ("full", "a full run")])
def test_runs_of_different_designs_are_one_line_exit_2_nothing_written(runs, lighteval_env, tmp_path, other, said):
    written = tmp_path / "cmp.json"
    proc = _compare(lighteval_env, runs["a"], runs[other], "--format", "json", "--output", written)
    line = one_line(proc)
    assert "cannot be compared question by question" in line and said in line, line
    assert f"budgeted, 2 of {V['prompt' if other == 'seed' else 'option_order']} variants per question, seed {SEED}" in line
    assert "run both with one design" in line
    assert not written.exists() and proc.stdout == ""


def test_a_full_lighteval_variants_run_compares_at_family_level(runs, lighteval_env):
    """A full run's variant tasks merge into their family as lm-eval's documents do: per-position
    accuracy on every question, the spread and the consistency rate."""
    out = _json(lighteval_env, runs["full"], runs["full"])
    rows = {c["metric"]: c for c in out["comparisons"]}
    assert set(rows) == {CR["option_order"], "accuracy_range", "accuracy_std",
                         *(_variant_metric("option_order", v) for v in range(4))}
    assert {c["task"] for c in out["comparisons"]} == {TASK["option_order"]}
    assert all(c["n_paired"] == N and c["difference"] == 0 for c in rows.values())
