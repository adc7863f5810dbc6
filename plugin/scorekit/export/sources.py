"""What a run's harness files say about each task besides per-question values: the harness and
its version, when the run happened, the harness's own value and standard error of each metric,
which direction is better, and the dataset. The export puts these next to scorekit's numbers.

Read from the files of one run (one argument of ``scorekit export``) by the rules of each format's
module of :mod:`scorekit.harness_outputs`: results files by ``task_facts`` (``lm_eval``, ``lighteval``),
Inspect logs by ``log_facts`` (``inspect_logs``; header only: ``results.scores[scorer].metrics``,
``eval.created``, ``eval.dataset``, ``eval.packages["inspect_ai"]``, the epoch reducer). This module
dispatches; when a task is in several results files, the newest (by the time in the name) is used.
"""

from __future__ import annotations

import os

from scorekit.errors import ScorekitError
from scorekit.harness_outputs.values import TaskFacts

__all__ = ["TaskFacts", "collect_facts"]


def collect_facts(root: str | os.PathLike[str], model: str) -> dict[str, TaskFacts]:
    """Facts of every task of ``model``'s run under ``root`` (a folder or a file), by task key
    as :func:`scorekit.compare.inputs.read_run` names tasks (lm-eval keys without ``group::``)."""
    from scorekit.files import load_json
    from scorekit.harness_outputs.folders import walk
    from scorekit.harness_outputs.registry import log_format, results_format
    from scorekit.harness_outputs.runs import run_time

    found: dict[str, TaskFacts] = {}
    for f in walk([root]).files:
        fmt = log_format(f)
        if fmt is not None:
            read = fmt.log_facts(f)
            if read is None:
                continue
            m, task, facts = read
            if m == model and (task not in found or (found[task].timestamp or 0) <= (facts.timestamp or 0)):
                found[task] = facts
            continue
        if not f.endswith(".json"):
            continue
        try:
            data = load_json(f)
        except ScorekitError:
            continue  # not ours to judge here: read_run reports the files it needs
        fmt = results_format(data)
        if fmt is None:
            continue
        ts = run_time(f, data)[0]
        for key, facts in fmt.task_facts(f, data, ts).items():
            if key not in found or (found[key].timestamp or 0) <= ts:
                found[key] = facts
    return found


def facts_for(found: dict[str, TaskFacts], key: str) -> TaskFacts | None:
    """The facts of a table's task key: as is, else without lm-eval 0.5's ``group::``."""
    from scorekit.harness_outputs.keys import ungrouped

    return found.get(key) or found.get(ungrouped(key))
