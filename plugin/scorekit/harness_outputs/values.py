"""The values every harness format is read into: one module, shared by every reader.

- :class:`ResultsFile` / :class:`TaskResult`: a results file's aggregate metrics (``scorekit
  leaderboard``, ``scorecard``);
- :class:`MetricValues` (:func:`per_question`): one metric's per-question values
  (``scorekit compare``, ``export``); its ``kind`` is a :data:`ValueKind`;
- :class:`TaskFacts`: what a run's files say about a task besides values (``scorekit export``);
- :class:`QuestionTable`: a task's per-question values as a reader collects them;
- :func:`results_mapping` and :func:`check_fraction`: checks on what a results file holds.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from scorekit.errors import ScorekitError, listed
from scorekit.harness_outputs.kinds import Harness

__all__ = ["KINDS", "ValueKind", "ResultsFile", "TaskResult", "MetricValues", "per_question", "TaskFacts",
           "results_mapping", "check_fraction", "QuestionTable"]

ValueKind = Literal["binary", "mean", "ratio", "range", "std"]  # what a per-question row holds
KINDS = ("binary", "mean", "ratio", "range", "std")


@dataclass
class ResultsFile:
    """One results file as read: ``tasks`` maps task key -> metric key -> value (as written)."""

    path: str
    harness: Harness
    model: str
    timestamp: float
    timestamp_source: str  # "file name", "date field" or "modification time"
    tasks: dict[str, dict[str, Any]]
    n_shot: dict[str, Any] = field(default_factory=dict)  # as written; ints where well formed
    groups: dict[str, Any] = field(default_factory=dict)  # lm-eval group_subtasks, keys unqualified, members as written
    sizes: dict[str, Any] = field(default_factory=dict)  # lm-eval n-samples, as written
    budgets: dict[str, dict] = field(default_factory=dict)  # task key -> a budgeted task's metadata.budget


@dataclass
class TaskResult:
    """The metrics of one task for one model and the file they came from."""

    metrics: dict[str, Any]
    source: str
    timestamp: float
    harness: Harness
    n_shot: int | None = None


@dataclass
class MetricValues:
    """Per-question rows of one metric of one task: ``rows[i]`` belongs to ``ids[i]``.

    ``fingerprints`` (optional, same order): a hash of each question's content; two runs'
    questions with one id but different non-empty fingerprints are not paired (a note says so).
    ``derived``: computed by scorekit from what the log holds rather than logged as a metric
    (pass@k from epochs); its comparisons are Holm-adjusted among themselves.
    """

    kind: ValueKind
    ids: list[str]
    rows: np.ndarray
    fingerprints: list[str] | None = None
    derived: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown metric kind {self.kind!r}")
        self.rows = np.asarray(self.rows, dtype=np.float64)
        if self.rows.ndim == 1:
            self.rows = self.rows[:, None]
        if len(self.ids) != len(self.rows):
            raise ValueError("one row per question id")
        if self.kind == "ratio" and self.rows.shape[1] == 2:  # every pair between parsed answers
            self.rows = np.column_stack([self.rows, self.rows[:, 1]])


def per_question(ids: list[str], values: Sequence[float], fingerprints: dict[str, str]) -> MetricValues:
    """One value per question: ``binary`` when every value is 0 or 1, else ``mean``."""
    rows = np.asarray(values, dtype=np.float64)
    kind = "binary" if np.isin(rows, (0.0, 1.0)).all() else "mean"
    return MetricValues(kind, ids, rows, [fingerprints.get(q, "") for q in ids])


@dataclass
class TaskFacts:
    """One task of one run as its harness files describe it."""

    harness: str  # "lm-eval", "lighteval", "inspect"
    library: str  # every_eval_ever's eval_library.name: lm_eval, lighteval, inspect_ai
    version: str  # "unknown" when the files do not say
    timestamp: float | None  # Unix seconds of the run
    source: str  # the file read
    reported: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)  # metric -> (value, stderr)
    higher_is_better: dict[str, bool] = field(default_factory=dict)  # metric name (no filter) -> bool
    hf_repo: str | None = None
    hf_split: str | None = None
    dataset: str | None = None
    reducer: str | None = None  # Inspect's epoch reducer when not the mean
    undefined: list[str] = field(default_factory=list)  # metrics the harness wrote as NaN (undefined)


def results_mapping(data: dict, path: str | os.PathLike, *, nonempty: bool = False) -> dict[str, dict]:
    """``data["results"]`` of a results file, checked to map each task to a mapping of metrics
    and, ``nonempty``, to hold a task (else :class:`ScorekitError` naming the file and place)."""
    results = data["results"]
    if not isinstance(results, dict):
        raise ScorekitError(f"expected a mapping of tasks, got {type(results).__name__}", path=path, where='"results"')
    if nonempty and not results:
        raise ScorekitError("results file holds no task results", path=path, where='"results"')
    for key, metrics in results.items():
        if not isinstance(metrics, dict):
            raise ScorekitError(f"expected a mapping of metrics, got {type(metrics).__name__}", path=path,
                                where=f'results["{key}"]')
    return results


def check_fraction(value: Any, *, path: str | None = None, where: str | None = None) -> float:
    """Return ``value`` as a float if it is a finite real number in [0, 1], else raise
    :class:`ScorekitError` naming ``path`` and ``where``.

    Booleans and strings (lm-eval writes ``"N/A"`` for some stderr values) are rejected, as
    are NaN/inf and numbers outside [0, 1].

    >>> check_fraction(1), check_fraction(0.25)
    (1.0, 0.25)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScorekitError(
            f"expected a number (a fraction in [0, 1]), got {type(value).__name__} {value!r}", path=path, where=where
        )
    value = float(value)
    if math.isnan(value):
        raise ScorekitError("value is NaN, expected a fraction in [0, 1]", path=path, where=where)
    if not 0.0 <= value <= 1.0:
        raise ScorekitError(f"value {value!r} is outside [0, 1], expected a fraction", path=path, where=where)
    return value


class QuestionTable:
    """Accumulates the per-question values of one task's metrics, as a format reads its file."""

    def __init__(self) -> None:
        self.values: dict[str, dict[str, float]] = defaultdict(dict)  # metric -> id -> value
        self.fingerprint: dict[str, str] = {}
        self.odd: dict[str, int] = defaultdict(int)  # metric -> per-sample values that are not numbers
        self.missing: dict[str, list[str]] = defaultdict(list)  # metric -> ids with a null or NaN value

    def add(self, key: str, qid: str, raw: Any) -> bool:
        """Keep one question's value; False (counted for the notes) when it is missing or not a
        number (a null or NaN: that question has no value of the metric, not a corpus-level metric)."""
        if raw is None or (isinstance(raw, float) and math.isnan(raw)):
            self.missing[key].append(qid)
        elif isinstance(raw, (int, float)) and math.isfinite(raw):
            self.values[key][qid] = float(raw)
            return True
        else:
            self.odd[key] += 1
        return False

    def notes(self, task: str, odd_why: str) -> list[str]:
        out = [f"{task} {key}: {n} per-sample value(s) are not numbers{odd_why}; not compared" for key, n in self.odd.items()]
        for key, ids in self.missing.items():
            if key not in self.odd:
                out.append(f"{task} {key}: {len(ids)} question(s) with a null or NaN value, left out of this "
                           f"metric only: {listed(ids, 5)}")
        return out

    def metrics(self) -> dict[str, MetricValues]:
        return {metric: per_question(list(by_id), list(by_id.values()), self.fingerprint)
                for metric, by_id in self.values.items() if metric not in self.odd}
