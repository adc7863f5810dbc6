"""Readers: evaluation logs on disk -> SCORE records (:class:`scorekit.robustness.records.Record`).

A reader turns the files one harness writes into two kinds of items, which
:mod:`scorekit.robustness.report` merges per model, benchmark and family:

- :class:`SampleSet` — the per-answer records of one task of one model, recomputed from the
  logged documents and model outputs with the core's extraction (so the numbers do not depend on
  which metrics the run logged, nor on whether upstream's or scorekit's tasks wrote the log);
- :class:`AggregateSet` — the aggregate metrics one task has in a results file, used only when
  no samples exist for that model, benchmark and family.

Readers plug in through :data:`READERS`: each has a ``name``, ``claims(path)`` (is this file
mine?) and ``read(paths, explicit)`` returning a :class:`ReadResult`. :func:`read_paths` walks
the user's paths, hands every file to the first reader that claims it, and raises
:class:`~scorekit.errors.ScorekitError` for an explicitly named file nobody claims. A lighteval
details reader (parquet) adds itself to :data:`READERS` and yields the same items.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from scorekit.errors import ScorekitError
from scorekit.robustness.records import FAMILIES, Record
from scorekit.robustness.variants import AGIEVAL_SUBSETS, BENCHMARK_FAMILIES, MATH_SUBJECTS

__all__ = [
    "AggregateSet",
    "BENCHMARKS",
    "FAMILIES",
    "ReadResult",
    "Reader",
    "SampleSet",
    "TaskName",
    "classify_task",
    "read_paths",
    "READERS",
]

BENCHMARKS: tuple[str, ...] = ("mmlu_pro", "agieval", "math")

# Subsets of the multi-task benchmarks: lm-eval task-name suffix -> subset key used in scorekit's
# question ids and categories (MATH subjects by their dataset names); one table for the tasks and
# the readers (scorekit.robustness.variants).
SUBSETS: dict[str, dict[str, str]] = {
    "mmlu_pro": {},
    "agieval": {suffix: key for key, suffix in AGIEVAL_SUBSETS.items()},
    "math": {suffix: key for key, suffix in MATH_SUBJECTS.items()},
}

_TASK = re.compile(
    r"^(?:score_)?(?P<family>prompt|option_order|non_greedy)_robustness_(?P<benchmark>mmlu_pro|agieval|math)"
    r"(?:_(?P<subset>[a-z_]+))?$"
)


@dataclass(frozen=True)
class TaskName:
    """A SCORE task or group name taken apart. ``subset`` is None for MMLU-Pro and for the
    AGIEval/MATH group names (``score_prompt_robustness_agieval``); ``is_group`` marks those."""

    name: str
    benchmark: str
    family: str
    subset: str | None
    is_group: bool


def classify_task(name: str) -> TaskName | None:
    """Benchmark, family and subset of a SCORE task name (upstream and scorekit use the same
    names), or None for any other task. Unknown AGIEval/MATH suffixes are not SCORE tasks.
    lm-eval 0.5 names a task run inside a group ``<group>::<task>``: the group part is dropped."""
    name = name.rpartition("::")[2]
    m = _TASK.match(name)
    if m is None:
        return None
    benchmark, family, suffix = m["benchmark"], m["family"], m["subset"]
    if family not in BENCHMARK_FAMILIES[benchmark]:
        return None
    if benchmark == "mmlu_pro":
        return None if suffix else TaskName(name, benchmark, family, None, False)
    if suffix is None:
        return TaskName(name, benchmark, family, None, True)
    subset = SUBSETS[benchmark].get(suffix)
    return None if subset is None else TaskName(name, benchmark, family, subset, False)


@dataclass
class SampleSet:
    """Records of one SCORE task of one model, recomputed from a samples log.

    ``layout`` says who wrote the log: ``"scorekit"``, ``"upstream"`` (lm-eval's own SCORE
    tasks) or a reader-specific name. ``runs`` lists the runs merged into it (one for
    single-run families; the seeds of upstream's five-run non-greedy layout). ``notes`` are
    facts the report must show (rows left out, runs ignored, ...). ``identical`` (non-greedy
    only) maps each question id to whether all its samples were the same raw text
    (:mod:`scorekit.robustness.identical`), computed from the logged generations.
    """

    model: str
    task: TaskName
    layout: str
    records: list[Record]
    sources: list[str]
    timestamp: str = ""
    runs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    identical: dict[str, bool] = field(default_factory=dict)


@dataclass
class AggregateSet:
    """Aggregate metrics of one SCORE task (or group) of one model from a results file.

    ``metrics`` maps metric names without the filter suffix (``consistency_rate``) to floats;
    ``n_docs`` is the number of expanded documents lm-eval evaluated, if known.
    """

    model: str
    task: TaskName
    layout: str
    metrics: dict[str, float]
    source: str
    timestamp: str = ""
    n_docs: int | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class ReadResult:
    """What readers found: sample sets, aggregate sets and notes about files not used."""

    samples: list[SampleSet] = field(default_factory=list)
    aggregates: list[AggregateSet] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def extend(self, other: ReadResult) -> None:
        self.samples.extend(other.samples)
        self.aggregates.extend(other.aggregates)
        self.notes.extend(other.notes)


class Reader(Protocol):
    """Interface of a log reader (see the module docstring)."""

    name: str

    def claims(self, path: Path) -> bool:
        """True when ``path`` (a file) is a log this reader understands (by name or a cheap peek)."""

    def read(self, paths: Sequence[Path], explicit: set[Path]) -> ReadResult:
        """Read every claimed file at once (files of one run relate to each other). ``explicit``
        holds the files the user named; for those, anything not SCORE-related is an error."""


def _default_readers() -> list[Reader]:
    # The lighteval reader claims only its own details parquet and results JSON; the lm-eval
    # reader claims every other JSON, so lighteval's must be asked first.
    from scorekit.robustness.readers.lighteval_details import LightevalDetailsReader
    from scorekit.robustness.readers.lm_eval_logs import LmEvalLogsReader

    return [LightevalDetailsReader(), LmEvalLogsReader()]


READERS: list[Reader] = []


def discover(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], set[Path]]:
    """Expand files and folders (walked recursively, sorted) into (all files, explicit files).

    Hidden files and folders (``.name``) inside walked folders are skipped (atomic-write
    temporaries, ``.git``). A path that does not exist raises ScorekitError.
    """
    files: list[Path] = []
    explicit: set[Path] = set()
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            if p not in seen:
                seen.add(p)
                files.append(p)
            explicit.add(p)
        elif p.is_dir():
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.startswith("."):
                        continue
                    f = Path(root) / name
                    if f not in seen:
                        seen.add(f)
                        files.append(f)
        else:
            raise ScorekitError("no such file or directory", path=p)
    return files, explicit


def read_paths(paths: Sequence[str | os.PathLike[str]], readers: Sequence[Reader] | None = None) -> ReadResult:
    """Read SCORE logs from files and folders with the first reader that claims each file.

    Raises ScorekitError when ``paths`` is empty, names a missing path, names a file no reader
    understands, or when nothing SCORE-related is found at all.
    """
    if not paths:
        raise ScorekitError("no input: give one or more result/samples files or folders")
    readers = list(readers) if readers is not None else (READERS or _default_readers())
    files, explicit = discover(paths)
    claimed: dict[int, list[Path]] = {i: [] for i in range(len(readers))}
    unclaimed = 0
    for f in files:
        for i, reader in enumerate(readers):
            if reader.claims(f):
                claimed[i].append(f)
                break
        else:
            if f in explicit:
                raise ScorekitError(
                    "unknown layout: not an lm-eval results JSON or samples_<task>_<time>.jsonl"
                    + "".join(f", nor a {r.name} file" for r in readers[1:]),
                    path=f,
                )
            unclaimed += 1
    out = ReadResult()
    for i, reader in enumerate(readers):
        if claimed[i]:
            out.extend(reader.read(claimed[i], explicit))
    if unclaimed:
        out.notes.append(f"{unclaimed} file(s) in the given folders are not evaluation logs and were not read")
    if not out.samples and not out.aggregates:
        shown = ", ".join(str(p) for p in paths)
        raise ScorekitError(f"no SCORE robustness results or samples found in {shown}")
    return out
