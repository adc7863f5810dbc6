"""Local copies of the SCORE datasets: one folder layout, one switch, for both harnesses.

``SCOREKIT_SCORE_DATA_DIR=DIR`` makes the SCORE tasks of lm-eval (``tasks/score/``) and of
lighteval (``scorekit.lighteval.score_suite``) read ``DIR`` instead of the hub datasets::

    DIR/mmlu_pro/test.jsonl               TIGER-Lab/MMLU-Pro
    DIR/agieval_<subset>/test.jsonl       hails/agieval-<subset with - for _>, e.g. agieval_aqua_rat
    DIR/math_<subject>/test.jsonl         EleutherAI/hendrycks_math <subject>, e.g. math_algebra

Rows are in the hub datasets' format (one JSON object a line). A folder may also hold the
split a benchmark draws few-shot examples from (``mmlu_pro/validation.jsonl``,
``math_<subject>/train.jsonl``); without it the lm-eval task refuses ``--num_fewshot`` > 0
rather than drawing examples from the test questions. Unset or empty: the hub datasets.

What a harness does about a folder that is missing differs by what it can do: lighteval builds
its task table at import and leaves those tasks out with a warning; lm-eval asks for one task
at a time, so a task whose folder is missing stops the run with the path it looked for.
"""

from __future__ import annotations

import os
from pathlib import Path

from scorekit.robustness.benchmarks import BENCHMARKS

__all__ = ["DATA_DIR_ENV", "data_dir", "score_subset", "local_folder", "split_files"]

DATA_DIR_ENV = "SCOREKIT_SCORE_DATA_DIR"
TEST_SPLIT = "test"


def data_dir() -> Path | None:
    """The folder ``$SCOREKIT_SCORE_DATA_DIR`` names (resolved), or None when it is unset or empty."""
    raw = os.environ.get(DATA_DIR_ENV, "").strip()
    return Path(raw).expanduser().resolve() if raw else None


def score_subset(dataset_path: str | None, dataset_name: str | None) -> tuple[str, str] | None:
    """``(benchmark, subset)`` whose hub dataset is ``dataset_path`` / ``dataset_name`` (the
    values in a SCORE task's YAML), None for any other dataset.

    >>> score_subset("hails/agieval-aqua-rat", "default")
    ('agieval', 'aqua_rat')
    >>> score_subset("json", None) is None
    True
    """
    for key, bench in BENCHMARKS.items():
        for subset in bench.subset_keys:
            if bench.dataset(subset) == (dataset_path, dataset_name or "default"):
                return key, subset
    return None


def local_folder(root: Path, benchmark: str, subset: str = "") -> Path:
    """``root/<benchmark>[_<subset>]``: the folder of one subset's files."""
    return root / BENCHMARKS[benchmark].local_name(subset)


def split_files(root: Path, benchmark: str, subset: str = "", extra_splits: tuple[str | None, ...] = ()) -> dict[str, str]:
    """``{split: path}`` of one subset's local files: ``test`` (which must exist, else
    FileNotFoundError naming the file and the variable) and each of ``extra_splits`` whose file
    is there (``<split>.jsonl``)."""
    folder = local_folder(root, benchmark, subset)
    test = folder / f"{TEST_SPLIT}.jsonl"
    if not test.is_file():
        raise FileNotFoundError(
            f"{DATA_DIR_ENV}={root}: no {test.relative_to(root)} for SCORE {benchmark}{' ' + subset if subset else ''} "
            f"(expected {test}; layout: mmlu_pro/test.jsonl, agieval_<subset>/test.jsonl, math_<subject>/test.jsonl)")
    files = {TEST_SPLIT: str(test)}
    for split in extra_splits:
        if split and split != TEST_SPLIT and (folder / f"{split}.jsonl").is_file():
            files[split] = str(folder / f"{split}.jsonl")
    return files
