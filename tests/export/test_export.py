"""`scorekit export`: every_eval_ever documents, validated against the vendored schema, with
values equal to the source files' and intervals recomputed here independently.

Sources: real Inspect runs (inspect_ai's mockllm with scripted answers, with and without epochs)
and the conformance corpus (files written by real lm-eval 0.4.x / 0.5 and lighteval runs).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from statistics import NormalDist

import jsonschema
import pytest

from scorekit.cli import main
from tests.support.by_hand import se, wilson

HERE = Path(__file__).parent
CORPUS = HERE.parent / "conformance" / "corpus"
SCHEMA = json.loads((HERE / "schema" / "eval.schema.json").read_text())
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)


def _export(capsys, args: list[str]) -> dict:
    assert main(["export", *args]) == 0
    doc = json.loads(capsys.readouterr().out)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(doc)]
    assert not errors, errors[:5]
    return doc


def _results(doc: dict) -> dict[tuple[str, str], dict]:
    out = {}
    for r in doc["evaluation_results"]:
        key = (r["evaluation_name"], r["metric_config"]["metric_name"])
        assert key not in out, f"{key} exported twice"
        out[key] = r
    return out




# --- Inspect ------------------------------------------------------------------------------------

N, N_E, EPOCHS = 24, 12, 3


@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory):
    pytest.importorskip("inspect_ai", reason="needs the inspect extra")
    from tests.support.inspect_runs import inspect_run

    root = tmp_path_factory.mktemp("export_inspect")
    one = inspect_run(root / "one", "acme/strong", lambda i, k: i % 4 != 0, n=N)
    epochs = inspect_run(root / "epochs", "acme/strong", lambda i, k: k < i % 4, n=N_E, epochs=EPOCHS)
    return one, epochs


@pytest.mark.slow
def test_inspect_run_export_matches_log_and_hand_computation(inspect_logs, capsys):
    from inspect_ai.log import read_eval_log

    log_file = inspect_logs[0]
    doc = _export(capsys, [str(log_file.parent)])
    log = read_eval_log(str(log_file))
    assert doc["eval_library"] == {"name": "inspect_ai", "version": log.eval.packages["inspect_ai"]}
    assert doc["model_info"]["id"] == "mockllm/acme/strong" and doc["schema_version"] == "0.3.0"
    (r,) = doc["evaluation_results"]
    assert (r["evaluation_name"], r["metric_config"]["metric_name"]) == ("arith", "match")
    right = [1.0 if i % 4 != 0 else 0.0 for i in range(N)]
    metrics = log.results.scores[0].metrics
    score, unc = r["score_details"]["score"], r["score_details"]["uncertainty"]
    assert score == pytest.approx(sum(right) / N) == pytest.approx(metrics["accuracy"].value)
    assert unc["standard_error"]["value"] == pytest.approx(se(right)) == pytest.approx(metrics["stderr"].value)
    lo, hi = wilson(int(sum(right)), N)
    ci = unc["confidence_interval"]
    assert (ci["lower"], ci["upper"]) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
    assert ci["confidence_level"] == 0.95 and ci["method"].startswith("Wilson") and unc["num_samples"] == N
    assert r["metric_config"]["min_score"] == 0.0 and r["metric_config"]["max_score"] == 1.0
    assert r["score_details"]["details"]["harness_value"] == repr(metrics["accuracy"].value)


@pytest.mark.slow
def test_inspect_epochs_export_has_means_and_pass_at_k(inspect_logs, capsys):
    from inspect_ai.log import read_eval_log

    log_file = inspect_logs[1]
    doc = _export(capsys, [str(log_file), "--confidence", "0.9", "--n-boot", "500"])
    res = _results(doc)
    assert set(res) == {("arith", "match"), ("arith", "match/pass@2"), ("arith", "match/pass@3")}
    c = [i % 4 for i in range(N_E)]  # correct epochs of 3 per question
    means = [ci / EPOCHS for ci in c]
    mean = res[("arith", "match")]
    assert mean["score_details"]["score"] == pytest.approx(sum(means) / N_E)
    assert mean["score_details"]["score"] == pytest.approx(read_eval_log(str(log_file)).results.scores[0].metrics["accuracy"].value)
    unc = mean["score_details"]["uncertainty"]
    assert unc["standard_error"]["value"] == pytest.approx(se(means))
    assert unc["confidence_interval"]["method"].startswith("percentile bootstrap")
    assert unc["num_bootstrap_samples"] == 500 and unc["confidence_interval"]["confidence_level"] == 0.9
    assert unc["confidence_interval"]["lower"] <= mean["score_details"]["score"] <= unc["confidence_interval"]["upper"]
    for k in (2, 3):
        r = res[("arith", f"match/pass@{k}")]
        expected = [1 - math.comb(EPOCHS - ci, k) / math.comb(EPOCHS, k) for ci in c]
        assert r["score_details"]["score"] == pytest.approx(sum(expected) / N_E)
        assert r["metric_config"]["metric_id"] == "pass_at_k" and r["metric_config"]["metric_parameters"] == {"k": k}


# --- lm-eval and lighteval corpus runs ---------------------------------------------------------

LM_EVAL_RUNS = ["lm-eval-0.4.13/dummy/2cwrw4i0", "lm-eval-0.4.13/extras/__models__local__Scripted-LM-1B",
                "lm-eval-0.5.0.dev1/dummy/41pjso2k", "lm-eval-0.5.0.dev1/extras/__models__local__Scripted-LM-1B",
                "lm-eval-0.4.9/leaderboard/corpus-org__scripted-lm"]


def _number(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None


@pytest.mark.parametrize("run", LM_EVAL_RUNS)
def test_lm_eval_export_values_equal_results_file(run, capsys):
    folder = CORPUS / run
    (results_path,) = folder.glob("results_*.json")
    raw = json.loads(results_path.read_text())
    doc = _export(capsys, [str(folder)])
    assert doc["eval_library"] == {"name": "lm_eval", "version": raw["lm_eval_version"]}
    assert "N/A" not in json.dumps(doc)
    res = _results(doc)
    checked = 0
    for task, metrics in raw["results"].items():
        short = task.rpartition("::")[2]
        for key, value in metrics.items():
            base, _, filt = key.partition(",")
            if base.endswith("_stderr") or _number(value) is None or key in ("sample_len", "samples"):
                continue
            stderr = metrics.get(f"{base}_stderr,{filt}")
            r = res.get((task, key)) or res.get((short, key))
            assert r is not None, f"{task} {key} not exported"
            assert r["score_details"]["score"] == pytest.approx(value, abs=1e-12)
            unc = r["score_details"].get("uncertainty", {})
            if _number(stderr) is None:  # "N/A": no standard error in the document
                assert "harness_stderr" not in r["score_details"]["details"]
                if r["score_details"]["details"]["scorekit_kind"].startswith("harness"):
                    assert "standard_error" not in unc and "confidence_interval" not in unc
            else:
                assert unc["standard_error"]["value"] == pytest.approx(stderr, abs=1e-12)
            checked += 1
    assert checked >= 4


def test_lighteval_export_values_equal_results_file(capsys):
    folder = CORPUS / "lighteval-0.13.0" / "accelerate"
    (results_path,) = folder.rglob("results_*.json")
    raw = json.loads(results_path.read_text())["results"]
    doc = _export(capsys, [str(folder), "--organization", "Acme Labs", "--evaluator-relationship", "third_party"])
    assert doc["source_metadata"]["source_organization_name"] == "Acme Labs"
    assert doc["source_metadata"]["evaluator_relationship"] == "third_party"
    assert doc["eval_library"] == {"name": "lighteval", "version": "unknown"}
    res = _results(doc)
    keys = {(t, m) for t, ms in raw.items() if t != "all" for m in ms if not m.endswith("_stderr")}
    assert keys == set(res)
    for task, metric in keys:
        sd = res[(task, metric)]["score_details"]
        assert sd["score"] == pytest.approx(raw[task][metric], abs=1e-12)
        assert sd["uncertainty"]["standard_error"]["value"] == pytest.approx(raw[task][f"{metric}_stderr"], abs=1e-12)
    # the bbh average has no per-question file: the harness's value and a clipped normal interval
    avg = res[("corpus_bbh:_average|0", "acc")]["score_details"]
    assert avg["details"]["scorekit_kind"].startswith("harness aggregate")
    ci = avg["uncertainty"]["confidence_interval"]
    z = NormalDist().inv_cdf(0.975)
    a, se = raw["corpus_bbh:_average|0"]["acc"], raw["corpus_bbh:_average|0"]["acc_stderr"]
    assert ci["lower"] == pytest.approx(max(0.0, a - z * se)) and ci["upper"] == pytest.approx(min(1.0, a + z * se))


@pytest.mark.parametrize("run", ["lm-eval-0.4.13/score-scorekit/corpus-org__scripted-api", "lighteval-0.13.0/score-scorekit"])
def test_score_robustness_export(run, capsys):
    """Per-variant accuracies, spread and consistency rate of SCORE tasks: scorekit's values,
    equal to what the harness logged for the same task (read from its results file here)."""
    folder = CORPUS / run
    doc = _export(capsys, [str(folder)])
    res = _results(doc)
    (results_path,) = folder.rglob("results_*.json")
    raw = json.loads(results_path.read_text())["results"]
    robust = [r for r in doc["evaluation_results"] if "scorekit_robustness" in r["metric_config"]["additional_details"]]
    kinds = {r["metric_config"]["additional_details"]["scorekit_robustness"] for r in robust}
    assert {"accuracy of one prompt variant or answer position", "accuracy spread across variants (max - min)"} <= kinds
    notes = json.loads(doc["source_metadata"]["additional_details"]["scorekit_notes"])
    if run.startswith("lighteval"):
        # tiny-llama's answers never parse (the robustness report says CR undefined): no result,
        # never a score of 0 (issue 35), and a note names what was left out
        assert "consistency rate" not in kinds
        (note,) = [n for n in notes if n.startswith("not exported")]
        assert "consistency rate is undefined (not 0)" in note and "score_prompt_robustness_mmlu_pro consistency_rate" in note
    else:
        assert "consistency rate" in kinds
    assert all(r["metric_config"]["lower_is_better"] == ("spread" in r["metric_config"]["additional_details"]["scorekit_robustness"])
               for r in robust)
    assert all(r["metric_config"]["metric_id"].startswith("scorekit.") for r in robust)
    if run.startswith("lm-eval"):
        checked = 0
        for task, metrics in raw.items():
            for name in ("consistency_rate", "accuracy_range", "0_accuracy"):
                if f"{name},none" in metrics and (task, name) in res:
                    assert res[(task, name)]["score_details"]["score"] == pytest.approx(metrics[f"{name},none"], abs=1e-9)
                    checked += 1
        assert checked >= 10
        assert not any(m.endswith(",none") for _, m in res)  # the harness's own copies are replaced, with a note
        assert "SCORE tasks" in doc["source_metadata"]["additional_details"]["scorekit_notes"]


def test_results_only_run_keeps_harness_numbers_and_drops_na(tmp_path, capsys):
    """lm-eval results without samples logs ("N/A" stderrs in the results file)."""
    src = CORPUS / "lm-eval-0.4.13/extras/__models__local__Scripted-LM-1B"
    (results_path,) = src.glob("results_*.json")
    shutil.copy(results_path, tmp_path / results_path.name)
    raw = json.loads(results_path.read_text())["results"]
    na = [(t, k) for t, ms in raw.items() for k, v in ms.items() if v == "N/A"]
    assert na, "the corpus file has N/A stderrs"
    doc = _export(capsys, [str(tmp_path)])
    assert "N/A" not in json.dumps(doc)
    res = _results(doc)
    for task, stderr_key in na:
        base, _, filt = stderr_key.partition(",")
        r = res[(task, f"{base[: -len('_stderr')]},{filt}")]
        assert "uncertainty" not in r["score_details"]
    assert "harness's own values" in doc["source_metadata"]["additional_details"]["scorekit_notes"]


def test_output_dir_writes_one_document_per_run(tmp_path, capsys):
    runs = [str(CORPUS / r) for r in LM_EVAL_RUNS[:2]]
    assert main(["export", *runs]) == 2
    assert "give --output-dir" in capsys.readouterr().err
    out = tmp_path / "eee"
    assert main(["export", *runs, "--output-dir", str(out)]) == 0
    written = capsys.readouterr().out.split()
    assert len(written) == 2 and sorted(written) == sorted(str(p) for p in out.glob("*.json"))
    for p in written:
        doc = json.loads(Path(p).read_text())
        assert not list(VALIDATOR.iter_errors(doc))
    # the same runs again: the same file names (the uuid is derived from the evaluation id)
    assert main(["export", *runs, "--output-dir", str(out)]) == 0
    assert sorted(capsys.readouterr().out.split()) == sorted(written)


def test_bad_input_is_one_line(tmp_path, capsys):
    assert main(["export", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("scorekit: error:") and "missing" in err and "\n" not in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["export", str(empty), "-o", str(tmp_path / "out.json")]) == 2
    assert "no samples logs found" in capsys.readouterr().err and not (tmp_path / "out.json").exists()


def test_evaluation_id_is_the_runs_own_not_its_folders(tmp_path, capsys):
    """Issue 35: the same run in two folders got two ids (the folder name stood in for a run of
    several tasks). Now <tasks>/<model>/<run time> from the files; a local-path model is named
    by its last folder, with the full path as model_info.id."""
    src = CORPUS / "lm-eval-0.4.13/extras/__models__local__Scripted-LM-1B"
    docs = []
    for name in ("first", "second copy"):
        shutil.copytree(src, tmp_path / name)
        docs.append(_export(capsys, [str(tmp_path / name)]))
    assert docs[0]["evaluation_id"] == docs[1]["evaluation_id"]
    (results_path,) = src.glob("results_*.json")
    tasks = sorted(json.loads(results_path.read_text())["results"])
    assert len(tasks) > 1 and docs[0]["evaluation_id"].startswith(f"{tasks[0]}+{len(tasks) - 1} more (")
    assert "/models/local/Scripted-LM-1B/2026-11-23T12:11:45" in docs[0]["evaluation_id"]
    assert docs[0]["model_info"]["name"] == "Scripted-LM-1B" and docs[0]["model_info"]["id"] == "/models/local/Scripted-LM-1B"
    # both copies in one call are one evaluation, refused
    assert main(["export", str(tmp_path / "first"), str(tmp_path / "second copy"), "--output-dir", str(tmp_path / "o")]) == 2
    assert "are the same evaluation" in capsys.readouterr().err


@pytest.mark.slow
def test_inspect_run_of_two_tasks_has_one_id_in_any_folder(tmp_path, capsys):
    pytest.importorskip("inspect_ai", reason="needs the inspect extra")
    from tests.support.inspect_runs import inspect_run

    logs = tmp_path / "logs"
    inspect_run(logs, "acme/strong", lambda i, k: i % 4 != 0, n=8)
    inspect_run(logs, "acme/strong", lambda i, k: i % 2 != 0, n=8, name="arith_two")
    shutil.copytree(logs, tmp_path / "elsewhere")
    first, second = (_export(capsys, [str(p)]) for p in (logs, tmp_path / "elsewhere"))
    assert first["evaluation_id"] == second["evaluation_id"]
    assert first["evaluation_id"].startswith("arith+arith_two/mockllm/acme/strong/")
