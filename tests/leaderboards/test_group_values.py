"""Groups written without values (`{" ": " ", "alias": ...}`, lm-eval 0.4.5-0.4.11 without
`aggregate_metric_list`): the leaderboard derives MATH Lvl 5 and GPQA from the subtasks
Files: the conformance corpus (tests/conformance/corpus/)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scorekit.cli import main

CORPUS = Path(__file__).parents[1] / "conformance" / "corpus"
GPQA = ["leaderboard_gpqa_diamond", "leaderboard_gpqa_extended", "leaderboard_gpqa_main"]
KNOWN_GPQA = {"leaderboard_gpqa_diamond": 198, "leaderboard_gpqa_extended": 546, "leaderboard_gpqa_main": 448}


def _leaderboard(capsys, path) -> tuple[dict, str]:
    assert main(["leaderboard", str(path), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    (row,) = [m for m in json.loads(out)["models"] if m["model"] == "corpus-org/scripted-lm"]
    return row, err


def _results(version: str) -> Path:
    (path,) = (CORPUS / f"lm-eval-{version}" / "leaderboard").rglob("results_*.json")
    return path


@pytest.mark.parametrize("version", ["0.4.5", "0.4.7"])
def test_january_2025_files_get_math_and_gpqa_from_subtasks(capsys, version):
    data = json.loads(_results(version).read_text())
    assert data["results"]["leaderboard_gpqa"] == {" ": " ", "alias": " - leaderboard_gpqa"}
    assert data["results"]["leaderboard_math_hard"].get(" ") == " "
    row, err = _leaderboard(capsys, _results(version))
    sizes = {t: data["n-samples"][t]["effective"] for t in GPQA}
    expected = sum(sizes[t] * data["results"][t]["acc_norm,none"] for t in GPQA) / sum(sizes.values())
    assert row["raw"]["GPQA"] == pytest.approx(expected)
    assert row["raw"]["MATH Lvl 5"] is not None and "GPQA" not in row["missing"]
    assert "leaderboard_gpqa has no acc_norm,none value" in err and "sizes from n-samples" in err
    # the same value lm-eval 0.4.13 wrote as its (aggregated) group value for the same run
    newer = json.loads(_results("0.4.13").read_text())["results"]
    assert row["raw"]["GPQA"] == pytest.approx(newer["leaderboard_gpqa"]["acc_norm,none"])
    assert row["raw"]["MATH Lvl 5"] == pytest.approx(newer["leaderboard_math_hard"]["exact_match,none"])


def test_without_n_samples_the_known_sizes_weigh(tmp_path, capsys):
    data = json.loads(_results("0.4.7").read_text())
    del data["n-samples"]
    path = tmp_path / "results_2025-01-10T00-00-00.000000.json"
    path.write_text(json.dumps(data))
    row, err = _leaderboard(capsys, path)
    expected = sum(KNOWN_GPQA[t] * data["results"][t]["acc_norm,none"] for t in GPQA) / sum(KNOWN_GPQA.values())
    assert row["raw"]["GPQA"] == pytest.approx(expected)
    assert "sizes from the known subtask sizes" in err


def test_a_missing_subtask_leaves_the_column_missing(tmp_path, capsys):
    data = json.loads(_results("0.4.7").read_text())
    del data["results"]["leaderboard_gpqa_main"]
    path = tmp_path / "results_2025-01-10T00-00-00.000000.json"
    path.write_text(json.dumps(data))
    row, err = _leaderboard(capsys, path)
    assert row["raw"]["GPQA"] is None and "GPQA" in row["missing"] and row["scores"]["Average"] is None
    assert "subtask leaderboard_gpqa_main absent" in err


def test_out_of_range_subtask_value_is_rejected(tmp_path, capsys):
    data = json.loads(_results("0.4.7").read_text())
    data["results"]["leaderboard_gpqa_main"]["acc_norm,none"] = 1.5
    path = tmp_path / "results_2025-01-10T00-00-00.000000.json"
    path.write_text(json.dumps(data))
    assert main(["leaderboard", str(path)]) == 2
    err = capsys.readouterr()[1]
    assert str(path) in err and 'results["leaderboard_gpqa_main"]["acc_norm,none"]' in err


def _score_metrics(capsys, path) -> tuple[dict, str]:
    assert main(["scorecard", str(path), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    (model,) = json.loads(out)["models"]
    cats = model["categories"]
    return {
        "gpqa": cats["knowledge"]["benchmarks"]["gpqa"]["metrics"]["acc_norm"],
        "math": cats["math"]["benchmarks"]["math_hard"]["metrics"]["exact_match"],
    }, err


@pytest.mark.parametrize("version", ["0.4.5", "0.4.7"])
def test_score_derives_the_same_group_values(capsys, version):
    old, err = _score_metrics(capsys, _results(version))
    new, _ = _score_metrics(capsys, _results("0.4.13"))
    for name in ("gpqa", "math"):
        assert old[name]["value"] == pytest.approx(new[name]["value"]) and old[name]["missing"] is None, name
    assert "leaderboard_gpqa has no acc_norm,none value" in err and "sizes from n-samples" in err
