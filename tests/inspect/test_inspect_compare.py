"""`scorekit compare` and `--values` on real Inspect logs (inspect_ai's mockllm, scripted answers).

Every expected number comes from the scripted answer patterns below, computed here by hand
(McNemar as a binomial sum, Wilson from its formula, pass@k from binomial coefficients, Holm
from its decision rule), or from Inspect's own results in the log (its accuracy is the mean
over epochs of the per-sample values, which scorekit recomputes from the samples).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from scorekit.cli import main
from tests.support.inspect_runs import TASK, inspect_run
from tests.support.by_hand import holm, mcnemar, wilson

pytest.importorskip("inspect_ai", reason="needs the inspect extra")
pytestmark = pytest.mark.slow

N = 40
RIGHT = {  # one epoch: which questions each model answers correctly
    "acme/strong": lambda i, k: i % 5 != 0,       # 32 of 40
    "acme/weak": lambda i, k: i % 3 != 0,         # 26 of 40
    "acme/similar": lambda i, k: i % 5 not in (0, 2),  # 24 of 40
}
N_E, EPOCHS = 30, 4
CORRECT_EPOCHS = {  # several epochs: how many of the 4 epochs of question i are correct
    "acme/strong": lambda i: min(i % 5, 4),
    "acme/weak": lambda i: i % 3,
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("inspect_runs")
    out = {}
    for m, right in RIGHT.items():
        fmt = "json" if m == "acme/strong" else "eval"  # both log formats
        out[m] = inspect_run(root / m.replace("/", "_"), m, right, n=N, log_format=fmt).parent
    for m, c in CORRECT_EPOCHS.items():
        out[m + "@epochs"] = inspect_run(root / (m.replace("/", "_") + "_epochs"), m,
                                         lambda i, k, c=c: k < c(i), n=N_E, epochs=EPOCHS).parent
    return out


def _json(capsys, args: list[str]) -> dict:
    assert main(["compare", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)





def test_two_runs_mcnemar(runs, capsys):
    data = _json(capsys, [str(runs["acme/strong"]), str(runs["acme/weak"])])
    (row,) = data["comparisons"]
    a = [RIGHT["acme/strong"](i, 0) for i in range(N)]
    b = [RIGHT["acme/weak"](i, 0) for i in range(N)]
    assert (row["task"], row["metric"], row["a"], row["b"]) == (TASK, "match", "mockllm/acme/strong", "mockllm/acme/weak")
    assert row["n_paired"] == N and row["kind"] == "binary" and row["test"] == "mcnemar"
    assert row["a_value"] == pytest.approx(sum(a) / N) and row["b_value"] == pytest.approx(sum(b) / N)
    assert row["difference"] == pytest.approx((sum(a) - sum(b)) / N)
    n10 = sum(x and not y for x, y in zip(a, b))
    n01 = sum(y and not x for x, y in zip(a, b))
    assert row["p_value"] == pytest.approx(mcnemar(n10, n01), rel=1e-9)
    assert row["ci_low"] <= row["difference"] <= row["ci_high"]
    assert data["notes"] == []


def test_values_wilson_and_inspect_agree(runs, capsys):
    from inspect_ai.log import read_eval_log

    data = _json(capsys, [str(runs["acme/strong"]), "--values"])
    (v,) = data["values"]
    s = sum(RIGHT["acme/strong"](i, 0) for i in range(N))
    assert (v["n"], v["method"], v["kind"]) == (N, "wilson", "binary")
    assert v["value"] == pytest.approx(s / N)
    lo, hi = wilson(s, N)
    assert (v["ci_low"], v["ci_high"]) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
    (log_file,) = runs["acme/strong"].glob("*.json")  # the .json log format
    assert read_eval_log(str(log_file)).results.scores[0].metrics["accuracy"].value == pytest.approx(v["value"])


def test_three_runs_holm(runs, capsys):
    models = ["acme/strong", "acme/weak", "acme/similar"]
    data = _json(capsys, [str(runs[m]) for m in models])
    rows = data["comparisons"]
    assert [(r["a"], r["b"]) for r in rows] == [("mockllm/acme/strong", "mockllm/acme/weak"),
                                                ("mockllm/acme/strong", "mockllm/acme/similar"),
                                                ("mockllm/acme/weak", "mockllm/acme/similar")]
    raw = []
    for (ma, mb), r in zip([(0, 1), (0, 2), (1, 2)], rows):
        a = [RIGHT[models[ma]](i, 0) for i in range(N)]
        b = [RIGHT[models[mb]](i, 0) for i in range(N)]
        raw.append(mcnemar(sum(x and not y for x, y in zip(a, b)), sum(y and not x for x, y in zip(a, b))))
        assert r["p_value"] == pytest.approx(raw[-1], rel=1e-9)  # the test's own, agreeing with the interval
    assert [r["p_value_adjusted_pairs"] for r in rows] == pytest.approx(holm(raw), rel=1e-9)


def _pass_at(n: int, c: int, k: int) -> float:
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def test_epochs_means_and_pass_at_k(runs, capsys):
    from inspect_ai.log import read_eval_log

    a_dir, b_dir = runs["acme/strong@epochs"], runs["acme/weak@epochs"]
    data = _json(capsys, [str(a_dir), str(b_dir)])
    rows = {r["metric"]: r for r in data["comparisons"]}
    assert sorted(rows) == ["match", "match/pass@2", "match/pass@3", "match/pass@4"]
    ca = [CORRECT_EPOCHS["acme/strong"](i) for i in range(N_E)]
    cb = [CORRECT_EPOCHS["acme/weak"](i) for i in range(N_E)]
    mean = rows["match"]
    assert mean["kind"] == "mean" and mean["test"] == "paired_bootstrap" and mean["n_paired"] == N_E
    assert mean["a_value"] == pytest.approx(sum(c / EPOCHS for c in ca) / N_E)
    assert mean["b_value"] == pytest.approx(sum(c / EPOCHS for c in cb) / N_E)
    assert mean["ci_low"] <= mean["difference"] <= mean["ci_high"] and 0 <= mean["p_value"] <= 1
    for k in (2, 3, 4):
        r = rows[f"match/pass@{k}"]
        assert r["a_value"] == pytest.approx(sum(_pass_at(EPOCHS, c, k) for c in ca) / N_E)
        assert r["b_value"] == pytest.approx(sum(_pass_at(EPOCHS, c, k) for c in cb) / N_E)
    # pass@4 is 0/1 per question (c > 0): compared with McNemar on "at least one correct"
    assert rows["match/pass@4"]["test"] == "mcnemar"
    hit_a, hit_b = [c > 0 for c in ca], [c > 0 for c in cb]
    assert rows["match/pass@4"]["p_value"] == pytest.approx(
        mcnemar(sum(x and not y for x, y in zip(hit_a, hit_b)), sum(y and not x for x, y in zip(hit_a, hit_b))))
    # Inspect's own accuracy (mean reducer over epochs) is scorekit's per-question mean, averaged
    (log_file,) = a_dir.glob("*.eval")
    log = read_eval_log(str(log_file))
    assert log.eval.config.epochs == EPOCHS and len(log.samples) == N_E * EPOCHS
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(mean["a_value"])


def test_epochs_values_bootstrap(runs, capsys):
    data = _json(capsys, [str(runs["acme/weak@epochs"]), "--values"])
    by = {v["metric"]: v for v in data["values"]}
    assert by["match"]["method"] == "bootstrap" and by["match"]["ci_low"] <= by["match"]["value"] <= by["match"]["ci_high"]
    # weak: c in {0, 1, 2}; pass@4 is "c > 0": 0/1 per question, so Wilson on the count
    s = sum(CORRECT_EPOCHS["acme/weak"](i) > 0 for i in range(N_E))
    assert by["match/pass@4"]["method"] == "wilson" and by["match/pass@4"]["value"] == pytest.approx(s / N_E)
    assert by["match/pass@4"]["ci_low"] == pytest.approx(wilson(s, N_E)[0], abs=1e-12)


def test_epochs_against_one_epoch_is_compared_as_mean(runs, capsys):
    """A 4-epoch mean against a 1-epoch 0/1 run of the same questions' ids: the kinds differ
    (mean vs binary), compared as means; pass@k is only in the epochs run (a note)."""
    data = _json(capsys, [str(runs["acme/strong@epochs"]), str(runs["acme/strong"])])
    rows = {r["metric"]: r for r in data["comparisons"]}
    assert list(rows) == ["match"] and rows["match"]["test"] == "paired_bootstrap"
    assert rows["match"]["n_paired"] == N_E  # the epochs run has 30 questions, the other 40
    assert any("10 question(s) of mockllm/acme/strong#2 not in" in n for n in data["notes"])
    assert any("match/pass@2: only mockllm/acme/strong#1 has it" in n for n in data["notes"])


def test_damaged_log_is_one_line_error(tmp_path, capsys):
    bad = tmp_path / "2026-01-01T00-00-00+00-00_arith_x.eval"
    bad.write_bytes(b"not a zip file")
    assert main(["compare", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("scorekit: error:") and str(bad) in err and "cannot read Inspect log" in err
    assert "\n" not in err


def test_missing_inspect_ai_names_the_extra(runs, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import fails as when not installed
    assert main(["compare", str(runs["acme/weak"])]) == 2
    err = capsys.readouterr().err.strip()
    assert "scorekit[inspect]" in err and str(runs["acme/weak"]) in err and "\n" not in err


def test_adapter_imports_inspect_ai_only_when_reading():
    code = ("import sys, scorekit.inspect_logs, scorekit.compare.inputs;"
            "assert 'inspect_ai' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_same_ids_with_other_content_are_not_paired(runs, tmp_path, capsys):
    """Question ids alone do not pair: a run whose questions are worded differently (same ids)
    shares no question with the original, and the note says why."""
    from tests.support.inspect_runs import inspect_run

    other = inspect_run(tmp_path / "reworded", "acme/weak", RIGHT["acme/weak"], n=N, wording="Compute").parent
    assert main(["compare", str(runs["acme/strong"]), str(other)]) == 2
    err = capsys.readouterr().err
    assert "hold different documents" in err and err.count("\n") == 1
