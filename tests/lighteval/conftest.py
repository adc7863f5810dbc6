"""Fixtures for the lighteval tests: local SCORE data folders, an isolated environment for
lighteval subprocesses, and a runner for ``python -m scorekit.lighteval`` (the offline-safe
``lighteval`` command; it never writes into site-packages)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("lighteval", reason="needs the lighteval extra")

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "robustness" / "fixtures"
SCRIPTED_MODEL = Path(__file__).resolve().parent / "scripted_model.py"


@pytest.fixture(scope="session")
def score_data_dir(tmp_path_factory) -> Path:
    """``<dir>/<benchmark>[_<subset>]/test.jsonl`` from tests/robustness/fixtures (the layout of
    ``SCOREKIT_SCORE_DATA_DIR``)."""
    root = tmp_path_factory.mktemp("score_data")
    for f in sorted(FIXTURES.glob("*.jsonl")):
        (root / f.stem).mkdir()
        shutil.copyfile(f, root / f.stem / "test.jsonl")
    return root


@pytest.fixture(scope="session")
def lighteval_env(tmp_path_factory, score_data_dir, _isolated_hf_home) -> dict[str, str]:
    """Environment for lighteval subprocesses: offline, private HOME (lighteval's sample cache is
    ``~/.cache/huggingface/lighteval``, outside HF_HOME), private HF_HOME, local SCORE data, and
    an unreachable proxy so any forgotten download fails at once instead of touching the network."""
    home = tmp_path_factory.mktemp("home")
    env = dict(os.environ)
    env.update({
        "HOME": str(home),
        "HF_HOME": str(_isolated_hf_home),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "",
        "SCOREKIT_SCORE_DATA_DIR": str(score_data_dir),
        "LIGHTEVAL_DISABLE_TQDM": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "PYTHONPATH": os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    })
    return env


def robust_model():
    """robust_scripted_model.py, the scripted model the variants tests give lighteval, imported
    under the name lighteval loads it by, for the tests' independent expectations."""
    here = str(Path(__file__).resolve().parent)
    sys.path.insert(0, here)
    try:
        import robust_scripted_model as m
    finally:
        sys.path.remove(here)
    return m


def run_lighteval(args: list[str], env: dict[str, str], *, timeout: int = 600) -> subprocess.CompletedProcess:
    """``python -m scorekit.lighteval <args>``; fails the test with the log tail on error."""
    proc = subprocess.run([sys.executable, "-m", "scorekit.lighteval", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode != 0:
        pytest.fail(f"lighteval exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}")
    return proc


def results_file(out_dir: Path, model: str) -> dict:
    files = sorted((out_dir / "results" / model).glob("results_*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text())
