"""One run -> one every_eval_ever aggregate document (``eval.schema.json`` 0.3.0).

Schema: github.com/evaleval/every_eval_ever, ``every_eval_ever/schemas/eval.schema.json`` at
commit 9bce4136e789ec006c62582f5f9d107d20f8b398 (vendored in tests/export/schema/).

Mapping (pure: per-question tables, their values and the harness files' facts in, a dict out):

``evaluation_results[]``, one per task and metric that has per-question values
    ``evaluation_name`` the task key, ``evaluation_result_id`` ``<task>/<metric>``;
    ``metric_config.metric_name`` the metric as the harness names it (``acc,none``, ``em``,
    an Inspect scorer, ``match/pass@2``, SCORE's ``consistency_rate``); ``metric_id`` the
    global ``pass_at_k`` (with ``metric_parameters.k``) for pass@k, else the name namespaced by
    its library (``lm_eval.acc``, ``inspect_ai.match``, ``scorekit.consistency_rate``);
    ``score_details.score`` scorekit's value on all the run's questions (the mean of the
    per-question values; pooled agreeing pairs / pairs for a consistency rate; the range or
    std of per-variant accuracies for a spread), which for a mean equals the harness's own;
    ``uncertainty.standard_error`` the standard deviation of the per-question values (n - 1)
    over sqrt(n) for means and 0/1 metrics (lm-eval's and Inspect's own formula), absent for
    ratios and spreads; ``uncertainty.confidence_interval`` scorekit's interval with its
    ``method`` (``wilson``: Wilson score interval over questions; ``bootstrap``: percentile
    bootstrap over questions, ``num_bootstrap_samples`` given; ``korn-graubard`` for a
    consistency rate; ``spread of Wilson intervals``) and ``confidence_level``; ``num_samples``
    the number of questions. An interval the rule of
    :func:`scorekit.metrics.intervals.unreported` withholds (fewer than 2 questions; a
    resampled one below 10; zero width) is left out, and ``details.confidence_interval`` says
    why. An undefined value (a consistency rate with no two parsed answers to a question) is
    not a result at all: it is left out, with a note, never written as a number.
``evaluation_results[]`` for metrics the harness reported without per-question values
    (corpus-level metrics, groups, runs without samples logs): the harness's value and, when
    it is a number, its standard error (``method``: ``reported by <library>``) and a normal
    interval value +- z * stderr (``method``: ``normal approximation from the reported standard
    error``; clipped to [0, 1] for a metric known to lie there, and the method says so).
    lm-eval's ``"N/A"`` stderr leaves both out.
Robustness (SCORE tasks): each prompt's or answer position's accuracy, the accuracy spread
    and the consistency rate are results of their own; ``metric_config.additional_details``
    says which (``scorekit_robustness``): the schema has no typed place for them.
Direction and bounds: ``lower_is_better`` from the harness's ``higher_is_better`` when it says;
    a spread is lower-is-better; otherwise higher is better, and
    ``additional_details.direction`` says it was assumed. Metrics known to lie in [0, 1]
    (0/1 values, pass@k, rates, spreads, accuracy-like names) are ``continuous`` with
    ``min_score`` 0 and ``max_score`` 1; others carry no ``score_type`` and
    ``additional_details.bounds_status = unknown``.
``score_details.details`` (strings): scorekit's kind, and the harness's own value and stderr
    when its files give them.
Notes (what was left out and why) go to ``source_metadata.additional_details.scorekit_notes``
    as a JSON list.
``evaluation_id`` (:func:`evaluation_id`) is the run's own identity, ``<tasks>/<model>/<run
    time>`` from its files, whatever folder holds them; ``model_info.id`` the model as the
    harness names it, ``model_info.name`` as tables show it (a local path by its last folder).
"""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np

from scorekit.compare.core import MetricValues, Value
from scorekit.export.sources import TaskFacts, facts_for
from scorekit.files import finite_number
from scorekit.metrics.intervals import z_value

__all__ = ["SCHEMA_VERSION", "SCHEMA_COMMIT", "build_document", "document_uuid"]

SCHEMA_VERSION = "0.3.0"
SCHEMA_COMMIT = "9bce4136e789ec006c62582f5f9d107d20f8b398"
_BOUNDED = {"acc", "acc_norm", "exact_match", "em", "f1", "mc1", "mc2", "accuracy", "pem", "qem", "pqem",
            "prompt_level_strict_acc", "prompt_level_loose_acc", "inst_level_strict_acc", "inst_level_loose_acc",
            "non_greedy_accuracy", "non_greedy_macro_accuracy"}
_INTERVAL = {"wilson": "Wilson score interval over questions",
             "bootstrap": "percentile bootstrap over questions",
             "korn-graubard": "Korn-Graubard interval over questions (agreeing pairs clustered by question)",
             "spread of Wilson intervals": "smallest and largest spread of the variants' accuracies inside their "
                                           "Wilson intervals"}
_ROBUSTNESS = {"binary": "accuracy of one prompt variant or answer position", "ratio": "consistency rate",
               "range": "accuracy spread across variants (max - min)", "std": "accuracy spread across variants (std)",
               "mean": "accuracy averaged over sampled answers"}


def _base(metric: str) -> str:
    return metric.partition(",")[0]


def _pass_k(metric: str) -> int | None:
    tail = metric.rpartition("/")[2]
    return int(tail[5:]) if tail.startswith("pass@") and tail[5:].isdigit() else None


def _metric_config(metric: str, kind: str | None, facts: TaskFacts | None, robust: bool) -> dict:
    library = "scorekit" if robust else (facts.library if facts else "scorekit")
    k = _pass_k(metric)
    cfg: dict[str, Any] = {"metric_name": metric, "metric_id": f"{library}.{_base(metric)}" if k is None else "pass_at_k"}
    if k is not None:
        cfg["metric_parameters"] = {"k": k}
    details: dict[str, str] = {}
    hib = facts.higher_is_better.get(_base(metric)) if facts else None
    if robust and kind in ("range", "std"):
        cfg["lower_is_better"], details["direction"] = True, "a spread: lower is better"
    elif hib is not None and not robust:
        cfg["lower_is_better"], details["direction"] = not hib, f"higher_is_better from the {facts.harness} files"
    else:
        cfg["lower_is_better"], details["direction"] = False, "assumed higher is better (the harness files do not say)"
    if kind in ("binary", "ratio", "range", "std") or k is not None or _base(metric) in _BOUNDED:
        cfg.update(score_type="continuous", min_score=0.0, max_score=1.0)
    else:
        details["bounds_status"] = "unknown"
    if robust:
        details["scorekit_robustness"] = _ROBUSTNESS.get(kind or "", "robustness metric")
    if "," in metric:
        details["lm_eval_filter"] = metric.partition(",")[2]
    cfg["additional_details"] = details
    return cfg


def _source_data(task: str, facts: TaskFacts | None) -> dict:
    name = (facts.dataset if facts and facts.dataset else None) or task
    if facts and facts.hf_repo and "/" in facts.hf_repo:
        out = {"dataset_name": name, "source_type": "hf_dataset", "hf_repo": facts.hf_repo}
        if facts.hf_split:
            out["hf_split"] = facts.hf_split
        return out
    return {"dataset_name": name, "source_type": "other"}


def _scorekit_result(task: str, metric: str, mv: MetricValues, value: Value, facts: TaskFacts | None,
                     robust: bool, confidence: float, n_boot: int, notes: list[str]) -> dict:
    unc: dict[str, Any] = {"num_samples": int(value.n)}
    if value.kind in ("binary", "mean") and value.n >= 2:
        sd = float(np.std(mv.rows[:, 0], ddof=1))
        unc["standard_deviation"] = sd
        unc["standard_error"] = {"value": sd / math.sqrt(value.n),
                                 "method": "analytic: standard deviation of the per-question values (n - 1) / sqrt(n)"}
    lo, hi = finite_number(value.ci_low), finite_number(value.ci_high)
    details = {"scorekit_kind": value.kind, "n_questions": str(value.n)}
    if lo is not None and hi is not None:
        unc["confidence_interval"] = {"lower": lo, "upper": hi, "confidence_level": confidence,
                                      "method": _INTERVAL.get(value.method, value.method)}
        if value.method == "bootstrap":
            unc["num_bootstrap_samples"] = n_boot
    elif value.note:  # the rule of scorekit.metrics.intervals.unreported: absent, and why
        details["confidence_interval"] = value.note
    reported = facts.reported.get(metric) if facts and not robust else None
    if reported is not None:
        details["harness_value"] = repr(reported[0])
        if reported[1] is not None:
            details["harness_stderr"] = repr(reported[1])
        if facts.reducer is not None:  # Inspect reduced the epochs otherwise than by the mean
            details["harness_epoch_reducer"] = facts.reducer
        if facts.reducer is None and not math.isclose(reported[0], value.value, rel_tol=1e-9, abs_tol=1e-12):
            notes.append(f"{task} {metric}: scorekit's value {value.value!r} differs from the harness's {reported[0]!r} "
                         "(the document holds scorekit's; details.harness_value the harness's)")
    return _result(task, facts, _metric_config(metric, value.kind, facts, robust),
                   {"score": float(value.value), "details": details, "uncertainty": unc})


def _reported_result(task: str, metric: str, score: float, stderr: float | None, facts: TaskFacts,
                     confidence: float) -> dict:
    unc: dict[str, Any] = {}
    config = _metric_config(metric, None, facts, False)
    if stderr is not None:
        z = z_value(confidence)
        lo, hi, method = score - z * stderr, score + z * stderr, "normal approximation from the reported standard error"
        if "min_score" in config and (lo < config["min_score"] or hi > config["max_score"]):
            lo, hi = max(lo, config["min_score"]), min(hi, config["max_score"])
            method += ", clipped to [0, 1]"
        unc["standard_error"] = {"value": stderr, "method": f"reported by {facts.library}"}
        unc["confidence_interval"] = {"lower": lo, "upper": hi, "confidence_level": confidence, "method": method}
    details = {"scorekit_kind": "harness aggregate (no per-question values)"}
    return _result(task, facts, config, {"score": score, "details": details, **({"uncertainty": unc} if unc else {})})


def _result(task: str, facts: TaskFacts | None, config: dict, score_details: dict) -> dict:
    out = {"evaluation_result_id": f"{task}/{config['metric_name']}", "evaluation_name": task,
           "source_data": _source_data(task, facts), "metric_config": config, "score_details": score_details}
    if facts and facts.timestamp is not None:
        out["evaluation_timestamp"] = _iso(facts.timestamp)
    return out


def _belongs(key: str, robust_tasks: set[str]) -> bool:
    """Is a results key a SCORE task's or SCORE group's own entry (lm-eval ``prompt_robustness_agieval_*``,
    ``score_prompt_robustness_agieval``; lighteval ``<task>:template_3|0``)?"""
    from scorekit.harness_outputs.keys import split_task_key
    from scorekit.robustness.benchmarks import parse_lighteval_task
    from scorekit.robustness.readers import classify_task

    name = split_task_key(key)[1]
    return bool(robust_tasks) and (classify_task(name) is not None or parse_lighteval_task(name) is not None)


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat()


def document_uuid(evaluation_id: str) -> str:
    """A stable UUID (version 5) of an evaluation id, for the document's file name."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "scorekit:" + evaluation_id))


def evaluation_id(model: str, tasks: Sequence[str], when: str | None, content: Callable[[], str]) -> str:
    """``<tasks>/<model>/<time of the run>``, the run's own identity, whatever folder holds it:
    ``<tasks>`` is the one task, or the sorted task keys joined by ``+`` (over 80 characters:
    the first, the count of the others and a hash of them all); ``<model>`` the model as the
    harness names it (a local path without its leading ``/``); the time is the newest run time
    the harness files record. Without one, ``content()`` (a hash of what the run holds) stands
    in for it, so different runs never share an id.

    >>> evaluation_id("acme/m", ["b", "a"], "2026-01-01T00:00:00+00:00", str)
    'a+b/acme/m/2026-01-01T00:00:00+00:00'
    """
    names = sorted(tasks)
    joined = "+".join(names)
    if len(joined) > 80:
        digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:12]
        joined = f"{names[0]}+{len(names) - 1} more ({digest})"
    return f"{joined or 'no-task'}/{model.lstrip('/')}/{when or 'unknown-time-' + content()}"


def _content_hash(tasks: dict[str, dict[str, MetricValues]], facts: dict[str, TaskFacts]) -> str:
    """A hash of a run's per-question values and reported results (its identity without a time)."""
    h = hashlib.sha256()
    for task in sorted(tasks):
        for metric in sorted(tasks[task]):
            mv = tasks[task][metric]
            h.update(json.dumps([task, metric, mv.ids]).encode())
            h.update(np.ascontiguousarray(mv.rows).tobytes())
    h.update(json.dumps({k: sorted(f.reported.items()) for k, f in sorted(facts.items())}, default=repr).encode())
    return h.hexdigest()[:16]


def build_document(*, model: str, name: str, tasks: dict[str, dict[str, MetricValues]], values: Sequence[Value],
                   facts: dict[str, TaskFacts], notes: list[str], source_files: Sequence[str], confidence: float,
                   n_boot: int, organization: str, relationship: str, retrieved: float, scorekit_version: str) -> dict:
    """The every_eval_ever document of one run (mapping in the module docstring). ``model`` is
    the model as the harness names it (``model_info.id``, part of the evaluation id), ``name``
    as tables show it (``model_info.name``; a local path by its last folder:
    :func:`scorekit.harness_outputs.identity.display_names`). ``notes`` is extended with what
    the mapping noticed, then written into the document."""
    by_key = {(v.task, v.metric): v for v in values}
    undefined: dict[str, list[str]] = {}  # reason -> the values left out for it
    results = []
    used: dict[str, TaskFacts] = {}
    robust_tasks = {t for t, ms in tasks.items() if any(mv.kind == "ratio" for mv in ms.values())}  # only SCORE pools pairs
    for task in sorted(tasks):
        metrics = tasks[task]
        f = facts_for(facts, task)
        robust = task in robust_tasks
        for metric in sorted(metrics):
            v = by_key.get((task, metric))
            if v is not None and math.isnan(v.value):  # undefined: never a number in the document
                undefined.setdefault(v.note or "undefined", []).append(f"{task} {metric}")
            elif v is not None:
                results.append(_scorekit_result(task, metric, metrics[metric], v, f, robust, confidence, n_boot, notes))
        if f is not None:
            used[task] = f
            for metric, (score, stderr) in sorted(f.reported.items()):  # no per-question values for these
                if metric not in metrics and not robust:
                    results.append(_reported_result(task, metric, score, stderr, f, confidence))
    notes.extend(f"not exported ({reason}): {', '.join(names)}" for reason, names in undefined.items())
    consumed = {id(f) for f in used.values()}
    replaced = [k for k, f in facts.items() if _belongs(k, robust_tasks)]
    if robust_tasks:
        notes.append(f"the harness's own results of SCORE tasks ({', '.join(sorted(robust_tasks))}) are not exported: "
                     "scorekit recomputes them from the answers (per-variant accuracies, spread, consistency rate)")
    for key, f in sorted(facts.items()):  # tasks (and groups) the harness reported without samples
        if id(f) not in consumed and key not in replaced:
            used[key] = f
            if f.undefined:
                notes.append(f"{key}: not exported (the harness wrote NaN, i.e. undefined): {', '.join(f.undefined)}")
            results.extend(_reported_result(key, metric, score, stderr, f, confidence)
                           for metric, (score, stderr) in sorted(f.reported.items()))
    libraries = sorted({f.library for f in used.values()}) or ["unknown"]
    versions = sorted({f.version for f in used.values() if f.library == libraries[0]}) or ["unknown"]
    stamps = [f.timestamp for f in used.values() if f.timestamp is not None]
    when = _iso(max(stamps)) if stamps else None
    run_id = evaluation_id(model, set(tasks) | set(used), when, lambda: _content_hash(tasks, facts))
    library: dict[str, Any] = {"name": libraries[0], "version": versions[0] if len(versions) == 1 else "unknown"}
    if len(libraries) > 1 or len(versions) > 1:
        library["additional_details"] = {"libraries": json.dumps(libraries), "versions": json.dumps(versions)}
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": run_id,
        "retrieved_timestamp": repr(float(retrieved)),
        "source_metadata": {
            "source_name": f"{libraries[0]} run exported by scorekit",
            "source_type": "evaluation_run",
            "source_organization_name": organization,
            "evaluator_relationship": relationship,
            "additional_details": {
                "exported_by": f"scorekit {scorekit_version}",
                "schema_commit": SCHEMA_COMMIT,
                "source_files": json.dumps(sorted(set(source_files) | {f.source for f in used.values()})),
                "scorekit_notes": json.dumps(list(dict.fromkeys(notes))),
            },
        },
        "eval_library": library,
        "model_info": {"name": name, "id": model,
                       "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"}},
        "evaluation_results": results,
    }
    if when:
        doc["evaluation_timestamp"] = when
    return doc
