"""`scorekit compare` on logs written by the real lm-eval and lighteval (scripted models).

Expected numbers come from the scripted answer patterns (lm-eval) or from scoring the script's
answers with the grading code directly (lighteval), never from compare's own readers; McNemar
p-values from a hand-written binomial sum, Holm from its decision rule.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from scorekit.cli import main
from tests.leaderboards.test_leaderboard_harness import _task
from tests.support.by_hand import mcnemar

pytestmark = pytest.mark.slow

N_DOCS = 60
# which documents each scripted model answers correctly (a pattern known by hand)
RIGHT = {
    "acme/strong": lambda i: i % 10 != 0,           # 54 of 60
    "acme/weak": lambda i: i % 3 != 0,              # 40 of 60
    "acme/similar": lambda i: i % 10 not in (0, 5),  # 48 of 60
}



def _run(tmp: Path, tasks: Path, model: str, out: Path, limit: int | None = None) -> Path:
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    right = RIGHT[model]

    def loglikelihood(context, continuation, doc):
        pick = doc["answer"] if right(doc["id"]) else (doc["answer"] + 1) % len(doc["choices"])
        return (0.0, True) if continuation.strip() == doc["choices"][pick] else (-5.0, False)

    tracker = EvaluationTracker(output_path=str(out))
    results = lm_eval.simple_evaluate(
        model=ScriptedLM(loglikelihood=loglikelihood), model_args=f"pretrained={model}", tasks=["cmp_mc"],
        task_manager=TaskManager(include_path=str(tasks), include_defaults=False), evaluation_tracker=tracker,
        log_samples=True, random_seed=0, limit=limit,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name="cmp_mc", samples=samples["cmp_mc"])
    (folder,) = {p.parent for p in out.rglob("samples_cmp_mc_*.jsonl")}
    return folder


@pytest.fixture(scope="module")
def lm_eval_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compare_lm_eval")
    tasks = tmp / "tasks"
    tasks.mkdir()
    _task(tasks, "cmp_mc", 4, N_DOCS)
    runs = {m: _run(tmp, tasks, m, tmp / m.replace("/", "_")) for m in RIGHT}
    runs["acme/strong-limited"] = _run(tmp, tasks, "acme/strong", tmp / "limited", limit=50)
    return runs


def _json(capsys, args: list[str]) -> tuple[dict, str]:
    assert main(["compare", *args, "--format", "json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_two_lm_eval_runs(lm_eval_runs, capsys):
    doc, _ = _json(capsys, [str(lm_eval_runs["acme/strong"]), str(lm_eval_runs["acme/weak"])])
    rows = [c for c in doc["comparisons"] if c["metric"] == "acc,none"]
    assert len(rows) == 1
    c = rows[0]
    required = {"task", "metric", "a", "b", "n_paired", "a_value", "b_value", "difference", "ci_low", "ci_high",
                "p_value", "test"}
    assert required <= set(c)
    a = np.array([RIGHT["acme/strong"](i) for i in range(N_DOCS)], dtype=float)
    b = np.array([RIGHT["acme/weak"](i) for i in range(N_DOCS)], dtype=float)
    assert (c["task"], c["a"], c["b"], c["n_paired"], c["test"]) == ("cmp_mc", "acme/strong", "acme/weak", N_DOCS, "mcnemar")
    assert c["a_value"] == pytest.approx(54 / 60) and c["b_value"] == pytest.approx(40 / 60)
    assert c["difference"] == pytest.approx(c["a_value"] - c["b_value"], abs=1e-15)
    n10, n01 = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
    assert c["p_value"] == pytest.approx(mcnemar(n10, n01), rel=1e-9)
    d = a - b
    se = d.std(ddof=1) / math.sqrt(N_DOCS)
    assert c["ci_low"] < c["difference"] < c["ci_high"]
    # inverted from the exact test: conservative, so it holds the normal interval, not much wider
    assert c["ci_low"] <= d.mean() - 1.96 * se and c["ci_high"] >= d.mean() + 1.96 * se
    assert c["ci_high"] - c["ci_low"] <= 1.5 * 2 * 1.96 * se
    assert c["ci_low"] > 0 and c["p_value"] < 0.05  # 18 questions one way, 4 the other: a real difference
    assert 0 < c["min_detectable_difference"] <= n10 / N_DOCS and c["p_value_adjusted"] == pytest.approx(c["p_value"])


def test_three_runs_every_pair_with_holm(lm_eval_runs, capsys):
    models = ["acme/strong", "acme/weak", "acme/similar"]
    doc, _ = _json(capsys, [str(lm_eval_runs[m]) for m in models])
    rows = [c for c in doc["comparisons"] if c["metric"] == "acc,none"]
    assert [(c["a"], c["b"]) for c in rows] == [(models[0], models[1]), (models[0], models[2]), (models[1], models[2])]
    raw = []
    for c in rows:
        a = np.array([RIGHT[c["a"]](i) for i in range(N_DOCS)])
        b = np.array([RIGHT[c["b"]](i) for i in range(N_DOCS)])
        raw.append(mcnemar(int((a & ~b).sum()), int((~a & b).sum())))
        # p is the test's own, so it agrees with the interval beside it (issue 35: it was Holm-adjusted)
        assert c["p_value"] == pytest.approx(raw[-1], rel=1e-9)
        assert (c["ci_low"] > 0 or c["ci_high"] < 0) == (c["p_value"] < 0.05)
    order = sorted(range(3), key=lambda i: raw[i])
    expected, running = [0.0] * 3, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (3 - rank) * raw[i]))
        expected[i] = running
    assert [c["p_value_adjusted_pairs"] for c in rows] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "html", "latex"])
def test_three_runs_show_raw_and_adjusted_p_in_their_own_columns(lm_eval_runs, capsys, fmt):
    """Every format: p beside the interval is the raw one; the Holm-adjusted ones have labelled
    columns (was one "p" column holding the adjusted p next to an unadjusted interval)."""
    models = ["acme/strong", "acme/weak", "acme/similar"]
    data, _ = _json(capsys, [str(lm_eval_runs[m]) for m in models])
    c = min((c for c in data["comparisons"] if c["metric"] == "acc,none"), key=lambda c: c["p_value"])
    assert c["p_value_adjusted_pairs"] == pytest.approx(min(1.0, 3 * c["p_value"]))  # Holm over 3 pairs moved it
    assert main(["compare", *[str(lm_eval_runs[m]) for m in models], "-f", fmt]) == 0
    text = capsys.readouterr().out
    if fmt == "csv":
        import csv
        import io

        row = next(r for r in csv.DictReader(io.StringIO(text)) if r["metric"] == "acc,none" and (r["a"], r["b"]) == (c["a"], c["b"]))
        assert float(row["p_value"]) == pytest.approx(c["p_value"]) and float(row["p_value_adjusted_pairs"]) == pytest.approx(
            c["p_value_adjusted_pairs"]) and float(row["p_value_adjusted"]) == pytest.approx(c["p_value_adjusted"])
        return
    assert "p adj. (pairs)" in text and "p adj. (table)" in text
    line = next(x for x in text.splitlines() if c["a"] in x and c["b"] in x and "acc" in x)  # one pair holds both
    shown = [f"{c['p_value']:.3f}", f"{c['p_value_adjusted_pairs']:.3f}", f"{c['p_value_adjusted']:.3f}"]
    after_ci = line[line.index("]") + 1:]
    positions, start = [], 0
    for p in shown:  # in this order after the interval: raw p, p adj. (pairs), p adj. (table)
        start = after_ci.index(p, start) + len(p)
        positions.append(start)
    assert positions == sorted(positions)


def test_questions_a_run_lacks_are_named(lm_eval_runs, capsys):
    doc, _ = _json(capsys, [str(lm_eval_runs["acme/strong"]), str(lm_eval_runs["acme/strong-limited"])])
    (c,) = [c for c in doc["comparisons"] if c["metric"] == "acc,none"]
    assert (c["a"], c["b"]) == ("acme/strong#1", "acme/strong#2")  # one model twice: suffixes
    assert c["n_paired"] == 50 and c["a_only"] == 10 and c["difference"] == pytest.approx(0.0)
    # no discordant question: p = 1 and the interval is +/- the Wilson upper bound of 0 of 50 discordant
    assert c["p_value"] == 1.0 and c["ci_low"] == -c["ci_high"] and c["ci_high"] == pytest.approx(3.8415 / (50 + 3.8415), rel=1e-3)
    (note,) = [n for n in doc["notes"] if "not in" in n]
    assert "10 question(s) of acme/strong#1 not in acme/strong#2" in note and "50, 51, 52, 53, 54 and 5 more" in note


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "html", "latex"])
def test_every_format_shows_the_interval(lm_eval_runs, capsys, fmt, tmp_path):
    out = tmp_path / f"cmp.{fmt}"
    args = ["compare", str(lm_eval_runs["acme/strong"]), str(lm_eval_runs["acme/weak"]), "-f", fmt, "-o", str(out)]
    assert main(args) == 0
    text = out.read_text()
    if fmt == "csv":
        header = text.splitlines()[0].split(",")
        assert {"ci_low", "ci_high", "p_value", "difference", "p_value_adjusted", "min_detectable_difference"} <= set(header)
    else:
        assert "[+0." in text and "mcnemar" in text and "p adj. (table)" in text and "MDD (80" in text
    if fmt == "latex":
        assert "\\toprule" in text and "\\bottomrule" in text and "acc,none" in text


def test_bad_input_is_one_line(lm_eval_runs, capsys, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["compare", str(lm_eval_runs["acme/strong"]), str(empty)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no samples logs found" in err and str(empty) in err
    bad = tmp_path / "samples_cmp_mc_2024-01-01T00-00-00.000000.jsonl"
    bad.write_text('{"doc_id": 0, "metrics": ["acc"], "acc": 1}\nnot json\n')
    assert main(["compare", str(lm_eval_runs["acme/strong"]), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 2" in err and str(bad) in err


def test_score_suite_from_lm_eval_logs(tmp_path_factory, capsys):
    """SCORE prompt task of two scripted models: per-prompt accuracies and CR agree with the
    robustness analysis (summarize) on the same records."""
    from scorekit.robustness.analysis import summarize
    from scorekit.robustness.readers import read_paths
    from tests.robustness.report_fixtures import build_logs

    logs = build_logs.upstream_logs(tmp_path_factory)["upstream"]
    steady, mixed = logs / "scripted__steady", logs / "scripted__mixed"
    doc, _ = _json(capsys, [str(steady), str(mixed)])
    rows = {(c["task"], c["metric"]): c for c in doc["comparisons"]}
    task = "score_prompt_robustness_mmlu_pro"
    sets = {s.model: s for s in read_paths([logs]).samples if s.task.name == task}
    sa, sb = summarize(sets["scripted/steady"].records), summarize(sets["scripted/mixed"].records)
    for v, acc in sa.variant_accuracy.items():
        c = rows[(task, f"{v}_accuracy")]
        assert (c["a_value"], c["b_value"]) == pytest.approx((acc, sb.variant_accuracy[v]), abs=1e-12)
        assert c["test"] == "mcnemar"
    cr = rows[(task, "consistency_rate")]
    assert (cr["a_value"], cr["b_value"]) == pytest.approx((sa.consistency_rate, sb.consistency_rate), abs=1e-12)
    # 4 questions: the paired bootstrap gives no interval below 10 (the rule of every command)
    assert cr["test"] == "paired_bootstrap" and cr["n_paired"] < 10 and cr["ci_low"] is None and cr["p_value"] is None
    assert f"{cr['n_paired']} questions: a resampled interval needs at least 10" in cr["note"]
    rng = rows[(task, "accuracy_range")]
    assert (rng["a_value"], rng["b_value"]) == pytest.approx((sa.accuracy_range, sb.accuracy_range), abs=1e-12)


def _copy_samples(folder: Path, dest: Path, edit) -> Path:
    """A copy of a run's results and samples files with each samples row passed through ``edit``."""
    import shutil

    dest.mkdir()
    for f in folder.iterdir():
        if f.name.startswith("samples_"):
            rows = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
            f_out = dest / f.name
            f_out.write_text("".join(json.dumps(r) + "\n" for r in edit(rows)))
        else:
            shutil.copy(f, dest / f.name)
    return dest


def test_same_documents_in_another_order_are_paired_by_content(lm_eval_runs, capsys, tmp_path):
    """doc_ids renumbered (the dataset shuffled), doc_hash kept: every question still pairs."""
    def shuffle(rows):
        ids = sorted(r["doc_id"] for r in rows)
        perm = np.random.default_rng(0).permutation(len(ids))
        for r, new in zip(rows, perm):
            r["doc_id"] = int(ids[new])
        return rows

    shuffled = _copy_samples(lm_eval_runs["acme/weak"], tmp_path / "weak_shuffled", shuffle)
    doc, _ = _json(capsys, [str(lm_eval_runs["acme/strong"]), str(shuffled)])
    (c,) = [c for c in doc["comparisons"] if c["metric"] == "acc,none"]
    a = np.array([RIGHT["acme/strong"](i) for i in range(N_DOCS)])
    b = np.array([RIGHT["acme/weak"](i) for i in range(N_DOCS)])
    assert c["n_paired"] == N_DOCS and c["a_only"] == c["b_only"] == 0
    assert c["p_value"] == pytest.approx(mcnemar(int((a & ~b).sum()), int((~a & b).sum())), rel=1e-9)
    assert any("paired by content" in n for n in doc["notes"])
    assert not any("hold different documents" in n for n in doc["notes"])


def test_a_null_or_nan_value_drops_that_question_only(lm_eval_runs, capsys, tmp_path):
    def spoil(rows):
        for r in rows:
            if r["doc_id"] == 3:
                r["acc"] = None
            if r["doc_id"] == 7:
                r["acc"] = float("nan")  # json.dumps writes NaN, as lm-eval does
        return rows

    spoiled = _copy_samples(lm_eval_runs["acme/weak"], tmp_path / "weak_nan", spoil)
    doc, _ = _json(capsys, [str(lm_eval_runs["acme/strong"]), str(spoiled)])
    (c,) = [c for c in doc["comparisons"] if c["metric"] == "acc,none"]
    keep = [i for i in range(N_DOCS) if i not in (3, 7)]
    b = np.array([RIGHT["acme/weak"](i) for i in keep], dtype=float)
    assert c["n_paired"] == N_DOCS - 2 and c["b_value"] == pytest.approx(b.mean())
    (note,) = [n for n in doc["notes"] if "null or NaN" in n]
    assert "acc,none: 2 question(s)" in note and "3, 7" in note and "this metric only" in note
    assert not any("corpus-level" in n for n in doc["notes"])


def test_nothing_to_compare_names_the_cause(lm_eval_runs, capsys, tmp_path):
    """Run B holds another task (two files of it: a reading note comes first); the error
    quotes why nothing pairs, not that note."""
    other = tmp_path / "other"
    other.mkdir()
    (src,) = lm_eval_runs["acme/weak"].glob("samples_cmp_mc_*.jsonl")
    time = src.stem.rsplit("_", 1)[-1]
    (other / f"samples_other_mc_{time}.jsonl").write_text(src.read_text())
    (other / "samples_other_mc_2000-01-01T00-00-00.000000.jsonl").write_text(src.read_text())
    assert main(["compare", str(lm_eval_runs["acme/strong"]), str(other)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing to compare" in err
    assert "task cmp_mc is missing from other" in err and "several samples files" not in err
