"""The lighteval reader on real lighteval 0.13 details of scorekit's SCORE tasks (the corpus)."""

from __future__ import annotations

import shutil
from pathlib import Path

from scorekit.robustness.readers import read_paths

CORPUS = Path(__file__).resolve().parents[2] / "conformance" / "corpus" / "lighteval-0.13.0" / "score-scorekit"
TASK = "score_prompt_robustness_mmlu_pro"


def _prompt_set(path: Path):
    (s,) = [s for s in read_paths([path]).samples if s.task.name == TASK]
    return s


def test_the_newest_of_several_runs_of_a_variant_task_is_used_and_said(tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(CORPUS, copy)
    (src,) = copy.rglob(f"details_{TASK}:template_5|0_*.parquet")
    stamp = src.parent.name
    before = _prompt_set(copy)
    for other in ("2026-11-24T10-00-00.000000", "2026-11-22T10-00-00.000000"):  # a newer and an older run
        (src.parent.parent / other).mkdir()
        shutil.copy(src, src.parent.parent / other / src.name.replace(stamp, other))
    after = _prompt_set(copy)
    (note,) = [n for n in after.notes if n.startswith(f"{TASK}:template_5: ")]
    assert note.startswith(f"{TASK}:template_5: 3 runs found; used the newest "
                           f"(details_{TASK}:template_5|0_2026-11-24T10-00-00.000000.parquet), ignored ")
    assert "2026-11-22T10-00-00.000000" in note and stamp in note
    assert sorted(after.records) == sorted(before.records)  # the newest run holds the same answers
