"""The SCORE robustness report: per model, benchmark and family, from readers' items.

For every (model, benchmark, family) the report prefers samples logs: the records of all its
tasks (AGIEval subsets, MATH subjects) are pooled and summarized with
:func:`scorekit.robustness.analysis.summarize` (macro over categories for MMLU-Pro, as SCORE does;
micro, i.e. size-weighted, for AGIEval and MATH). Without samples it falls back to the
aggregate metrics of the results files and says what cannot be known from them. Nothing is
dropped silently: families, benchmarks and subsets that are absent are listed, and every
reader note is kept.

The report's data and JSON are :mod:`scorekit.robustness.report_data`; its tables and renderings
:mod:`scorekit.robustness.report_tables`, :mod:`scorekit.robustness.report_render` and
:mod:`scorekit.robustness.html_report`.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError, listed
from scorekit.metrics.consistency import MIN_QUESTIONS
from scorekit.robustness.analysis import accuracy_name, cr_name, spread, variant_metric_name
from scorekit.robustness.identical import IDENTICAL, identical_sample_note, identical_share
from scorekit.robustness.benchmarks import BENCHMARKS, is_robust
from scorekit.robustness.readers import AggregateSet, ReadResult, SampleSet
from scorekit.robustness.records import Family
from scorekit.robustness.report_data import _NAN, FamilyReport, Report, _subset_coverage, _variant_key
from scorekit.robustness.task_variants import ROBUST_FAMILIES as ROBUST_ORDER

__all__ = ["FamilyReport", "Report", "build_report"]

# What upstream's CR (lm_eval/tasks/score: utils.py, math/utils_math.py, non_greedy_summarizer.py)
# does with outputs it cannot read, per benchmark kind.
_UPSTREAM_CR_NOTE = {
    "choice": ("upstream's {metric} compares the whole raw output when it lacks \"the best answer is\", so two "
               "identical unparsed outputs count as agreeing{extra}; recompute from the samples logs for a corrected CR"),
    "math": ("upstream's {metric} compares the last \\boxed{{}} answers with its own checker (math_grader.math_equal): "
             "an output without \\boxed{{}} agrees with nothing, as in scorekit, so a model that never boxes an answer "
             "gets 0.0 where scorekit reports CR as undefined; its equivalence differs from scorekit's math-verify; "
             "recompute from the samples logs for scorekit's CR and the unparsed rate"),
}
_OPTION_DEFECT = (
    " and maps both 'the letter where the answer now is' and 'the original letter' to one label, "
    "so always answering the original letter scores 1.0")


# --- from samples ----------------------------------------------------------------------------


_LIGHTEVAL_LIMIT_HINT = ("lighteval's --max-samples N takes N documents of each position task, which are not the same "
                         "questions when questions have different numbers of options: run without --max-samples on a "
                         "smaller local data file")


def _from_samples(model: str, benchmark: str, family: Family, sets: list[SampleSet], *, confidence: float) -> FamilyReport:
    from scorekit.robustness.analysis import LIMIT_HINT, summarize
    from scorekit.robustness.grading import equal_for

    notes: list[str] = []
    # One sample set per task: a task logged by several layouts/runs keeps the newest.
    by_task: dict[str, list[SampleSet]] = defaultdict(list)
    for s in sets:
        by_task[s.task.name].append(s)
    chosen: list[SampleSet] = []
    for task, members in sorted(by_task.items()):
        members.sort(key=lambda s: s.timestamp)
        if len(members) > 1:
            notes.append(f"{task}: logs from {len(members)} sources; used the newest ({members[-1].sources[0]})")
        chosen.append(members[-1])
    layouts = sorted({s.layout for s in chosen})
    from scorekit.robustness.report_budget import budgeted, from_budgeted, refuse_lost_design

    if budgeted(chosen):
        return from_budgeted(model, benchmark, family, chosen, notes, macro=_macro(benchmark), confidence=confidence)
    refuse_lost_design(chosen)
    records = [r for s in chosen for r in s.records]
    counted = [s.permuted for s in chosen if s.permuted is not None]
    for s in chosen:
        notes.extend(s.notes)
    subsets_present = {s.task.subset for s in chosen if s.task.subset}
    subsets, missing_subsets = _subset_coverage(benchmark, subsets_present)
    rep = FamilyReport(
        model=model, benchmark=benchmark, family=family, source="samples", layout="+".join(layouts),
        tasks=sorted(by_task), subsets=subsets, missing_subsets=missing_subsets, macro=_macro(benchmark),
        runs=[run for s in chosen for run in s.runs] if family == "non_greedy" else [],
        sources=[p for s in chosen for p in s.sources], notes=notes,
        permuted=(sum(n for n, _ in counted), sum(m for _, m in counted)) if counted else None,
    )
    if not records:
        rep.missing.append("no scorable records in the samples logs; every number is unknown")
        return rep
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            summary = summarize(records, macro=_macro(benchmark), equal=equal_for(benchmark), confidence=confidence,
                                intervals=True)
        except ScorekitError as exc:  # a repeated variant or disagreeing n_variants: name the file and line
            from scorekit.robustness.locate import locate_conflict

            raise locate_conflict(exc, chosen) from None
    for w in caught:
        if issubclass(w.category, RuntimeWarning):
            message = str(w.message)
            if layouts == ["lighteval"]:
                message = message.replace(LIMIT_HINT, _LIGHTEVAL_LIMIT_HINT)
            rep.notes.append(message.removeprefix("SCORE ") if is_robust(benchmark) else message)
    for name in ("n_questions", "n_incomplete", "n_records", "accuracy", "accuracy_min", "accuracy_max", "accuracy_range",
                 "accuracy_std", "consistency_rate", "consistency_rate_ci", "accuracy_range_ci", "accuracy_std_ci",
                 "accuracy_ci", "unparsed_rate"):
        setattr(rep, name, getattr(summary, name))
    rep.variant_accuracy = {_variant_key(family, v): a for v, a in sorted(summary.variant_accuracy.items())}
    rep.variant_accuracy_ci = {_variant_key(family, v): ci for v, ci in sorted(summary.variant_accuracy_ci.items())}
    if family == "non_greedy":
        left_out = set(summary.incomplete_questions)
        flags = {q: f for s in chosen for q, f in s.identical.items() if q not in left_out}
        rep.identical_sample_rate = identical_share(flags.values())
        _note_identical(rep, len(flags))
    samples = max((s.samples_per_variant for s in chosen), default=1)  # per variant (a prompt family's template)
    if is_robust(benchmark):
        _robust_extras(rep, records, chosen, samples, confidence)
    _variance_hook(rep, records, samples, confidence)
    if summary.n_incomplete:
        rep.missing.append(f"{summary.n_incomplete} question(s) lack some variants and are left out of every number")
    return rep


def _robust_extras(rep: FamilyReport, records: list, chosen: list[SampleSet], samples: int, confidence: float) -> None:
    """What only variant tasks report (:func:`scorekit.robustness.task_variants.robust_metrics`)."""
    from scorekit.robustness.task_variants import robust_metrics

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # summarize's warnings are already in the notes
        metrics = robust_metrics(records, rep.family, samples=samples, confidence=confidence)
    rep.circular_accuracy = metrics.get("circular_accuracy", _NAN)
    rep.prompt_sensitivity = metrics.get("prompt_sensitivity", _NAN)
    if rep.family == "prompt" and samples > 1:
        rep.variant_accuracy = {k.split("_")[0]: v for k, v in metrics.items() if k.split("_")[0].isdigit()}
        rep.accuracy_min, rep.accuracy_max = metrics["accuracy_min"], metrics["accuracy_max"]
        rep.accuracy_range, rep.accuracy_std = metrics["accuracy_range"], metrics["accuracy_std"]
        flags = {q: f for s in chosen for q, f in s.identical.items()}
        rep.identical_sample_rate = identical_share(flags.values())
        _note_identical(rep, len(flags))


def _variance_hook(rep: FamilyReport, records: Any, samples: int, confidence: float) -> None:
    """``variance_shares`` of a family with several variants per question (:mod:`scorekit.robustness.variance`)."""
    from scorekit.robustness.variance import family_variance_shares

    rep.variance_shares, used, left_out = family_variance_shares(records, samples=samples, confidence=confidence)
    if rep.variance_shares and math.isnan(rep.variance_shares["question"]["value"]):
        rep.notes.append("variance shares undefined: correctness does not vary (or fewer than 2 complete questions)")
    if left_out:
        rep.notes.append(f"variance shares on the {used} questions with the most common number of variants; "
                         f"{left_out} question(s) with another number left out of them (the design must be balanced)")


def _note_identical(rep: FamilyReport, n_questions: int | None) -> None:
    note = identical_sample_note(rep.identical_sample_rate, n_questions)
    if note:
        rep.notes.append(note)


# --- from results files ----------------------------------------------------------------------


def _pick(metrics: dict[str, float], *names: str) -> float:
    """The value of the first of ``names`` that ``metrics`` has; nan when it has none."""
    return next((metrics[n] for n in names if n in metrics), _NAN)


def _combine(aggs: list[AggregateSet], notes: list[str]) -> tuple[dict[str, float], list[AggregateSet]]:
    """Metrics of one benchmark family from per-task (or group) aggregates: a group entry if
    present, else the single task, else lm-eval's size-weighted mean over tasks."""
    newest = {a.task.name: a for a in sorted(aggs, key=lambda a: a.timestamp)}  # the newest of each task wins
    groups = [a for a in newest.values() if a.task.is_group]
    if groups:
        return groups[-1].metrics, groups
    tasks = list(newest.values())
    if len(tasks) == 1:
        return tasks[0].metrics, tasks
    weights = [a.n_docs or 0 for a in tasks]
    if not all(weights):
        notes.append("some results files lack n-samples; subtasks averaged with equal weight")
        weights = [1] * len(tasks)
    keys = set.intersection(*(set(a.metrics) for a in tasks))
    total = float(sum(weights))
    combined = {k: sum(w * a.metrics[k] for w, a in zip(weights, tasks)) / total for k in keys}
    notes.append(f"combined {len(tasks)} subtasks' values weighted by size (as lm-eval's groups do); "
                 "CR of the pooled questions needs the samples logs")
    return combined, tasks


def _from_results(model: str, benchmark: str, family: Family, aggs: list[AggregateSet]) -> FamilyReport:
    notes: list[str] = []
    missing: list[str] = []
    macro = _macro(benchmark)
    robust = is_robust(benchmark)
    acc_word = accuracy_name(macro)
    runs: list[str] = []
    summarizer = [a for a in aggs if a.layout == "upstream-summarizer"]
    if family == "non_greedy" and summarizer:
        a = max(summarizer, key=lambda a: a.timestamp)
        used = [a]
        seeds = sorted((k for k in a.metrics if k.startswith("seed_") and k.endswith("_accuracy")),
                       key=lambda k: int(k.split("_")[1]) if k.split("_")[1].isdigit() else 0)
        variant = {k.split("_")[1]: a.metrics[k] for k in seeds}
        runs = [f"seed {k}" for k in variant]
        metrics = {"consistency_rate": a.metrics.get("consistency_rate", _NAN)}
        accuracy = float(np.mean(list(variant.values()))) if variant else _NAN
        notes.append("from upstream's non_greedy_summarizer output: accuracy = mean of the per-seed accuracies "
                     "(micro, not macro over categories)")
    elif family == "non_greedy" and all(a.layout == "upstream" for a in aggs):
        # Upstream: one results file per run, accuracy only.
        used = sorted(aggs, key=lambda a: a.timestamp)
        values = [_pick(a.metrics, f"non_greedy_{acc_word}", "non_greedy_macro_accuracy", "non_greedy_accuracy")
                  for a in used]
        runs_per_task = Counter(a.task.name for a in used)
        runs = [f"run {i + 1}" for i in range(max(runs_per_task.values()))]
        variant = {}
        metrics = {}
        accuracy = float(np.nanmean(values)) if values else _NAN
        if len(runs_per_task) > 1:
            notes.append("accuracy = plain mean over the runs of every subtask")
        missing.append("non-greedy CR: upstream's results files hold no CR; it needs the runs' samples logs "
                       "(--log_samples) or upstream's summarizer output")
    else:
        metrics, used = _combine(aggs, notes)
        variant = {}
        if family in ("prompt", "option_order"):  # the benchmark's accuracy name first, then either
            for i in range(max(10, len(metrics)) if family == "prompt" else 10):
                v = _pick(metrics, *(variant_metric_name(family, i, macro=m) for m in (macro, True, False)))
                if not math.isnan(v):
                    variant[_variant_key(family, i)] = v
        if robust:
            accuracy = _pick(metrics, "accuracy")
        elif family == "prompt":
            accuracy = float(np.mean(list(variant.values()))) if variant else _NAN
        elif family == "non_greedy":
            accuracy = _pick(metrics, f"non_greedy_{acc_word}", "non_greedy_macro_accuracy", "non_greedy_accuracy")
        else:
            accuracy = _NAN
            missing.append("overall option-order accuracy: not in the results files (their per-position accuracies "
                           "can cover different questions: a question has as many positions as options); needs the "
                           + ("details files (lighteval --save-details)" if {a.layout for a in aggs} == {"lighteval"}
                              else "samples logs"))
    layouts = sorted({a.layout for a in used})
    cr_key = cr_name(family)
    cr = _pick(metrics, cr_key, "consistency_rate")
    lo, hi = _pick(metrics, f"{cr_key}_ci_low"), _pick(metrics, f"{cr_key}_ci_high")
    upstream = any(l.startswith("upstream") for l in layouts)
    if not math.isnan(cr) and upstream:
        kind = "math" if benchmark == "math" else "choice"
        notes.append(_UPSTREAM_CR_NOTE[kind].format(metric=cr_key if family != "non_greedy" else "summarizer CR",
                                                    extra=_OPTION_DEFECT if family == "option_order" else ""))
    cr_logged = cr_key in metrics or "consistency_rate" in metrics
    unparsed = _pick(metrics, "unparsed_rate")
    if not math.isnan(cr) and (math.isnan(lo) or math.isnan(hi)):
        missing.append("CR interval: not in the results files (upstream logs none); needs the samples logs" if upstream
                       else f"CR interval: undefined in the results files (fewer than {MIN_QUESTIONS} questions with pairs)")
    elif math.isnan(cr) and cr_logged:
        notes.append(f"CR is undefined in the results files: no question has two parsed answers "
                     f"(unparsed rate {unparsed:.2f}); unparsed answers agree with nothing, so 0 would only measure parsing")
    elif math.isnan(cr) and family != "non_greedy":
        missing.append("CR: not in the results files")
    if math.isnan(unparsed):
        missing.append("unparsed rate: not in the results files; needs the samples logs")
    identical = _pick(metrics, IDENTICAL) if family == "non_greedy" or robust else _NAN
    if family == "non_greedy" and math.isnan(identical) and not robust:
        missing.append("identical-sample rate: not in the results files (upstream's tasks and scorekit "
                       "before it do not report it); needs the samples logs")
    n_docs = sum(a.n_docs or 0 for a in used if not a.task.is_group) if not any(a.task.is_group for a in used) else None
    n_questions = None
    if robust:
        pass  # the number of variants per question is not in the results files
    elif n_docs and family == "prompt":
        n_questions = n_docs // 10
    elif n_docs and family == "non_greedy" and all(a.layout == "scorekit" for a in used):
        n_questions = n_docs
    subsets, missing_subsets = _subset_coverage(benchmark, {a.task.subset for a in aggs if a.task.subset})
    if any(a.task.is_group for a in used):
        subsets, missing_subsets = ["(group)"], []
    rep = FamilyReport(
        model=model, benchmark=benchmark, family=family, source="results", layout="+".join(layouts),
        tasks=sorted({a.task.name for a in used}), subsets=subsets, missing_subsets=missing_subsets, macro=macro,
        n_questions=n_questions, variant_accuracy=variant, accuracy=accuracy, **spread(variant.values()),
        consistency_rate=cr, consistency_rate_ci=None if math.isnan(lo) or math.isnan(hi) else (lo, hi),
        unparsed_rate=unparsed, identical_sample_rate=identical, runs=runs, sources=sorted({a.source for a in used}),
        missing=missing, notes=notes, circular_accuracy=_pick(metrics, "circular_accuracy"),
        prompt_sensitivity=_pick(metrics, "prompt_sensitivity"),
    )
    _note_identical(rep, n_questions)
    return rep


def _order(benchmark: str, family: Family) -> tuple[int, str, int]:
    """SCORE's benchmarks first, in their order, then variant tasks by name."""
    if benchmark in BENCHMARKS:
        return 0, f"{list(BENCHMARKS).index(benchmark):03d}", BENCHMARKS[benchmark].families.index(family)
    return 1, benchmark, ROBUST_ORDER.index(family)


def _macro(benchmark: str) -> bool:
    """Macro-averaged over categories (MMLU-Pro); variant tasks pool their questions."""
    return benchmark in BENCHMARKS and BENCHMARKS[benchmark].macro


# --- assembly --------------------------------------------------------------------------------


def build_report(read: ReadResult, *, confidence: float = 0.95,
                 planned_subsets: dict[str, Sequence[str]] | None = None) -> Report:
    """Assemble the report from readers' output (see the module docstring).

    ``planned_subsets`` (``{benchmark: [subset, ...]}``) is for a run that samples some subsets
    on purpose (the demo): only a planned subset without logs is reported missing.
    """
    samples: dict[tuple[str, str, Family], list[SampleSet]] = defaultdict(list)
    aggs: dict[tuple[str, str, Family], list[AggregateSet]] = defaultdict(list)
    for s in read.samples:
        samples[(s.model, s.task.benchmark, s.task.family)].append(s)
    for a in read.aggregates:
        aggs[(a.model, a.task.benchmark, a.task.family)].append(a)
    keys = sorted(set(samples) | set(aggs), key=lambda k: (k[0], *_order(k[1], k[2])))
    models: dict[str, dict[str, list[FamilyReport]]] = {}
    for model, benchmark, family in keys:
        if (model, benchmark, family) in samples:
            # Results-file metrics of this family are superseded by the recomputation.
            rep = _from_samples(model, benchmark, family, samples[(model, benchmark, family)], confidence=confidence)
        else:
            rep = _from_results(model, benchmark, family, aggs[(model, benchmark, family)])
        if not rep.estimated:
            from scorekit.robustness.report_budget import exact_quantiles

            exact_quantiles(rep)
        if planned_subsets and benchmark in planned_subsets:
            rep.missing_subsets = [s for s in rep.missing_subsets if s in planned_subsets[benchmark]]
        if rep.missing_subsets and rep.subsets:
            rep.missing.append(f"{len(rep.subsets)} of {len(rep.subsets) + len(rep.missing_subsets)} "
                               f"{benchmark} subsets found; not found: {listed(rep.missing_subsets)}")
        models.setdefault(model, {}).setdefault(benchmark, []).append(rep)
    all_benchmarks = [b for b in BENCHMARKS if any(b in benches for benches in models.values())]
    missing_benchmarks = {m: [b for b in all_benchmarks if b not in benches] for m, benches in models.items()}
    missing_families = {
        (m, b): [f for f in (BENCHMARKS[b].families if b in BENCHMARKS else ()) if f not in {r.family for r in fams}]
        for m, benches in models.items() for b, fams in benches.items()
    }
    return Report(confidence, models, missing_benchmarks, missing_families, list(read.notes))


def __getattr__(name: str) -> Any:
    """The old paths of the report's JSON, tables and renderings (one release)."""
    from scorekit.robustness import report_data, report_render, report_tables

    for module in (report_data, report_tables, report_render):
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
