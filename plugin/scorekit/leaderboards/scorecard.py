"""A scoring config applied to merged results files: what ``scorekit scorecard`` and ``scorekit
leaderboard`` share.

For each model and each metric of the config (:mod:`scorekit.leaderboards.scorecard_config`), in
config order, :func:`gather` finds the value the metric reads:

- **Lookup**: the first of the metric's keys present (:func:`scorekit.leaderboards.threshold.lookup_value`,
  a config key matching ``task``, ``suite|task`` or ``suite|task|n``); when several results keys
  match (``ifeval|0`` and ``ifeval|5`` from two runs) the newest run's is used and a note says so.
- **Groups without values**: a key naming an lm-eval group the file holds as ``{" ": " "}``, or
  not at all, gets lm-eval's size-weighted group value from its subtasks
  (:func:`scorekit.leaderboards.results_files.group_value`; sizes from ``n-samples``, else the
  metric's ``subtask_sizes``), with a note; its stderr is unknown. What cannot be derived is
  recorded as *absent* (a results key, or why the group value is missing).
- **Not asked**: a NaN of a task written with ``scorekit variants --budget`` (its results
  config holds the budget) is a variant no question of the run was asked. It is left out of
  its benchmark's mean (whatever the missing-value policy), with a note, and listed in
  :attr:`Inputs.unasked`.
- **Fractions** (``fractions=True``, the leaderboard's rule): every other value used must be a
  number in [0, 1], else :class:`ScorekitError` naming the file and ``results["task"]["metric"]``.
- **Stderr** ``"N/A"`` (lm-eval's IFEval instruction level): computed from the run's samples
  log when there is one (:func:`scorekit.leaderboards.results_files.samples_stderr`), with a note;
  otherwise a note says which interval is unknown.

:func:`scorecard_results` then scores with :func:`scorekit.leaderboards.threshold.scorecard_values`,
naming the results file or config for a bad value or a failing normalizer, and :func:`rank`
orders the models (best overall first, models without one last, by name) and marks which are
indistinguishable from the best.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from scorekit.leaderboards.results_files import (
    ModelResults,
    check_fraction,
    find,
    group_value,
    samples_stderr,
    stderr_key,
    stderr_value,
)
from scorekit.leaderboards.scorecard_config import ScorecardConfig
from scorekit.errors import ScorekitError, listed

# The kinds of :class:`Note`, and how a summary line counts them (``{n}`` notes of one model,
# about ``{k}`` tasks).
NOTE_KINDS = {
    "several_runs": "{n} tasks found in several runs, the newest used",
    "group_value": "{n} group values derived from their subtasks (intervals unknown)",
    "stderr_from_samples": "{n} stderrs computed from the runs' samples logs, in {k} task(s)",
    "stderr_unknown": "no usable stderr for {n} metrics of {k} task(s)",
    "sampled_intervals": "{n} notes on intervals bootstrapped from the samples logs",
    "unasked": "{n} metrics NaN in budgeted runs of {k} task(s) (no question asked that variant), left out of their means",
}


@dataclass(frozen=True)
class Note:
    """One note of :func:`gather`: its kind (:data:`NOTE_KINDS`), its line, the task (results
    key) it is about, the benchmark whose interval it concerns and, for ``stderr_unknown``, why."""

    kind: str
    line: str
    task: str = ""
    benchmark: str = ""
    why: str = ""

    def __str__(self) -> str:
        return self.line


SUMMED_UP_ABOVE = 3  # a model's notes of one kind are each a line up to this many, then one line


def note_lines(notes: dict[str, list[Note]], *, every: bool = False) -> list[str]:
    """The lines to print for every model's notes: up to :data:`SUMMED_UP_ABOVE` notes of one
    kind about one model are each a line; more are summed up in one line per model and kind (how
    many, their tasks, the first reason), unless ``every`` (``-v``) asks for each line."""
    lines = []
    for model, model_notes in notes.items():
        kinds: dict[str, list[Note]] = {}
        for n in model_notes:
            kinds.setdefault(n.kind, []).append(n)
        for kind, group in kinds.items():
            if every or len(group) <= SUMMED_UP_ABOVE:
                lines.extend(f"{model}: {n.line}" for n in group)
                continue
            tasks = list(dict.fromkeys(n.task for n in group))
            line = f"{model}: {NOTE_KINDS[kind].format(n=len(group), k=len(tasks))}: {listed(tasks)}"
            if kind == "stderr_unknown":
                whys = list(dict.fromkeys(n.why for n in group))
                benchmarks = list(dict.fromkeys(n.benchmark for n in group))
                line += (f"; {whys[0]}" + (f" (and {len(whys) - 1} other reason(s))" if len(whys) > 1 else "")
                         + f"; the {listed(benchmarks)} interval(s) are unknown")
            lines.append(line + " (-v: one line each)")
    return lines


@dataclass
class Inputs:
    """What :func:`gather` found, per model name."""

    models: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)  # {task: {metric: value}}
    newest: dict[str, Callable[[str], Any]] = field(default_factory=dict)  # key -> (run time, path)
    notes: dict[str, list[Note]] = field(default_factory=dict)  # in config order, each once
    absent: dict[str, dict[str, str]] = field(default_factory=dict)  # metric path -> what is absent
    unasked: dict[str, set[str]] = field(default_factory=dict)  # metric paths NaN in a budgeted run


def gather(models: Iterable[ModelResults], config: ScorecardConfig, *, fractions: bool = False) -> Inputs:
    """Every model's values for ``config`` (see the module docstring). The files' data is not
    changed: derived values and stderrs are new entries of :attr:`Inputs.models`."""
    out = Inputs()
    for mr in models:
        files = mr.task_files
        tasks = {k: f.tasks[k] for k, f in files.items()}
        notes: list[Note] = []
        absent: dict[str, str] = {}
        for spec in config.metrics:
            used = _find(mr, tasks, spec.keys)
            if used is None:
                why = _derive(mr, tasks, spec, notes)
                if why is not None:
                    absent[spec.path] = why
                continue
            task, key, metric, others = used
            rf = files.get(key)
            if rf is None or metric not in rf.tasks[key]:
                continue  # a value derived for an earlier metric
            if others:
                notes.append(Note("several_runs", f"{task}: several runs ({', '.join(sorted([key] + others))}); used the "
                                  f"newest, {key} from {rf.path}", task=task))
            value = tasks[key][metric]
            if type(value) is float and math.isnan(value) and key in rf.budgets:
                out.unasked.setdefault(mr.model, set()).add(spec.path)
                notes.append(Note("unasked", f"{key}: {metric} is NaN: {_budget_words(rf.budgets[key])}, no question "
                                  f"was asked this variant; left out of the {spec.benchmark} mean", task=key,
                                  benchmark=spec.benchmark))
                continue
            if fractions and (type(value) is not float or not 0.0 <= value <= 1.0):
                check_fraction(value, path=rf.path, where=f'results["{key}"]["{metric}"]')
            se_key = stderr_key(metric)
            if math.isnan(stderr_value(tasks[key].get(se_key))):  # "N/A": the samples log may tell
                se, why = samples_stderr(rf, key, metric)
                if se is None:
                    notes.append(Note("stderr_unknown", f"{key}: no usable {se_key}, {why}; the {spec.benchmark} interval "
                                      "is unknown", task=key, benchmark=spec.benchmark, why=why))
                else:
                    tasks[key] = {**tasks[key], se_key: se}
                    notes.append(Note("stderr_from_samples", f"{key}: {se_key} {why}", task=key))
        out.models[mr.model] = tasks
        out.newest[mr.model] = _run_time_of(mr)
        out.notes[mr.model] = list(dict.fromkeys(notes))
        out.absent[mr.model] = absent
    return out


def _budget_words(budget: dict) -> str:
    per = budget.get("per_question")
    return f"a budgeted run ({per} variants per question)" if isinstance(per, int) else "a budgeted run"


def _find(mr: ModelResults, tasks: dict[str, Any], keys) -> tuple[str, str, str, list[str]] | None:
    """``(config task, results key, metric, other matching keys)`` of the first key present."""
    for task, metric in keys:
        found = find(mr, task)
        if found is not None and metric in tasks[found[0]]:
            return task, found[0], metric, found[2]
        if found is None and task in tasks and metric in tasks[task]:  # derived under the config's key
            return task, task, metric, []
    return None


def _derive(mr: ModelResults, tasks: dict[str, Any], spec, notes: list[Note]) -> str | None:
    """Fill in a group value for ``spec`` (first key that allows it); None, or what is absent."""
    first = None
    for task, metric in spec.keys:
        got = group_value(mr, task, metric, dict(spec.subtask_sizes))
        if isinstance(got, str):
            first = first or got
            continue
        found = find(mr, task)
        key = found[0] if found else task
        tasks[key] = {**tasks.get(key, {}), metric: got[0]}
        notes.append(Note("group_value", f"{got[1]}; the {spec.benchmark} interval is unknown", task=task,
                          benchmark=spec.benchmark))
        return None
    return first


def _run_time_of(model: ModelResults) -> Callable[[str], Any]:
    """``key -> (run time, path)`` of the file a model's task key comes from (newest wins)."""
    files = model.task_files
    return lambda key: (files[key].timestamp, files[key].path) if key in files else (0, "")


def scorecard_results(models: Iterable[ModelResults], config: ScorecardConfig, *, missing: str = "partial",
                  fractions: bool = False) -> tuple[list[dict[str, Any]], Inputs]:
    """``(scored models, inputs)``: :func:`gather`, then :func:`scorekit.leaderboards.threshold.scorecard_values`
    (one dict per model, in input order, each with its ``sources``)."""
    from scorekit.leaderboards.threshold import BadValue, NormalizerError, scorecard_values

    by_name = {m.model: m for m in models}
    inputs = gather(by_name.values(), config, fractions=fractions)
    try:
        scored = scorecard_values(config, inputs.models, missing=missing, newest=inputs.newest,
                                  unasked=inputs.unasked)
    except BadValue as exc:
        model = by_name[exc.model]
        task = model.get(exc.task) if exc.task else None
        # no single task (an ambiguous key): name the model's results files
        raise ScorekitError(str(exc), path=task.source if task else ", ".join(model.sources)) from None
    except NormalizerError as exc:
        raise ScorekitError(str(exc), path=config.path) from None
    for m in scored:
        m["sources"] = list(by_name[m["model"]].sources)
    return scored, inputs


def rank(scored: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``scored`` sorted best overall first (no overall last, ties by model name), each with
    ``indistinguishable_from_best``: its overall is within noise of the best one's
    (:func:`scorekit.metrics.intervals.indistinguishable`); None without a score or a stderr."""
    from scorekit.metrics.intervals import indistinguishable

    scored = sorted(scored, key=lambda m: (m["overall"] is None, -(m["overall"] or 0.0), m["model"]))
    best = next((m for m in scored if m["overall"] is not None), None)
    for m in scored:
        if best is None or m["overall"] is None:
            m["indistinguishable_from_best"] = None
        elif m is best:
            m["indistinguishable_from_best"] = True
        else:
            m["indistinguishable_from_best"] = indistinguishable(best["overall"], best.get("overall_stderr"),
                                                                 m["overall"], m.get("overall_stderr"))
    return scored


score_results = scorecard_results  # the old name, kept for one release


def build_scorecard(models: Iterable[ModelResults], config: ScorecardConfig, *,
                    missing: str = "partial") -> tuple[list[dict[str, Any]], Inputs]:
    """The ranked scores of ``models`` (:func:`scorecard_results`, :func:`rank`) and what was
    gathered; :class:`ScorekitError` naming the config when none of its metrics was found in any
    results file (a config whose keys are all wrong would otherwise score nobody in silence)."""
    scored, inputs = scorecard_results(models, config, missing=missing)
    if not any(metric["source"] is not None for m in scored for c in m["categories"].values()
               for b in c["benchmarks"].values() for metric in b["metrics"].values()):
        first = config.metrics[0]
        raise ScorekitError(
            "none of the config's metrics was found in any results file (e.g. "
            f"{first.path} looks for {' or '.join(f'{t} -> {m}' for t, m in first.keys)}); check the keys",
            path=config.path,
        )
    return rank(scored), inputs
