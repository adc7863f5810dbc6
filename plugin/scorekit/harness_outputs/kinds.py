"""What a harness file is: its harness (lm-eval, lighteval), its kind (results, samples,
details) and the task and time stamp in its name (rules in :mod:`scorekit.harness_outputs`)."""

from __future__ import annotations

import os
import re
from typing import Any, Final, Literal

Harness = Literal["lm-eval", "lighteval", "inspect"]  # the harness that wrote a file (Inspect: its eval logs)
FileKind = Literal["results", "samples", "details"]  # what a harness file holds

LM_EVAL: Final = "lm-eval"
LIGHTEVAL: Final = "lighteval"
RESULTS: Final = "results"
SAMPLES: Final = "samples"
DETAILS: Final = "details"

LM_EVAL_MARKERS = ("versions", "n-shot", "configs", "config", "group_subtasks", "higher_is_better")
TIME_PATTERN = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
_DETAILS_NAME = re.compile(rf"^details_.+_{TIME_PATTERN}\.parquet$")
SAMPLES_NAME = re.compile(rf"^samples_(?P<task>.+)_(?P<time>{TIME_PATTERN})\.jsonl$")


def results_harness(data: Any) -> Harness | None:
    """``"lighteval"``, ``"lm-eval"`` or None for parsed JSON that is not a results file."""
    if not isinstance(data, dict) or "results" not in data:
        return None
    if "config_general" in data:
        return LIGHTEVAL
    if not data.keys().isdisjoint(LM_EVAL_MARKERS):
        return LM_EVAL
    return None


def file_kind(path: str | os.PathLike[str]) -> FileKind | None:
    """What a file is by its name: ``"results"`` (a ``.json``: check with
    :func:`results_harness`), ``"samples"`` (lm-eval ``.jsonl``), ``"details"`` (lighteval
    ``details_*.parquet``) or None.

    >>> file_kind("out/m/samples_gpqa_2024-06-16T10-22-33.1.jsonl"), file_kind("a/b.txt")
    ('samples', None)
    """
    name = os.path.basename(os.fspath(path))
    if name.endswith(".json"):
        return RESULTS
    if name.endswith(".jsonl"):
        return SAMPLES
    if _DETAILS_NAME.match(name):
        return DETAILS
    return None


def samples_name(name: str) -> tuple[str, str] | None:
    """``(task, time stamp)`` of an lm-eval (0.4.5+) samples file name, or None. The task is
    as written: lm-eval 0.5 qualifies a task run inside a group (``group::task``; see
    :func:`split_task_key`).

    >>> samples_name("samples_leaderboard_gpqa::leaderboard_gpqa_main_2026-11-23T12-21-33.829457.jsonl")
    ('leaderboard_gpqa::leaderboard_gpqa_main', '2026-11-23T12-21-33.829457')
    """
    m = SAMPLES_NAME.match(os.path.basename(name))
    return (m["task"], m["time"]) if m else None
