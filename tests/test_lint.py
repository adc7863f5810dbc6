"""The package passes ruff (the rules in pyproject.toml) and scorekit.metrics passes mypy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_on_the_package():
    pytest.importorskip("ruff", reason="needs the test extra")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "plugin/scorekit"], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]


@pytest.mark.slow
def test_mypy_on_the_metrics():
    pytest.importorskip("mypy", reason="needs the test extra")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports", "-p", "scorekit.metrics"],
                          cwd=ROOT / "plugin", capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]
