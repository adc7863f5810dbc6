"""Every committed corpus file read through scorekit.harness_outputs and the commands' readers:
kinds, model identity, run time, sample fields and counts, details columns and leaderboard
values, version by version (layouts in docs/harness-outputs.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from scorekit import harness_outputs as ho
from scorekit.harness_outputs import kinds
from scorekit.harness_outputs.runs import time_in_name
from scorekit.leaderboards.leaderboard import compute_leaderboard, shipped_config
from scorekit.leaderboards.results_files import load_results, read_results_file
from scorekit.robustness.readers import read_paths

CORPUS = Path(__file__).parent / "corpus"
FOLDERS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
LM_EVAL = [f for f in FOLDERS if f.startswith("lm-eval-")]
LIGHTEVAL = [f for f in FOLDERS if f.startswith("lighteval-")]
TINY = "/tmp/scorekit-corpus/lighteval-0.13.0/corpus-org/tiny-llama"
RANDOM_IDS = {"lm-eval-0.4.13": "2cwrw4i0", "lm-eval-0.5.0.dev1": "41pjso2k"}


def _version(folder: str) -> tuple[int, ...]:
    return tuple(int(x) for x in folder.split("-")[-1].split(".")[:3])


def expected_model(folder: str, run: str) -> str:
    """The model of each corpus run (the commands in index.json, docs/harness-outputs.md)."""
    if folder.startswith("lighteval-"):
        if run == "score-scorekit":
            return TINY
        return "corpus-org_tiny-llama" if folder == "lighteval-0.8.1" else "corpus-org/tiny-llama"
    return {
        "leaderboard": "corpus-org/scripted-lm",
        "extras": "/models/local/Scripted-LM-1B",
        "score-upstream": "corpus-org/base-lm",  # base_model=: a random id as model_name from 0.4.11
        "score-scorekit": "corpus-org/scripted-api",
        # no model args: no name (0.4.2-0.4.9: the output folder), or lm-eval's random id
        "dummy": RANDOM_IDS.get(folder, "dummy"),
    }[run]


def _files(folder: str) -> list[Path]:
    found = ho.walk([CORPUS / folder])
    assert not found.skipped  # nothing in the corpus is hidden, linked or irregular
    return [Path(p) for p in found.files if not p.endswith("pip-freeze.txt")]


def test_every_corpus_file_has_a_kind():
    for folder in FOLDERS:
        for path in _files(folder):
            kind = ho.file_kind(path)
            assert kind is not None, path
            if kind == kinds.RESULTS:
                data = json.loads(path.read_text())
                assert ho.results_harness(data) == (kinds.LM_EVAL if folder.startswith("lm-eval") else kinds.LIGHTEVAL), path


@pytest.mark.parametrize("folder", FOLDERS)
def test_results_files_model_time_and_values(folder):
    results = [p for p in _files(folder) if ho.file_kind(p) == kinds.RESULTS]
    assert results
    for path in results:
        run = path.relative_to(CORPUS / folder).parts[0]
        rf = read_results_file(path)
        assert rf.model == expected_model(folder, run), path
        # every lm-eval version writes its date field (one clock wherever the run was made);
        # lighteval has none: the time in its file name
        assert rf.timestamp_source == ("date field" if rf.harness == kinds.LM_EVAL else "file name"), path
        for task, metrics in rf.tasks.items():
            for key, value in metrics.items():
                if "," not in key or "_stderr" in key or not isinstance(value, (int, float)) or isinstance(value, bool):
                    continue
                assert math.isnan(value) or 0.0 <= value <= 1.0, (path, task, key, value)


@pytest.mark.parametrize("folder", LM_EVAL)
def test_lm_eval_samples_fields_and_counts(folder):
    version = _version(folder)
    fields = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps"}
    if version >= (0, 4, 5):
        fields |= {"doc_hash", "prompt_hash", "target_hash"}
    if version >= (0, 4, 7):
        fields |= {"filter", "metrics"}
    files = _files(folder)
    sizes: dict[tuple[Path, str], int] = {}
    for path in files:
        if ho.file_kind(path) == kinds.RESULTS:
            data = json.loads(path.read_text())
            stamp = time_in_name(path.name)
            for task, n in (data.get("n-samples") or {}).items():
                # one line per document and filter (0.4.5 has no "filter" field: count the results keys)
                n_filters = len({k.split(",", 1)[1] for k in data["results"][task] if "," in k})
                sizes[(path.parent, f"{task}_{stamp}")] = n["effective"] * n_filters
    samples = [p for p in files if ho.file_kind(p) == kinds.SAMPLES]
    assert samples
    counted = 0
    for path in samples:
        rows = [row for _, row in ho.iter_samples(path)]
        assert rows, path
        for row in rows:
            assert fields <= row.keys(), (path, sorted(fields - row.keys()))
        if version >= (0, 4, 5):
            key = (path.parent, path.name[len("samples_"):-len(".jsonl")])
            assert len(rows) == sizes[key], path
            counted += 1
    assert counted or version < (0, 4, 5)


@pytest.mark.parametrize("folder", LIGHTEVAL)
def test_lighteval_details_columns(folder):
    pq = pytest.importorskip("pyarrow.parquet", reason="details are parquet (pyarrow comes with the lighteval extra)")
    columns = (
        {"doc", "metric", "model_response"} if _version(folder) >= (0, 11)
        else {"choices", "example", "gold", "gold_index", "metrics", "predictions", "specifics"}
    )
    details = [p for p in _files(folder) if ho.file_kind(p) == kinds.DETAILS]
    assert details
    for path in details:
        table = pq.read_table(path)
        assert columns <= set(table.column_names) and table.num_rows > 0, path
        run = path.relative_to(CORPUS / folder).parts[0]
        assert ho.details_model(path) == expected_model(folder, run), path


@pytest.mark.parametrize("folder", LM_EVAL)
def test_leaderboard_columns_from_every_lm_eval_version(folder):
    loaded = load_results([CORPUS / folder / "leaderboard"])
    (row,) = compute_leaderboard(loaded.models.values(), shipped_config())
    assert row.model == "corpus-org/scripted-lm"
    # the corpus runs 3 of BBH's 24 subtasks; every other column is there in every version,
    # including MATH and GPQA of the January 2025 files (groups without values: derived)
    assert row.missing == ["BBH"]
    for column in ("IFEval", "MATH Lvl 5", "GPQA", "MUSR", "MMLU-PRO"):
        assert 0.0 <= row.raw[column] <= 1.0, column
    reference = compute_leaderboard(load_results([CORPUS / "lm-eval-0.4.13" / "leaderboard"]).models.values(), shipped_config())[0]
    if _version(folder) < (0, 5):  # the same scripted answers: the same values (0.5 changed the runs)
        for column in ("MATH Lvl 5", "GPQA", "MUSR", "MMLU-PRO"):
            assert row.raw[column] == pytest.approx(reference.raw[column]), column


def test_robustness_reads_every_score_run():
    runs = sorted(p for folder in FOLDERS for p in (CORPUS / folder).iterdir() if p.name.startswith("score-"))
    assert len(runs) >= 6
    for run in runs:
        read = read_paths([run])
        models = {s.model for s in read.samples} | {a.model for a in read.aggregates}
        assert models == {expected_model(run.parent.name, run.name)}, run
