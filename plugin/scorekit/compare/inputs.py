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
  :mod:`scorekit.harness_outputs.inspect_logs` (per question, the mean over epochs of each
  scorer, and pass@k).
- any format registered with :func:`scorekit.harness_outputs.registry.register_format`.

Each harness's rules live in its module of :mod:`scorekit.harness_outputs` (``lm_eval``,
``lighteval``, ``inspect_logs``); this module only dispatches and merges.
- SCORE tasks (scorekit's or upstream's, either harness) and the variant tasks of
  ``scorekit variants`` (lm-eval's ``robust_<family>_<T>``; lighteval's
  ``robust_<family>_<T>:template_<t>`` / ``:position_<L>``, merged into their family's task
  ``robust_<family>_<T>``) are read with the robustness readers and recomputed from the
  answers: per-prompt / per-position accuracy (0/1), the accuracy spread (range, std) and the
  consistency rate on complete questions; non-greedy accuracy (mean over samples) and CR. A
  budgeted run of either harness (``--budget``) is compared question by question on its design
  (:mod:`scorekit.compare.budget`).

Per-sample values that are not numbers (lists, strings: corpus-level metrics like BLEU or
IFEval's instruction-level lists) are left out with a note. When a task appears in several
files of one run, the newest is used, with a note (run time as every command reads it:
:func:`scorekit.harness_outputs.run_time` of the file's run).
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from scorekit.compare.budget import budget_metrics
from scorekit.compare.core import MetricValues, Run, run_labels
from scorekit.errors import ScorekitError, listed
from scorekit.harness_outputs.formats import Format, QuestionFile

__all__ = ["read_run", "read_runs"]


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

    Every file is offered to the harness formats (:mod:`scorekit.harness_outputs.registry`):
    per-question files (the newest of each task is read), then whole-run logs. SCORE tasks are
    read with the robustness readers. Raises ScorekitError when the path holds no per-question
    files or runs of several models.
    """
    from scorekit.harness_outputs.folders import walk
    from scorekit.harness_outputs.registry import RunFolder, formats, log_format
    from scorekit.robustness.readers import is_score_task

    root = Path(path)
    found = walk([root])  # the rules every command reads by; its notes say what it left out
    files, notes = [Path(f) for f in found.files], found.notes()
    run, every = RunFolder(files), formats()
    newest: dict[str, QuestionFile] = {}
    models: dict[str, set[str]] = defaultdict(set)  # model -> tasks
    logs: dict[Format, list[Path]] = defaultdict(list)
    score_found = False
    for f in files:
        fmt = log_format(f)
        if fmt is not None:
            logs[fmt].append(f)
            continue
        qf = next((q for q in (fmt.question_file(f, run) for fmt in every) if q is not None), None)
        if qf is None:
            if f == root:
                raise ScorekitError("not an lm-eval samples_<task>_<time>.jsonl, a lighteval details_<task>|<n>_<time>.parquet "
                                    "nor an Inspect .eval/.json log", path=f)
            continue
        if is_score_task(qf.format.name, qf.task):
            score_found = True
            continue
        models[qf.model].add(qf.key)
        old = newest.get(qf.key)
        if old is not None:  # the newest wins; a tie goes to the later path
            qf, dropped = (old, qf) if (old.when, old.path) > (qf.when, qf.path) else (qf, old)
            notes.append(f"{qf.key}: several samples files; the newest ({qf.path.name}) is used, {dropped.path} is not")
        newest[qf.key] = qf
    tasks: dict[str, dict[str, MetricValues]] = {}
    for key, qf in sorted(newest.items()):
        tasks[key] = qf.format.read_questions(qf, notes)
    for fmt in every:  # whole-run logs (Inspect): the same per-question tables
        if not logs.get(fmt):
            continue
        for (model, key), log in sorted(fmt.read_logs(logs[fmt], notes).items()):
            models[model].add(key)
            if key in tasks:
                notes.append(f"{key}: found both as harness samples and as an {_log_name(fmt)} log; the "
                             f"{_log_name(fmt)} log is used")
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


def _log_name(fmt: Format) -> str:
    return "Inspect" if fmt.name == "inspect" else fmt.name


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
