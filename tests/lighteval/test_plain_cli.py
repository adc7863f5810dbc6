"""The plain ``lighteval`` console script, offline, on scorekit's SCORE tasks.

lighteval downloads tinyBenchmarks.pkl while importing its registry; a user opts in to the
offline placeholder with ``scorekit lighteval-offline --install``. This test does exactly that
for its own duration (CI machines are throwaway) and removes the placeholder afterwards unless
a file was there before it started.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from scorekit.cli import main
from scorekit.lighteval import offline
from tests.lighteval.conftest import SCRIPTED_MODEL, results_file
from tests.lighteval.script import write_script
from tests.lighteval.test_score_suite import rows_by_source


@pytest.fixture
def opted_in_placeholder():
    path = offline.tiny_benchmarks_pkl_path()
    existed = path.exists()
    if not existed:
        assert main(["lighteval-offline", "--install"]) == 0
    yield path
    if not existed:
        assert main(["lighteval-offline", "--remove"]) == 0
        assert not path.exists()


@pytest.mark.slow
@pytest.mark.lighteval
def test_plain_lighteval_custom_runs_offline_and_gives_accuracy_and_cr(
    opted_in_placeholder, tmp_path, lighteval_env, score_data_dir, capsys
):
    exe = shutil.which("lighteval")
    assert exe, "the lighteval console script is installed with the lighteval extra"
    script = write_script(tmp_path / "script.json", rows_by_source(score_data_dir))
    env = {**lighteval_env, "SCOREKIT_LIGHTEVAL_SCRIPT": str(script)}
    out = tmp_path / "out"
    proc = subprocess.run(
        [exe, "custom", "scripted", str(SCRIPTED_MODEL), "score_prompt_robustness_mmlu_pro|0",
         "--custom-tasks", "scorekit.lighteval.score_suite", "--output-dir", str(out), "--save-details"],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]

    results = results_file(out, "scripted")["results"]
    templates = [k for k in results if k.startswith("score_prompt_robustness_mmlu_pro:template_")]
    assert len(templates) == 10
    assert all(0.0 <= results[k]["macro_accuracy"] <= 1.0 for k in templates)

    capsys.readouterr()
    assert main(["robustness", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (model,) = report["models"]
    (bench,) = model["benchmarks"]
    (fam,) = bench["families"]
    assert (bench["benchmark"], fam["family"], fam["layout"]) == ("mmlu_pro", "prompt", "lighteval")
    assert len(fam["variant_accuracy"]) == 10
    assert 0.0 < fam["consistency_rate"] < 1.0  # the script mixes right, wrong and unparsed answers
    # a handful of fixture questions: below the 10 an interval needs, and the report says so
    assert fam["consistency_rate_ci"] == [None, None]
    assert any("an interval needs at least 10" in n for n in fam["notes"])
