"""Model names given as local paths (issue 35): every table names them by their last folder
(with as many parents as tell two apart), one helper for compare, export, robustness and
leaderboard; JSON and CSV keep the full name."""

from __future__ import annotations

import json
from pathlib import Path

from scorekit.cli import main

CORPUS = Path(__file__).parent / "conformance" / "corpus"


def test_display_names():
    from scorekit.harness_outputs.identity import display_names, is_local_path

    assert display_names(["/srv/a/ckpt-500", "/srv/b/ckpt-500", "/srv/final/", "org/m", "mockllm/acme/m"]) == [
        "a/ckpt-500", "b/ckpt-500", "final", "org/m", "mockllm/acme/m"]
    # the same path twice stays one name (compare then numbers the runs)
    assert display_names(["~/models/x", "~/models/x"]) == ["x", "x"]
    # a path whose last folder equals another model's name gets its parent
    assert display_names(["m", "/cache/m"]) == ["m", "cache/m"]
    assert display_names(["/home/me/.cache/huggingface/hub/models--HuggingFaceTB--SmolLM2-135M/snapshots/93efa2f"]) == [
        "HuggingFaceTB/SmolLM2-135M"]
    assert display_names(["C:\\models\\llama\\", "./out/run-1"]) == ["llama", "run-1"]
    assert not is_local_path("EleutherAI/pythia-410m") and is_local_path("../ckpt")


def test_robustness_tables_name_a_local_path_by_its_folder(capsys):
    """A real lighteval 0.13 run of a local model (its model_name is an absolute path)."""
    run = str(CORPUS / "lighteval-0.13.0" / "score-scorekit")
    assert main(["robustness", run, "--format", "json"]) == 0
    (model,) = json.loads(capsys.readouterr().out)["models"]
    assert model["model"].startswith("/") and model["model"].endswith("/tiny-llama")
    for fmt in ("table", "markdown", "latex"):
        assert main(["robustness", run, "--format", fmt]) == 0
        tables = capsys.readouterr().out.split("Notes")[0]
        assert "tiny-llama" in tables and model["model"] not in tables.replace("\\_", "_"), fmt
    assert main(["robustness", run, "--format", "csv"]) == 0
    assert model["model"] in capsys.readouterr().out


def test_leaderboard_names_a_local_path_by_its_folder(tmp_path, capsys):
    from tests.leaderboards.leaderboard_fixtures.layouts import GPQA_MUSR_CONFIG, lm_eval_body, write_lm_eval_results

    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(GPQA_MUSR_CONFIG, encoding="utf-8")
    values = {"leaderboard_gpqa": {"acc_norm,none": 0.3}, "leaderboard_musr_murder_mysteries": {"acc_norm,none": 0.5},
              "leaderboard_musr_object_placements": {"acc_norm,none": 0.4},
              "leaderboard_musr_team_allocation": {"acc_norm,none": 0.6}}
    path = "/mnt/team/experiments/2026-11/checkpoints/run-7/final"
    write_lm_eval_results(tmp_path / "out", lm_eval_body(values, model=path, model_args=f"pretrained={path}"))
    args = ["leaderboard", str(tmp_path / "out"), "--config", str(cfg)]
    assert main([*args, "--format", "json"]) == 0
    assert [m["model"] for m in json.loads(capsys.readouterr().out)["models"]] == [path]
    assert main([*args, "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    assert "| final |" in text and path not in text
    assert main([*args, "--format", "csv"]) == 0
    assert path in capsys.readouterr().out
