"""The worked examples of docs/extending.md run: each section's ``python`` blocks, in order, as
one program in a fresh interpreter (so an example's registrations do not leak into other tests)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "extending.md"


def sections() -> dict[str, str]:
    out: dict[str, str] = {}
    for part in re.split(r"^## ", DOC.read_text(encoding="utf-8"), flags=re.M)[1:]:
        title, _, body = part.partition("\n")
        out[title.strip()] = "\n".join(re.findall(r"```python\n(.*?)```", body, flags=re.S))
    return out


def test_four_examples():
    assert list(sections()) == ["Add a metric available in both harnesses", "Add a SCORE-style benchmark",
                                "Add a results reader", "Add a harness format"]
    assert all(code.strip() for code in sections().values())


@pytest.mark.slow
@pytest.mark.parametrize("title", list(sections()))
def test_example_runs(title, tmp_path):
    proc = subprocess.run([sys.executable, "-c", sections()[title]], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
