"""The built wheel carries tasks/ and configs/, and scorekit finds them from it."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(REPO)],
        check=True,
    )
    (path,) = out.glob("scorekit-*.whl")
    return path


def test_wheel_contains_tasks_configs_and_demo_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in (
        "scorekit/tasks/score/score_robustness.yaml",
        "scorekit/tasks/score/mmlu_pro/score_robustness_mmlu_pro.yaml",
        "scorekit/tasks/lighteval/score_suite.py",
        "scorekit/configs/open_llm_leaderboard_v2.yaml",
        "scorekit/configs/ranking_sample.txt",
        "scorekit/demo/data/mmlu_pro.jsonl",
        "scorekit/demo/data/NOTICE.md",  # the bundled questions' sources and licenses travel with them
        "scorekit/demo/data/LICENSE-Apache-2.0.txt",
        "scorekit/demo/data/provenance.json",
        "scorekit/metrics/__init__.py",
        "scorekit/py.typed",  # PEP 561: type checkers read scorekit's own hints
    ):
        assert expected in names, expected
    shipped = {p.relative_to(REPO).as_posix() for p in (REPO / "tasks").rglob("*.yaml")}
    assert {"scorekit/" + n for n in shipped} <= names


def test_resources_resolve_inside_an_unpacked_wheel(wheel, tmp_path):
    zipfile.ZipFile(wheel).extractall(tmp_path)
    code = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r});"
        "from scorekit import resources;"
        "print(resources.tasks_dir()); print(resources.config_path('open_llm_leaderboard_v2.yaml'))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    assert out == [str(tmp_path / "scorekit" / "tasks"), str(tmp_path / "scorekit" / "configs" / "open_llm_leaderboard_v2.yaml")]
