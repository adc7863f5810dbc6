"""`scorekit robustness` checks the values it takes from results files as `scorekit leaderboard`
does, and never writes a bare NaN/Infinity into its JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekit.cli import main

CORPUS = Path(__file__).parents[1] / "conformance" / "corpus"


def _results_copy(tmp_path: Path, change) -> Path:
    (src,) = (CORPUS / "lm-eval-0.4.13" / "score-scorekit").rglob("results_*.json")
    data = json.loads(src.read_text())
    change(data["results"])
    path = tmp_path / "org__m" / src.name
    path.parent.mkdir()
    path.write_text(json.dumps(data))  # json writes inf/nan as bare Infinity/NaN, as lm-eval does
    return path


@pytest.mark.parametrize(
    "task, key, value",
    [
        ("score_prompt_robustness_mmlu_pro", "0_macro_accuracy,none", 1.5),
        ("score_non_greedy_robustness_mmlu_pro", "non_greedy_consistency_rate,none", 7.0),
        ("score_non_greedy_robustness_mmlu_pro", "non_greedy_consistency_rate,none", float("inf")),
        ("prompt_robustness_agieval_aqua_rat", "0_accuracy,none", -0.25),
    ],
)
def test_out_of_range_values_are_rejected_with_file_and_place(tmp_path, capsys, task, key, value):
    path = _results_copy(tmp_path, lambda r: r[task].__setitem__(key, value))
    out = tmp_path / "report.json"
    assert main(["robustness", str(path), "--format", "json", "--output", str(out)]) == 2
    err = capsys.readouterr()[1]
    assert str(path) in err and f'results["{task}"]["{key}"]' in err
    assert "Traceback" not in err and not out.exists()


def test_nan_is_null_in_json(tmp_path, capsys):
    path = _results_copy(
        tmp_path, lambda r: r["score_non_greedy_robustness_mmlu_pro"].__setitem__("non_greedy_consistency_rate,none", float("nan"))
    )
    assert main(["robustness", str(path), "--format", "json"]) == 0
    text = capsys.readouterr()[0]
    assert "NaN" not in text and "Infinity" not in text
    report = json.loads(text)
    (model,) = report["models"]
    fams = {f["family"]: f for b in model["benchmarks"] for f in b["families"] if b["benchmark"] == "mmlu_pro"}
    assert fams["non_greedy"]["consistency_rate"] is None
