"""What a run's harness files say about each task besides per-question values: the harness and
its version, when the run happened, the harness's own value and standard error of each metric,
which direction is better, and the dataset. The export puts these next to scorekit's numbers.

Read from (one run = one argument of ``scorekit export``):

- lm-eval results files (0.4.x, 0.5): ``results[task]`` values and ``<metric>_stderr,<filter>``
  (``"N/A"`` and other non-numbers read as unknown), ``higher_is_better[task]``,
  ``configs[task].dataset_path`` / ``test_split`` (else ``validation_split``),
  ``lm_eval_version``, ``date``. Task keys are looked up without 0.5's ``group::`` qualifier;
- lighteval results files: ``results["<suite>|task|n"]`` values and ``<metric>_stderr``,
  ``config_tasks[key].metrics[*].higher_is_better`` and ``hf_repo``; lighteval 0.13 writes no
  version (``lighteval_sha`` is ``"?"``), so the version is ``unknown``;
- Inspect logs (header only): ``results.scores[scorer].metrics`` (``accuracy``, ``stderr``...),
  ``eval.created``, ``eval.dataset``, ``eval.packages["inspect_ai"]``, the epoch reducer.

When a task is in several results files, the newest (by the time in the name) is used.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

from scorekit.errors import ScorekitError
from scorekit.io import finite_number

__all__ = ["TaskFacts", "collect_facts"]


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


def _lm_eval(path: str, data: dict, ts: float) -> dict[str, TaskFacts]:
    from scorekit.harness_outputs.keys import ungrouped

    version = data.get("lm_eval_version")
    version = version if isinstance(version, str) and version else "unknown"
    hib_all = data.get("higher_is_better") if isinstance(data.get("higher_is_better"), dict) else {}
    configs = data.get("configs") if isinstance(data.get("configs"), dict) else {}
    out = {}
    for key, metrics in data["results"].items():
        if not isinstance(metrics, dict):
            continue
        reported, undefined = {}, []
        for name, value in metrics.items():
            base, sep, filt = name.partition(",")
            if base.endswith("_stderr") or name in ("alias", "name", "samples", "sample_len", "sample_count"):
                continue
            v = finite_number(value)
            if v is None:
                if isinstance(value, float) and math.isnan(value):
                    undefined.append(name)
                continue
            reported[name] = (v, finite_number(metrics.get(f"{base}_stderr{sep}{filt}")))
        hib = hib_all.get(key) if isinstance(hib_all.get(key), dict) else {}
        cfg = configs.get(key) if isinstance(configs.get(key), dict) else {}
        repo = cfg.get("dataset_path")
        split = cfg.get("test_split") or cfg.get("validation_split")
        out[ungrouped(key)] = TaskFacts(
            "lm-eval", "lm_eval", version, ts, path, reported, {k: v for k, v in hib.items() if isinstance(v, bool)},
            repo if isinstance(repo, str) and repo else None, split if isinstance(split, str) else None,
            cfg.get("task") if isinstance(cfg.get("task"), str) else None, undefined=undefined)
    return out


def _lighteval(path: str, data: dict, ts: float) -> dict[str, TaskFacts]:
    configs = data.get("config_tasks") if isinstance(data.get("config_tasks"), dict) else {}
    out = {}
    for key, metrics in data["results"].items():
        if key == "all" or not isinstance(metrics, dict):
            continue
        reported = {name: (v, finite_number(metrics.get(f"{name}_stderr"))) for name, value in metrics.items()
                    if not name.endswith("_stderr") and (v := finite_number(value)) is not None}
        undefined = [name for name, value in metrics.items()
                     if not name.endswith("_stderr") and isinstance(value, float) and math.isnan(value)]
        cfg = configs.get(key) if isinstance(configs.get(key), dict) else {}
        hib = {m["metric_name"]: m["higher_is_better"] for m in cfg.get("metrics") or []
               if isinstance(m, dict) and isinstance(m.get("metric_name"), str) and isinstance(m.get("higher_is_better"), bool)}
        repo = cfg.get("hf_repo")
        splits = cfg.get("evaluation_splits")
        out[key] = TaskFacts("lighteval", "lighteval", "unknown", ts, path, reported, hib,
                             repo if isinstance(repo, str) and repo and not repo.startswith("/") else None,
                             splits[0] if isinstance(splits, list) and splits and isinstance(splits[0], str) else None,
                             cfg.get("name") if isinstance(cfg.get("name"), str) else None, undefined=undefined)
    return out


def _inspect(path: str) -> tuple[str, str, TaskFacts]:
    from scorekit.inspect_logs import read_inspect_header

    h = read_inspect_header(path)
    reported = {scorer: h.headline(scorer) for scorer in h.reported}
    return h.model, h.task, TaskFacts("inspect", "inspect_ai", h.inspect_version or "unknown", h.timestamp, path,
                                      {k: v for k, v in reported.items() if v[0] is not None}, {}, None, None,
                                      h.dataset, h.reducer)


def collect_facts(root: str | os.PathLike[str], model: str) -> dict[str, TaskFacts]:
    """Facts of every task of ``model``'s run under ``root`` (a folder or a file), by task key
    as :func:`scorekit.compare.inputs.read_run` names tasks (lm-eval keys without ``group::``)."""
    from scorekit.harness_outputs.folders import walk
    from scorekit.harness_outputs.kinds import results_harness
    from scorekit.harness_outputs.runs import run_time
    from scorekit.inspect_logs import is_inspect_log
    from scorekit.io import load_json

    found: dict[str, TaskFacts] = {}
    for f in walk([root]).files:
        if is_inspect_log(f):
            m, task, facts = _inspect(f)
            if m == model and (task not in found or (found[task].timestamp or 0) <= (facts.timestamp or 0)):
                found[task] = facts
            continue
        if not f.endswith(".json"):
            continue
        try:
            data = load_json(f)
        except ScorekitError:
            continue  # not ours to judge here: read_run reports the files it needs
        harness = results_harness(data)
        if harness is None:
            continue
        ts = run_time(f, data)[0]
        per_task = _lm_eval(f, data, ts) if harness == "lm-eval" else _lighteval(f, data, ts)
        for key, facts in per_task.items():
            if key not in found or (found[key].timestamp or 0) <= ts:
                found[key] = facts
    return found


def facts_for(found: dict[str, TaskFacts], key: str) -> TaskFacts | None:
    """The facts of a table's task key: as is, else without lm-eval 0.5's ``group::``."""
    from scorekit.harness_outputs.keys import ungrouped

    return found.get(key) or found.get(ungrouped(key))
