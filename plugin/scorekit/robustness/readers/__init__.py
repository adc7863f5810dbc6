"""Readers: evaluation logs on disk -> SCORE records (:class:`scorekit.robustness.records.Record`).

A reader turns the files one harness writes into two kinds of items, which
:mod:`scorekit.robustness.report` merges per model, benchmark and family:

- :class:`SampleSet` — the per-answer records of one task of one model, recomputed from the
  logged documents and model outputs with the core's extraction (so the numbers do not depend on
  which metrics the run logged, nor on whether upstream's or scorekit's tasks wrote the log);
- :class:`AggregateSet` — the aggregate metrics one task has in a results file, used only when
  no samples exist for that model, benchmark and family.

Readers plug in with :func:`register_reader` (kept in :data:`READERS`): each has a ``name``,
``claims(path)`` (is this file mine?) and ``read(paths, explicit)`` returning a
:class:`ReadResult`. :func:`read_paths` walks the user's paths, hands every file to the first
reader that claims it (the registered readers first, in order, then the built-in lighteval and
lm-eval readers), and raises
:class:`~scorekit.errors.ScorekitError` for an explicitly named file nobody claims.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from scorekit.errors import ScorekitError
from scorekit.harness_outputs.folders import walk
from scorekit.harness_outputs.registry import log_format
from scorekit.robustness.benchmarks import TaskName, classify_task, is_robust, parse_lighteval_task
from scorekit.robustness.records import FAMILIES, Record

__all__ = [
    "AggregateSet", "FAMILIES", "ReadResult", "Reader", "SampleSet", "TaskName", "classify_task", "is_robust",
    "is_score_task", "read_paths", "register_reader", "READERS",
]


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
    timestamp: float = 0.0  # run time (scorekit.harness_outputs.run_time): the largest is the newest
    runs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    identical: dict[str, bool] = field(default_factory=dict)
    samples_per_variant: int = 1  # variant tasks' prompt family: samples per template
    permuted: tuple[int, int] | None = None  # variant option order: (questions whose shown options moved, questions)
    # a budgeted run (scorekit variants --budget): its design (scorekit.robustness.budget.Design) and the
    # number of questions it was made for; None for a full run
    design: Any = None
    design_questions: int | None = None
    design_ids: dict[str, str] | None = None  # budgeted SCORE runs: question id -> its row in the design


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
    timestamp: float = 0.0  # run time (scorekit.harness_outputs.run_time): the largest is the newest
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


# Readers added by users (register_reader); asked before the built-in ones, which are always asked too.
READERS: list[Reader] = []


def register_reader(reader: Reader) -> None:
    """Have :func:`read_paths` ask ``reader`` for files: after the readers registered before it,
    before the built-in ones. Registering the same reader again changes nothing."""
    if reader not in READERS:
        READERS.append(reader)


INSPECT_NOTE = ("scorekit robustness does not read Inspect logs (`lighteval eval`, inspect_ai) yet (`scorekit compare` "
                "and `scorekit export` do), and lighteval 0.13 cannot run scorekit's tasks on Inspect; run them with "
                "`python -m scorekit.lighteval accelerate` (or `vllm`, `custom`) ... --custom-tasks "
                "scorekit.lighteval.score_suite --save-details and give this command that output folder")


def is_score_task(harness: str, task: str) -> bool:
    """True when ``task`` (as the format ``harness`` names it) is a task these readers recompute
    from the answers, a SCORE task or a variant task of ``scorekit variants``: lighteval's by
    :func:`~scorekit.robustness.benchmarks.parse_lighteval_task` or
    :func:`~scorekit.robustness.readers.lighteval_details.parse_robust` (its variant tasks
    ``robust_<family>_<T>:template_<t>`` / ``:position_<L>``), lm-eval's by :func:`classify_task`
    (which knows ``robust_<family>_<T>``); no other format's tasks are."""
    if harness == "lighteval":
        from scorekit.robustness.readers.lighteval_details import parse_robust

        return parse_lighteval_task(task) is not None or parse_robust(task) is not None
    if harness == "lm-eval":
        return classify_task(task) is not None
    return False


def _unread_log(fmt_name: str) -> str:
    """Why a whole-run log of a format no robustness reader claims is not read."""
    if fmt_name == "inspect":
        return INSPECT_NOTE
    return (f"scorekit robustness has no reader for {fmt_name} logs (one is added with "
            "scorekit.robustness.readers.register_reader: docs/extending.md)")


def read_paths(paths: Sequence[str | os.PathLike[str]], readers: Sequence[Reader] | None = None) -> ReadResult:
    """Read SCORE logs from files and folders with the first reader that claims each file.

    Raises ScorekitError when ``paths`` is empty, names a missing path, names a file no reader
    understands, or when nothing SCORE-related is found at all.
    """
    if not paths:
        raise ScorekitError("no input: give one or more result/samples files or folders")
    readers = list(readers) if readers is not None else [*READERS, *_default_readers()]
    found = walk(paths)
    files, explicit = [Path(f) for f in found.files], {Path(f) for f in found.explicit}
    claimed: dict[int, list[Path]] = {i: [] for i in range(len(readers))}
    unclaimed = 0
    unread: dict[str, int] = {}  # format -> its logs no reader claims
    for f in files:
        fmt = log_format(f)
        if fmt is not None and not any(reader.claims(f) for reader in READERS):
            name = "Inspect" if fmt.name == "inspect" else fmt.name
            if f in explicit:
                article = "an" if name[0].lower() in "aeiou" else "a"
                raise ScorekitError(f"{article} {name} log: {_unread_log(fmt.name)}", path=f)
            unread[fmt.name] = unread.get(fmt.name, 0) + 1
            continue
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
    out = ReadResult(notes=found.notes())
    for i, reader in enumerate(readers):
        if claimed[i]:
            out.extend(reader.read(claimed[i], explicit))
    if unclaimed:
        out.notes.append(f"{unclaimed} file(s) in the given folders are not evaluation logs and were not read")
    unread_notes = [f"{n} {'Inspect' if name == 'inspect' else name} log(s) not read: {_unread_log(name)}"
                    for name, n in unread.items()]
    out.notes.extend(unread_notes)
    if not out.samples and not out.aggregates:
        shown = ", ".join(str(p) for p in paths)
        said = "; ".join([*found.notes(), *unread_notes])  # hidden run folders (.run1) would otherwise go unsaid
        raise ScorekitError(f"no SCORE robustness results or samples found in {shown}" + (f" ({said})" if said else ""))
    return out
