"""scorekit.harness_outputs: the folder walk, model identity, run time and task keys, and the
three commands (leaderboard, scorecard, robustness) agreeing on them."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest

import scorekit.harness_outputs as ho
from scorekit.harness_outputs import folders
from scorekit.leaderboards.results_files import load_results, read_results_file
from scorekit.cli import main
from scorekit.errors import ScorekitError
from scorekit.robustness.readers import read_paths
from scorekit.robustness.readers import lighteval_details, lm_eval_logs

CORPUS = Path(__file__).parent / "conformance" / "corpus"


# --- the walk ----------------------------------------------------------------------------------


def _run_with_timeout(fn, seconds=20):
    out: dict = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "the walk hung"
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_fifo_and_dev_zero_are_not_opened(tmp_path):
    (tmp_path / "results_2024-01-01T00-00-00.json").write_text("{}")
    os.mkfifo(tmp_path / "results_fifo.json")
    os.symlink("/dev/zero", tmp_path / "zero.json")
    found = _run_with_timeout(lambda: ho.walk([tmp_path]))
    assert [Path(p).name for p in found.files] == ["results_2024-01-01T00-00-00.json"]
    assert sorted(Path(p).name for p in found.skipped[folders.SKIP_NOT_REGULAR]) == ["results_fifo.json", "zero.json"]
    # the commands say so, and do not hang
    with pytest.raises(ScorekitError, match="no lm-eval or lighteval results files found"):
        _run_with_timeout(lambda: load_results([tmp_path]))
    # a FIFO named on the command line is an error, not a hang
    with pytest.raises(ScorekitError, match="not a regular file"):
        ho.walk([tmp_path / "results_fifo.json"])


def test_symlink_loop_and_symlinked_model_folder(tmp_path):
    runs = tmp_path / "elsewhere" / "org__m"
    shutil.copytree(next((CORPUS / "lm-eval-0.4.13" / "leaderboard").iterdir()), runs)
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(runs, root / "org__m")  # a symlinked model folder is followed
    os.symlink(root, root / "loop")  # a loop is walked once
    found = _run_with_timeout(lambda: ho.walk([root]))
    assert any(Path(p).name.startswith("results_") for p in found.files)
    assert [Path(p).name for p in found.skipped[folders.SKIP_SEEN]] == ["loop"]
    loaded = load_results([root])
    assert list(loaded.models) == ["corpus-org/scripted-lm"]
    assert "links to a file or folder read already" in loaded.skipped_summary()


def test_unreadable_folder_is_named(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    real_scandir = os.scandir

    def scandir(path):  # root can read any folder; make one fail as it does for other users
        if Path(path).name == "b":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = ho.walk([tmp_path])
    assert found.skipped[folders.SKIP_UNREADABLE] == [str(tmp_path / "b")]
    assert any("unreadable folders" in line and str(tmp_path / "b") in line for line in found.notes())


def _with_checkpoint_copy(tmp_path: Path, source: Path) -> Path:
    """``source`` copied to tmp, plus a Jupyter ``.ipynb_checkpoints`` copy of its model folder
    whose results file is newer and holds other values (it must never be read)."""
    out = tmp_path / "out"
    shutil.copytree(source, out)
    results = sorted(out.rglob("results_*.json"))[0]
    hidden = results.parent / ".ipynb_checkpoints"
    hidden.mkdir()
    data = json.loads(results.read_text())
    for entry in data["results"].values():
        for k, v in entry.items():
            if isinstance(v, float):
                entry[k] = 1.0
    (hidden / "results_2099-01-01T00-00-00.000000.json").write_text(json.dumps(data))
    return out


def test_hidden_checkpoint_copy_is_skipped_by_all_three_commands(tmp_path, capsys):
    out = _with_checkpoint_copy(tmp_path / "lb", CORPUS / "lm-eval-0.4.13" / "leaderboard")
    assert main(["leaderboard", str(out), "--format", "json"]) == 0
    text, err = capsys.readouterr()
    assert json.loads(text)["models"][0]["raw"]["GPQA"] == pytest.approx(4 / 9)
    assert ".ipynb_checkpoints" in err
    assert main(["scorecard", str(out), "--format", "json"]) == 0
    text, err = capsys.readouterr()
    assert ".ipynb_checkpoints" in err and len(json.loads(text)["models"]) == 1

    out = _with_checkpoint_copy(tmp_path / "rb", CORPUS / "lm-eval-0.4.13" / "score-scorekit")
    assert main(["robustness", str(out), "--format", "json"]) == 0
    text, _ = capsys.readouterr()
    report = json.loads(text)
    assert any(".ipynb_checkpoints" in n for n in report["notes"])


# --- model identity ----------------------------------------------------------------------------


def _lm_eval_results(path: Path, **top) -> Path:
    body = {"results": {"score_prompt_robustness_mmlu_pro": {"alias": "x", "consistency_rate,none": 0.5}},
            "versions": {}, **top}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(body))
    return path


@pytest.mark.parametrize(
    "top, expected",
    [
        ({"config": {"model": "hf", "model_args": "base_model=foo/bar,dtype=float32"}}, "foo/bar"),
        ({"model_name": "x7k2m9qa", "config": {"model": "hf", "model_args": {"base_model": "foo/bar"}}}, "foo/bar"),
        ({"model_name": "", "config": {"model": "hf", "model_args": "pretrained=/models/local/M,dtype=float32"}}, "/models/local/M"),
        ({"model_name": "org/named", "config": {"model": "hf", "model_args": "base_model=foo/bar"}}, "org/named"),
    ],
)
def test_lm_eval_identity_is_the_same_in_leaderboard_and_robustness(tmp_path, top, expected):
    path = _lm_eval_results(tmp_path / "run_folder" / "results_2024-01-01T00-00-00.json", **top)
    assert read_results_file(path).model == expected
    assert lm_eval_logs._read_results(path, True).model == expected


def test_base_model_in_the_corpus_files():
    # 0.4.13 names a base_model= run with a random id; the model is in config.model_args
    (path,) = (CORPUS / "lm-eval-0.4.13" / "score-upstream").rglob("results_*.json")
    assert json.loads(path.read_text())["model_name"] == "2cwrw4i0"
    assert read_results_file(path).model == "corpus-org/base-lm"
    assert lm_eval_logs._read_results(path, True).model == "corpus-org/base-lm"
    # the dummy model has no model_args at all: the id is all there is
    (dummy,) = (CORPUS / "lm-eval-0.4.13" / "dummy").rglob("results_*.json")
    assert read_results_file(dummy).model == "2cwrw4i0"


def test_empty_lighteval_model_name_is_the_same_in_every_command(tmp_path):
    path = tmp_path / "out" / "results" / "org" / "m" / "results_2024-01-01T00-00-00.000000.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({
        "config_general": {"model_name": ""},
        "results": {"score_prompt_robustness_mmlu_pro:template_0|0": {"accuracy": 0.5}, "all": {"accuracy": 0.5}},
    }))
    assert read_results_file(path).model == "org/m"
    (agg,) = lighteval_details._read_results(path, True)
    assert agg.model == "org/m"


def test_lighteval_model_given_by_absolute_path_is_one_model():
    run = CORPUS / "lighteval-0.13.0" / "score-scorekit"
    read = read_paths([run])
    name = "/tmp/scorekit-corpus/lighteval-0.13.0/corpus-org/tiny-llama"
    assert {s.model for s in read.samples} == {name} and {a.model for a in read.aggregates} == {name}
    assert list(load_results([run]).models) == [name]
    # the details folders alone (no results file next to them) give the same name
    details = next(run.rglob("details_*.parquet"))
    assert ho.details_model(details, load=lambda p: None) == name


# --- run time ----------------------------------------------------------------------------------


def test_run_time_sources(tmp_path):
    named = tmp_path / "results_2024-06-16T10-22-33.123456.json"
    named.write_text("{}")
    assert ho.run_time(named)[1] == "file name"
    plain = tmp_path / "results.json"
    plain.write_text("{}")
    assert ho.run_time(plain, {"results": {}, "date": 1700000000.5}) == (1700000000.5, "date field")
    os.utime(plain, (1600000000, 1600000000))
    assert ho.run_time(plain, {"results": {}}) == (1600000000, "modification time")


# --- task keys: leaderboard and scorecard agree ----------------------------------------------------


def _lighteval_file(out: Path, stamp: str, results: dict) -> Path:
    path = out / "results" / "org" / "m" / f"results_{stamp}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"config_general": {"model_name": "org/m"}, "results": results}))
    return path


LB_CONFIG = """
name: one column
categories:
  c:
    benchmarks:
      Exam:
        metrics:
          acc: {{key: {{task: "{key}", metric: acc}}, good: 1.0, bad: 0.0}}
"""

SCORE_CONFIG = """
categories:
  c:
    benchmarks:
      b:
        metrics:
          acc:
            key: [{{task: "{key}", metric: acc}}]
            good: 1.0
            bad: 0.0
"""


@pytest.mark.parametrize("key", ["lexam-en-idk", "community|lexam-en-idk", "community|lexam-en-idk|0"])
def test_config_key_with_or_without_suite_and_fewshots(tmp_path, capsys, key):
    out = tmp_path / "out"
    _lighteval_file(out, "2024-01-01T00-00-00.000000", {"community|lexam-en-idk|0": {"acc": 0.25}})
    (tmp_path / "lb.yaml").write_text(LB_CONFIG.format(key=key))
    (tmp_path / "score.yaml").write_text(SCORE_CONFIG.format(key=key))
    assert main(["leaderboard", str(out), "--config", str(tmp_path / "lb.yaml"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr()[0])["models"][0]["raw"]["Exam"] == 0.25
    assert main(["scorecard", str(out), "--config", str(tmp_path / "score.yaml"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr()[0])["models"][0]["overall"] == 0.25


def test_lighteval_013_keys_match_a_suite_key(tmp_path, capsys):
    # lighteval 0.13 writes task|n; a config written for 0.11 (suite|task|n) still matches
    out = tmp_path / "out"
    _lighteval_file(out, "2024-01-01T00-00-00.000000", {"lexam-en-idk|0": {"acc": 0.75}})
    (tmp_path / "lb.yaml").write_text(LB_CONFIG.format(key="community|lexam-en-idk|0"))
    assert main(["leaderboard", str(out), "--config", str(tmp_path / "lb.yaml"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr()[0])["models"][0]["raw"]["Exam"] == 0.75


def test_two_fewshot_counts_newest_wins_in_leaderboard_and_score(tmp_path, capsys):
    out = tmp_path / "out"
    _lighteval_file(out, "2024-01-01T00-00-00.000000", {"lighteval|ifeval|0": {"acc": 0.25}})
    newer = _lighteval_file(out, "2024-02-01T00-00-00.000000", {"lighteval|ifeval|5": {"acc": 0.5}})
    (tmp_path / "lb.yaml").write_text(LB_CONFIG.format(key="ifeval"))
    (tmp_path / "score.yaml").write_text(SCORE_CONFIG.format(key="ifeval"))
    assert main(["leaderboard", str(out), "--config", str(tmp_path / "lb.yaml"), "--format", "json"]) == 0
    text, err = capsys.readouterr()
    assert json.loads(text)["models"][0]["raw"]["Exam"] == 0.5
    assert f"used the newest, lighteval|ifeval|5 from {newer}" in err
    assert main(["scorecard", str(out), "--config", str(tmp_path / "score.yaml"), "--format", "json"]) == 0
    text, err = capsys.readouterr()
    assert json.loads(text)["models"][0]["overall"] == 0.5
    assert f"used the newest, lighteval|ifeval|5 from {newer}" in err


def test_a_file_under_two_names_is_read_once(tmp_path):
    """A hard link (or a symbolic one) to a file met already is left out with a note; a file the
    user names and a folder holding it give the file once, explicit."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = tmp_path / "a" / "results_2024-01-01T00-00-00.json"
    first.write_text("{}")
    os.link(first, tmp_path / "b" / "results_2024-01-01T00-00-00.json")
    found = ho.walk([tmp_path])
    assert found.files == [str(first)]
    assert found.skipped[folders.SKIP_SEEN] == [str(tmp_path / "b" / "results_2024-01-01T00-00-00.json")]
    named = ho.walk([first, tmp_path / "a"])
    assert named.files == [str(first)] and named.explicit == {str(first)} and not named.skipped
