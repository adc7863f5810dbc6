"""Inspect eval logs (``.eval`` zip or ``.json``) -> per-question tables (the Inspect adapter).

Inspect (inspect_ai) writes one log per task and model; ``lighteval eval`` (lighteval 0.13)
writes the same logs. They are read with inspect_ai's own reader
(``inspect_ai.log.read_eval_log``), an optional dependency imported only here, when a log is
met (``pip install 'scorekit[inspect]'``; it also comes with ``scorekit[lighteval]``).

What a log gives (:func:`read_inspect_log`):

- the task key is the log's ``eval.task``, the model its ``eval.model``;
- samples are keyed by (sample ``id``, ``epoch``); an id logged twice for one epoch is an
  error. A question is one sample id; its fingerprint is a SHA-256 of the sample's input and
  target, so two runs pair a question only when both hold the same content;
- each scorer's per-sample ``Score.value`` becomes a number by Inspect's own convention
  (``value_to_float``): ``"C"`` 1, ``"I"`` 0, ``"P"`` 0.5, ``"N"`` 0, booleans, numbers and
  numeric strings as numbers, ``yes``/``true`` 1 and ``no``/``false`` 0. A scorer whose value is
  a dict gives one metric per key (``scorer/key``). Values that are none of these (lists,
  other strings) are left out with a note, never read as 0 (Inspect warns and uses 0 there);
- per question, the metric ``<scorer>`` is the mean of its epochs' values (with one epoch,
  the value itself: 0/1 scores are then ``binary`` and compared with McNemar; means over
  epochs are ``mean`` unless every one is 0 or 1). With ``E`` > 1 epochs and 0/1 scores,
  ``<scorer>/pass@k`` for 2 <= k <= E is the unbiased per-question pass@k from the question's
  n epochs and c correct ones (:func:`scorekit.metrics.pass_at_k`; pass@1 is the mean itself);
  a question with fewer than k scored epochs is left out of pass@k, with a note; pass@k is
  marked ``derived`` (not a metric the log holds: compare adjusts its p-values apart);
- samples with an ``error`` or without a scorer's score are left out of that scorer, with a
  note; a log whose status is not ``success`` is read with a note saying so.

The log's own results (``results.scores[*].metrics``: accuracy, stderr, ...) are kept in
:class:`LogHeader` (``InspectRun.header.reported``) for the export and for a check: scorekit's values are recomputed
from the samples (Inspect's epoch reducer, when not the mean, changes what Inspect reports;
a note names it).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scorekit.compare.core import MetricValues, per_question
from scorekit.errors import ScorekitError
from scorekit.io import finite_number

__all__ = ["INSTALL_HINT", "InspectRun", "LogHeader", "inspect_results_file", "is_inspect_log", "read_inspect_header",
           "read_inspect_log", "read_inspect_logs", "score_value"]

INSTALL_HINT = "reading Inspect logs needs inspect_ai: pip install 'scorekit[inspect]'"
_JSON_HEAD = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


@dataclass
class LogHeader:
    """What an Inspect log says besides its samples (read with ``header_only=True``)."""

    path: str
    task: str
    model: str
    created: str  # ISO time, as Inspect wrote it
    timestamp: float | None  # the same in Unix seconds (None when unparsable)
    status: str
    epochs: int
    reducer: str | None  # the epoch reducer, when not the mean
    reported: dict[str, dict[str, float]]  # scorer -> the log's metrics (accuracy, stderr, ...)
    dataset: str | None
    inspect_version: str | None

    def headline(self, scorer: str) -> tuple[float | None, float | None]:
        """(value, stderr) the log reports for ``scorer``: its ``accuracy`` (else ``mean``) and
        ``stderr``; None where the log has none."""
        ms = self.reported.get(scorer, {})
        return ms.get("accuracy", ms.get("mean")), ms.get("stderr")


@dataclass
class InspectRun:
    """One Inspect log read into per-question tables (see the module docstring)."""

    header: LogHeader
    metrics: dict[str, MetricValues]
    notes: list[str] = field(default_factory=list)


def is_inspect_log(path: str | os.PathLike[str]) -> bool:
    """True for an Inspect ``.eval`` log (a zip file) or a ``.json`` log (a JSON object that
    opens with Inspect's ``"version"`` and ``"status"`` keys). Reads at most 64 bytes."""
    p = os.fspath(path)
    if p.endswith(".eval"):
        return True
    if not p.endswith(".json"):
        return False
    try:
        with open(p, "rb") as fh:
            return bool(_JSON_HEAD.match(fh.read(64)))
    except OSError:
        return False


def score_value(value: Any) -> float | None:
    """A per-sample score value as a number by Inspect's ``value_to_float`` convention, or None
    for a value that is not one (a list, a dict, another string, a non-finite number).

    >>> [score_value(v) for v in ("C", "I", "P", "N", True, 3, "0.25", "Yes", "maybe", [1])]
    [1.0, 0.0, 0.5, 0.0, 1.0, 3.0, 0.25, 1.0, None, None]
    """
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if value in _LETTERS or text in _WORDS:
            return _LETTERS.get(value, _WORDS.get(text))
        try:
            value = float(text)
        except ValueError:
            return None
    return finite_number(value)


def _load(path: str, header_only: bool = False) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ScorekitError(INSTALL_HINT, path=path) from None
    try:
        return read_eval_log(path, header_only=header_only)
    except Exception as exc:  # inspect_ai raises zip, JSON and pydantic errors for damaged logs
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ScorekitError(f"cannot read Inspect log: {first}", path=path) from None


def _header(path: str, log: Any) -> LogHeader:
    from datetime import datetime

    ev = log.eval
    try:
        ts: float | None = datetime.fromisoformat(str(ev.created)).timestamp()
    except ValueError:
        ts = None
    reducer = getattr(ev.config, "epochs_reducer", None)
    dataset = getattr(ev.dataset, "name", None) or getattr(ev.dataset, "location", None)
    return LogHeader(path=path, task=str(ev.task), model=str(ev.model), created=str(ev.created), timestamp=ts,
                     status=str(log.status), epochs=int(getattr(ev.config, "epochs", None) or 1),
                     reducer=", ".join(map(str, reducer)) if reducer and list(reducer) != ["mean"] else None,
                     reported=_reported(log), dataset=str(dataset) if dataset else None,
                     inspect_version=(getattr(ev, "packages", None) or {}).get("inspect_ai"))


def read_inspect_header(path: str | os.PathLike[str]) -> LogHeader:
    """The header of one Inspect log (no samples read); errors as :func:`read_inspect_log`."""
    p = os.fspath(path)
    return _header(p, _load(p, header_only=True))


def _fingerprint(sample: Any) -> str:
    def plain(x: Any) -> Any:
        if isinstance(x, (str, int, float)) or x is None:
            return x
        if isinstance(x, list):
            return [plain(v) for v in x]
        dump = getattr(x, "model_dump", None)
        return dump(mode="json", exclude={"id", "source"}) if dump else str(x)

    text = json.dumps([plain(sample.input), plain(sample.target)], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _reported(log: Any) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for score in (log.results.scores if log.results else None) or []:
        values = {name: finite_number(m.value if hasattr(m, "value") else m) for name, m in (score.metrics or {}).items()}
        out[score.name] = {name: v for name, v in values.items() if v is not None}
    return out


def read_inspect_log(path: str | os.PathLike[str]) -> InspectRun:
    """Read one Inspect log into :class:`InspectRun` (rules in the module docstring).

    Raises ScorekitError (one line naming the file) when inspect_ai is missing, the log cannot
    be read, holds no samples, or logs one (id, epoch) twice.
    """
    from scorekit.metrics import pass_at_k

    p = os.fspath(path)
    log = _load(p)
    header = _header(p, log)
    notes: list[str] = []
    task, epochs = header.task, header.epochs
    if header.status != "success":
        notes.append(f"{task}: the log's status is {header.status!r} (not success); its logged samples are read")
    samples = log.samples or []
    if not samples:
        raise ScorekitError("Inspect log holds no samples (written with --no-log-samples?); "
                            "scorekit needs per-sample scores", path=p)
    if header.reducer:
        notes.append(f"{task}: the log's epoch reducer is {header.reducer}; scorekit's values are "
                     "means over epochs (and pass@k) recomputed from the samples, so they may differ from Inspect's")
    fingerprints: dict[str, str] = {}
    values: dict[str, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))  # metric -> id -> epoch -> v
    seen: set[tuple[str, int]] = set()
    errored = 0
    odd: dict[str, int] = defaultdict(int)
    order: list[str] = []
    for s in samples:
        qid, epoch = str(s.id), int(s.epoch)
        if (qid, epoch) in seen:
            raise ScorekitError(f"sample id {qid} appears twice for epoch {epoch}", path=p)
        seen.add((qid, epoch))
        if qid not in fingerprints:
            fingerprints[qid] = _fingerprint(s)
            order.append(qid)
        if s.error is not None:
            errored += 1
            continue
        for scorer, score in (s.scores or {}).items():
            raw = score.value
            items = ((f"{scorer}/{k}", v) for k, v in raw.items()) if isinstance(raw, dict) else ((scorer, raw),)
            for name, v in items:
                x = score_value(v)
                if x is None:
                    odd[name] += 1
                    continue
                values[name][qid][epoch] = x
    if errored:
        notes.append(f"{task}: {errored} sample(s) ended in an error; left out")
    for name, n in odd.items():
        notes.append(f"{task} {name}: {n} per-sample value(s) are not numbers (a list or free text); left out")
    metrics: dict[str, MetricValues] = {}
    for name in sorted(values):
        by_q = values[name]
        ids = [q for q in order if q in by_q]
        if not ids:
            continue
        lacking = [q for q in order if q not in by_q]
        if lacking:
            notes.append(f"{task} {name}: {len(lacking)} question(s) have no score; left out")
        short = [q for q in ids if len(by_q[q]) < epochs]
        if short:
            notes.append(f"{task} {name}: {len(short)} question(s) have fewer than {epochs} scored epochs; "
                         "their mean is over the epochs they have")
        metrics[name] = per_question(ids, [float(np.mean(list(by_q[q].values()))) for q in ids], fingerprints)
        every = [v for q in ids for v in by_q[q].values()]
        if epochs > 1 and all(v in (0.0, 1.0) for v in every):
            n = np.array([len(by_q[q]) for q in ids])
            c = np.array([int(sum(by_q[q].values())) for q in ids])
            for k in range(2, epochs + 1):
                keep = n >= k
                if not keep.any():
                    continue
                if not keep.all():
                    notes.append(f"{task} {name}/pass@{k}: {int((~keep).sum())} question(s) with fewer than {k} "
                                 "scored epochs left out")
                kept = [q for q, ok in zip(ids, keep) if ok]
                derived = per_question(kept, np.atleast_1d(pass_at_k(n[keep], c[keep], k)), fingerprints)
                derived.derived = True  # not in the log: its comparisons are a Holm family of their own
                metrics[f"{name}/pass@{k}"] = derived
    return InspectRun(header, metrics, notes)


def read_inspect_logs(files: list[Path], notes: list[str]) -> dict[tuple[str, str], InspectRun]:
    """The Inspect logs among ``files``, one per (model, task): when a model's task has several
    logs, the newest (by ``eval.created``) is used and a note names the others."""
    newest: dict[tuple[str, str], InspectRun] = {}
    for f in files:
        run = read_inspect_log(f)
        key = (run.header.model, run.header.task)
        old = newest.get(key)
        if old is not None:
            run, dropped = (old, run) if old.header.created >= run.header.created else (run, old)
            notes.append(f"{key[1]}: several Inspect logs; the newest ({Path(run.header.path).name}) is used, "
                         f"{dropped.header.path} is not")
        newest[key] = run
    return newest


def inspect_results_file(path: str | os.PathLike[str]) -> Any:
    """An Inspect log as a :class:`scorekit.aggregate.results_files.ResultsFile` (harness
    ``"inspect"``), for ``scorekit leaderboard`` and ``scorekit scorecard``.

    The task key is ``eval.task``; per scorer, ``<scorer>`` is the log's ``accuracy`` (else its
    ``mean``) and ``<scorer>_stderr`` its ``stderr`` (lighteval's key style, so configs write
    ``{task: arith, metric: match}``); every other metric of the scorer is ``<scorer>/<metric>``.
    A scorer without a ``stderr`` metric gets one recomputed from the samples: the standard
    deviation of the per-question values (mean over epochs; n - 1) over sqrt(n), which is
    Inspect's own ``stderr()`` on the mean-reduced scores.
    """
    from scorekit.aggregate.results_files import ResultsFile

    p = os.fspath(path)
    header = read_inspect_header(p)
    metrics: dict[str, float] = {}
    need_stderr = []
    for scorer, ms in header.reported.items():
        value, stderr = header.headline(scorer)
        if value is None:
            continue
        metrics[scorer] = value
        if stderr is not None:
            metrics[f"{scorer}_stderr"] = stderr
        else:
            need_stderr.append(scorer)
        for name, v in ms.items():
            if name not in ("accuracy", "mean", "stderr"):
                metrics[f"{scorer}/{name}"] = v
    if need_stderr:
        run = read_inspect_log(p)
        for scorer in need_stderr:
            mv = run.metrics.get(scorer)
            if mv is not None and len(mv.rows) >= 2:
                metrics[f"{scorer}_stderr"] = float(np.std(mv.rows[:, 0], ddof=1) / math.sqrt(len(mv.rows)))
    if not metrics:
        raise ScorekitError("Inspect log has no results (the run did not finish?)", path=p)
    ts, source = (header.timestamp, "log creation time") if header.timestamp is not None else (os.path.getmtime(p), "modification time")
    return ResultsFile(p, "inspect", header.model, ts, source, {header.task: metrics})
