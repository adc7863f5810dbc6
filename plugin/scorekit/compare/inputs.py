"""lm-eval and lighteval logs -> per-question tables (:class:`scorekit.compare.core.Run`).

One command-line argument (a folder or a file) is one run of one model. Found inside it:

- lm-eval ``samples_<task>_<time>.jsonl``: one row per document and filter; every metric the
  row lists (``metrics``) becomes ``<metric>,<filter>`` as in lm-eval's results files, the
  question id is ``doc_id`` and ``doc_hash`` (when logged) must match between runs. The model
  is the ``model_name`` of the results file of the same folder and time (else the folder).
- lighteval ``details_<task>|<n>_<time>.parquet``: one row per document; metrics from the
  ``metric`` column, task key ``<task>|<n>`` as in lighteval's results; question id the
  document's ``id`` (the row number when ids are missing or repeated, with a note) and the
  ``query`` text must match between runs.
- Inspect eval logs (``.eval``, ``.json``; also what ``lighteval eval`` writes): read by
  :mod:`scorekit.inspect_logs` (per question, the mean over epochs of each scorer, and pass@k).
- SCORE tasks (scorekit's or upstream's, either harness) are read with the robustness
  readers and recomputed from the answers: per-prompt / per-position accuracy (0/1), the
  accuracy spread (range, std) and the consistency rate on complete questions; non-greedy
  accuracy (mean over samples) and CR.

Per-sample values that are not numbers (lists, strings: corpus-level metrics like BLEU or
IFEval's instruction-level lists) are left out with a note. When a task appears in several
files of one run, the newest is used, with a note (run time as every command reads it:
:func:`scorekit.harness_outputs.run_time` of the file's run).
"""

from __future__ import annotations

import hashlib
import math
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from scorekit.compare.core import MetricValues, Run, per_question, run_labels
from scorekit.errors import ScorekitError, listed

__all__ = ["read_run", "read_runs"]


class _Table:
    """Accumulates per-question values of one task's metrics."""

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


def _read_lm_eval_samples(path: Path, table: _Table, notes: list[str], task: str) -> None:
    from scorekit.harness_outputs.samples import iter_samples

    for lineno, row in iter_samples(path):
        if "doc_id" not in row:
            raise ScorekitError("samples row lacks doc_id", path=path, where=f"line {lineno}")
        qid = str(row["doc_id"])
        filt = row.get("filter", "none")
        names = row.get("metrics")
        if not isinstance(names, list):  # older lm-eval: every key that is not bookkeeping
            names = [k for k in row if k not in ("doc_id", "doc", "target", "arguments", "resps", "filtered_resps",
                                                 "filter", "doc_hash", "prompt_hash", "target_hash")]
        if isinstance(row.get("doc_hash"), str):
            table.fingerprint[qid] = row["doc_hash"]
        for name in names:
            key = f"{name},{filt}"
            before = len(table.values.get(key, ()))
            if table.add(key, qid, row.get(name)) and len(table.values[key]) == before:
                raise ScorekitError(f"doc_id {qid} appears twice for filter {filt!r}", path=path, where=f"line {lineno}")
    notes.extend(table.notes(task, " (a corpus-level or list metric)"))


def _read_lighteval_details(path: Path, table: _Table, notes: list[str], task: str) -> None:
    from scorekit.robustness.readers.lighteval_details import read_details_table

    rows = read_details_table(path, ["doc", "metric"]).to_pylist()
    ids = [str((r.get("doc") or {}).get("id") or "") for r in rows]
    if any(not q for q in ids) or len(set(ids)) != len(ids):
        notes.append(f"{task}: documents without unique ids; questions paired by row number")
        ids = [str(i) for i in range(len(rows))]
    for qid, r in zip(ids, rows):
        query = (r.get("doc") or {}).get("query")
        if isinstance(query, str):
            table.fingerprint[qid] = hashlib.sha256(query.encode()).hexdigest()
        for key, raw in (r.get("metric") or {}).items():
            table.add(key, qid, raw)
    notes.extend(table.notes(task, ""))


from scorekit.compare.budget import budget_metrics  # noqa: E402 - after MetricValues' import above


def _score_metrics(sample_set: Any) -> dict[str, MetricValues]:
    """Per-question tables of one SCORE task (complete questions only, as the report does)."""
    from scorekit.metrics import consistency_counts
    from scorekit.metrics._validation import is_unparsed
    from scorekit.robustness.analysis import cr_name, variant_metric_name
    from scorekit.robustness.grading import equal_for

    by_q: dict[str, dict[int, Any]] = defaultdict(dict)
    n_var: dict[str, int] = {}
    for rec in sample_set.records:
        by_q[rec.question_id][rec.variant] = rec
        n_var[rec.question_id] = rec.n_variants
    complete = [q for q in by_q if len(by_q[q]) == n_var[q]]
    if not complete:
        return {}
    family = sample_set.task.family
    v = max(n_var[q] for q in complete)
    complete = [q for q in complete if n_var[q] == v]
    correct = np.array([[float(by_q[q][i].correct) for i in range(v)] for q in complete])
    agree, total = consistency_counts([[by_q[q][i].answer for i in range(v)] for q in complete],
                                      equal=equal_for(sample_set.task.benchmark))
    parsed = np.array([sum(not is_unparsed(by_q[q][i].answer) for i in range(v)) for q in complete])
    out = {cr_name(family): MetricValues("ratio", complete, np.column_stack([agree, total, parsed * (parsed - 1) // 2]))}
    if family == "non_greedy":
        out["non_greedy_accuracy"] = MetricValues("mean", complete, correct.mean(axis=1))
        return out
    for i in range(v):
        out[variant_metric_name(family, i, macro=False)] = MetricValues("binary", complete, correct[:, i])
    out["accuracy_range"] = MetricValues("range", complete, correct)
    out["accuracy_std"] = MetricValues("std", complete, correct)
    return out


def read_run(path: str | os.PathLike[str]) -> tuple[str, dict[str, dict[str, MetricValues]], list[str]]:
    """(model, {task: {metric: values}}, notes) of the run in ``path`` (a folder or a file).

    Raises ScorekitError when the path holds no samples logs or runs of several models.
    """
    from scorekit.aggregate.results_files import read_results_file
    from scorekit.robustness.readers import classify_task
    from scorekit.harness_outputs.folders import walk
    from scorekit.harness_outputs.identity import details_model
    from scorekit.harness_outputs.kinds import samples_name
    from scorekit.harness_outputs.runs import run_time
    from scorekit.robustness.benchmarks import parse_lighteval_task
    from scorekit.robustness.readers.lighteval_details import parse_details_name

    root = Path(path)
    found = walk([root])  # the rules every command reads by; its notes say what it left out
    files, notes = [Path(f) for f in found.files], found.notes()
    newest: dict[str, tuple[float, Path, str]] = {}  # task -> (run time, file, harness)
    models: dict[str, set[str]] = defaultdict(set)  # model -> tasks
    score_found = False
    results_of: dict[tuple[Path, str], Any] = {}  # (folder, time stamp) -> the run's results file
    from scorekit.inspect_logs import is_inspect_log  # Inspect adapter

    inspect_files = {f: None for f in files if is_inspect_log(f)}  # walk order kept, set lookups
    for f in files:
        if f.suffix == ".json" and "_" in f.stem and f not in inspect_files:
            try:
                rf = read_results_file(f)
            except ScorekitError:
                rf = None
            if rf is not None:
                results_of[(f.parent, f.stem.rsplit("_", 1)[-1])] = rf
    for f in files:
        lm = samples_name(f.name)
        le = parse_details_name(f.name) if lm is None else None
        if lm is not None:
            task, time = lm
            if classify_task(task) is not None:
                score_found = True
                continue
            rf = results_of.get((f.parent, time))
            model = rf.model if rf is not None else f.parent.name
            when = rf.timestamp if rf is not None else run_time(f)[0]
            key, harness = task, "lm-eval"
        elif le is not None:
            task, fewshot, time = le
            if parse_lighteval_task(task) is not None:
                score_found = True
                continue
            model = details_model(f)
            when = run_time(f)[0]
            key, harness = f"{task}|{fewshot}", "lighteval"
        else:
            if f == root and f not in inspect_files:
                raise ScorekitError("not an lm-eval samples_<task>_<time>.jsonl, a lighteval details_<task>|<n>_<time>.parquet "
                                    "nor an Inspect .eval/.json log", path=f)
            continue
        models[model].add(key)
        new, old = (when, f, harness), newest.get(key)
        if old is not None:  # the newest wins; a tie goes to the later path
            new, dropped = (old, new) if old[:2] > new[:2] else (new, old)
            notes.append(f"{key}: several samples files; the newest ({new[1].name}) is used, {dropped[1]} is not")
        newest[key] = new
    tasks: dict[str, dict[str, MetricValues]] = {}
    for key, (_, f, harness) in sorted(newest.items()):
        table = _Table()
        (_read_lm_eval_samples if harness == "lm-eval" else _read_lighteval_details)(f, table, notes, key)
        tasks[key] = table.metrics()
    if inspect_files:  # Inspect adapter: the same per-question tables, from scorekit.inspect_logs
        from scorekit.inspect_logs import read_inspect_logs

        for (model, key), log in sorted(read_inspect_logs(list(inspect_files), notes).items()):
            models[model].add(key)
            if key in tasks:
                notes.append(f"{key}: found both as harness samples and as an Inspect log; the Inspect log is used")
            tasks[key] = log.metrics
            notes.extend(log.notes)
    if score_found:
        from scorekit.robustness.readers import read_paths

        read = read_paths([root])
        notes.extend(n for n in read.notes if n not in notes)  # its walk's notes are said already
        seen: dict[str, str] = {}
        for s in read.samples:
            models[s.model].add(s.task.name)
            if s.task.name in seen:
                notes.append(f"{s.task.name}: several sample sets; the later one read is used")
            seen[s.task.name] = s.model
            tasks[s.task.name] = _score_metrics(s) if s.design is None or s.design.full else budget_metrics(s)
            notes.extend(f"{s.task.name}: {n}" for n in s.notes)
    if not tasks:
        raise ScorekitError("no samples logs found (lm-eval --log_samples samples_*.jsonl, lighteval "
                            "--save-details details_*.parquet or Inspect .eval/.json logs); compare needs "
                            "per-question results", path=root)
    if len(models) > 1:
        raise ScorekitError(f"holds runs of {len(models)} models ({listed(sorted(models))}); give one run per argument", path=root)
    return next(iter(models)), tasks, notes


def read_runs(paths: list[str], labels: list[str] | None = None) -> list[Run]:
    """The run of each path (:func:`read_run`), labelled by ``labels`` (one per path, as given)
    or by its model's display name (:func:`scorekit.harness_outputs.identity.display_names`:
    a local path by its last folder), made unique by :func:`~scorekit.compare.core.run_labels`."""
    from scorekit.harness_outputs.identity import display_names

    from scorekit.compare.budget import check_designs

    read = [read_run(path) for path in paths]
    labels = labels or run_labels(display_names([model for model, _, _ in read]))
    runs = [Run(label, model, str(path), tasks, notes) for label, path, (model, tasks, notes) in zip(labels, paths, read)]
    check_designs(runs)  # budgeted tasks: one design in every run that has them, else one line why not
    return runs
