"""The harness formats scorekit reads, and the one registry every reader of harness files asks.

A format is an object that says which files are its own and reads them into the shared values
of :mod:`scorekit.harness_outputs.values`, in the way inspect_ai's log recorders each declare
the locations they handle. :class:`Format` is the interface: a format overrides what its
files hold and keeps the defaults (nothing claimed) for the rest.

================================  ===========================================  ===================
Method                            Says / reads                                 Asked by
================================  ===========================================  ===================
``is_log(path)``                  a whole-run log read in one piece (Inspect's  every command
                                  ``.eval`` / ``.json``): checked first
``is_results(data)``              parsed JSON is this format's results file    leaderboard,
``read_results(path, data)``      -> :class:`ResultsFile` (``data`` None for    scorecard, compare,
                                  a log)                                       export
``question_file(path, run)``      a per-question file (samples, details) by    compare, export
                                  its name -> :class:`QuestionFile` or None
``read_questions(file, notes)``   -> ``{metric: MetricValues}``                compare, export
``read_logs(paths, notes)``       logs -> ``{(model, task): run}`` with         compare, export
                                  ``.metrics`` and ``.notes``
``holds_questions(path)``         the file carries per-question values         export (sources)
``task_facts(path, data, ts)``    -> ``{task: TaskFacts}`` of a results file   export
``log_facts(path)``               -> ``(model, task, TaskFacts)`` of a log     export
================================  ===========================================  ===================

:func:`scorekit.harness_outputs.registry.register_format` adds a format; the built-in ones (lm-eval, lighteval, Inspect) come
first, then registered ones in order. ``scorekit robustness`` reads SCORE records with its own
readers (:func:`scorekit.robustness.readers.register_reader`); a log format without one is
named in a note there. ``docs/extending.md`` shows a new format in one file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from scorekit.harness_outputs.values import MetricValues, ResultsFile, TaskFacts

__all__ = ["Format", "QuestionFile", "RunFiles"]


@dataclass
class QuestionFile:
    """One per-question file of a run, as its name (and its run's results file) says.

    ``task`` is the task as the harness named it (checked by ``scorekit compare`` for SCORE
    tasks); ``key`` the task key tables show; ``when`` the run time (the newest file of a key
    is read)."""

    path: Path
    format: Format
    task: str
    key: str
    model: str
    when: float


class RunFiles(Protocol):
    """The files of one run, as a format's :meth:`Format.question_file` sees them
    (:class:`scorekit.harness_outputs.registry.RunFolder`)."""

    files: list[Path]

    def results_at(self, folder: Path, stamp: str) -> ResultsFile | None:
        """The results file ``<folder>/results_<stamp>.json`` (any format) of this run, or None."""


class Format:
    """A harness file format (see the module docstring). Subclass it and override what applies."""

    name: str = ""  # as tables and notes say it: "lm-eval", "lighteval", "inspect"
    library: str = ""  # the library that writes it (every_eval_ever's eval_library.name)

    def is_log(self, path: Path) -> bool:
        return False

    def is_results(self, data: Any) -> bool:
        return False

    def read_results(self, path: str, data: Any) -> ResultsFile:
        raise NotImplementedError(f"{self.name} has no results files")

    def question_file(self, path: Path, run: RunFiles) -> QuestionFile | None:
        return None

    def read_questions(self, file: QuestionFile, notes: list[str]) -> dict[str, MetricValues]:
        raise NotImplementedError(f"{self.name} has no per-question files")

    def read_logs(self, paths: Sequence[Path], notes: list[str]) -> dict[tuple[str, str], Any]:
        return {}

    def holds_questions(self, path: Path) -> bool:
        return self.is_log(path)

    def task_facts(self, path: str, data: Any, timestamp: float) -> dict[str, TaskFacts]:
        return {}

    def log_facts(self, path: str) -> tuple[str, str, TaskFacts] | None:
        return None

    def __repr__(self) -> str:
        return f"<format {self.name}>"
