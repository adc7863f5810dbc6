"""The tables of the SCORE robustness report (:class:`~scorekit.robustness.report_data.Report`):
columns and rows for every format, the notes, and the long rows of the CSV."""

from __future__ import annotations

import math
from typing import Any

from scorekit.errors import listed
from scorekit.robustness.benchmarks import is_robust
from scorekit.robustness.records import Family
from scorekit.robustness.report_data import FAMILY_LABEL, FamilyReport, Report

Table = tuple[list[str], list[list[Any]]]


def tables(report: Report) -> list[tuple[str, list[str], list[list[Any]]]]:
    """``(title, columns, rows)`` of every table the report has, in the order they are shown."""
    out = [("SCORE robustness", *summary_table(report))]
    found = [(title, variant_table(report, family)) for family, title in VARIANT_TABLES]
    found += [("Quantiles of accuracy across variants", quantile_table(report)), ("Variant tasks", robust_table(report)),
              ("Shares of the variance of correctness", variance_table(report))]
    return out + [(title, *table) for title, table in found if table]


def _ci_text(ci: tuple[float, float] | None) -> str | None:
    if ci is None or any(math.isnan(x) for x in ci):
        return None
    return f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def _with_ci(value: float | None, ci: tuple[float, float] | None) -> Any:
    """``0.53 [0.43, 0.62]`` for tables; the bare value when there is no interval."""
    text = _ci_text(ci)
    if value is None or text is None or math.isnan(value):
        return value
    return f"{value:.2f} {text}"


def _source(f: FamilyReport) -> str:
    from scorekit.robustness.report_budget import design_label

    text = f"{f.source} ({f.layout})" if f.layout else f.source
    return f"{text}; estimated from a budgeted run ({design_label(f.design)})" if f.estimated else text


def quantile_table(report: Report) -> Table | None:
    """Quantiles across variants of per-variant accuracy (5 .. 95), with intervals for a
    budgeted run's estimates (exact for a full run), or None."""
    from scorekit.robustness.report_budget import design_label

    fams = [f for f in report.families() if f.accuracy_quantiles]
    if not fams:
        return None
    keys = list(next(iter(fams)).accuracy_quantiles)
    names = _names(report)
    rows = [[names[f.model], f.benchmark, FAMILY_LABEL[f.family], "estimate" if f.estimated else "exact", design_label(f.design),
             *[_with_ci(f.accuracy_quantiles.get(k), f.accuracy_quantiles_ci.get(k) if f.estimated else None)
               for k in keys]] for f in fams]
    return ["Model", "Benchmark", "Family", "Values", "Design", *[f"Q{k}" for k in keys]], rows


def _names(report: Report) -> dict[str, str]:
    """How the tables name each model (a local path by its last folder; JSON and CSV keep it whole)."""
    from scorekit.harness_outputs.identity import display_names

    models = list(dict.fromkeys(f.model for f in report.families()))
    return dict(zip(models, display_names(models)))


def summary_table(report: Report) -> Table:
    """Columns and rows of the main table: one row per model, benchmark and family."""
    pct = int(round(report.confidence * 100))
    names = _names(report)
    columns = ["Model", "Benchmark", "Family", "Questions", "Accuracy", f"Accuracy {pct}% CI", "Min", "Max", "Range",
               f"Range {pct}% CI",
               "Std", f"Std {pct}% CI", "CR", f"CR {pct}% CI", "Unparsed", "Identical samples", "Source"]
    rows = [[names[f.model], f.benchmark, FAMILY_LABEL[f.family], f.n_questions, f.accuracy, _ci_text(f.accuracy_ci), f.accuracy_min,
             f.accuracy_max, f.accuracy_range, _ci_text(f.accuracy_range_ci), f.accuracy_std,
             _ci_text(f.accuracy_std_ci), f.consistency_rate, _ci_text(f.consistency_rate_ci),
             f.unparsed_rate, f.identical_sample_rate if f.family == "non_greedy" or is_robust(f.benchmark) else None,
             _source(f)]
            for f in report.families()]
    return columns, rows


# the families with one accuracy per variant, each in its own table, and the table's title
VARIANT_TABLES: tuple[tuple[Family, str], ...] = (("prompt", "Accuracy per prompt"),
                                                  ("option_order", "Accuracy per answer position"))


def variant_table(report: Report, family: Family) -> Table | None:
    """Per-prompt (``prompt``) or per-position (``option_order``) accuracy, or None if absent."""
    fams = [f for f in report.families() if f.family == family]
    if not fams:
        return None
    present = {k for f in fams for k in f.variant_accuracy}
    keys = sorted(present, key=int) if family == "prompt" else sorted(present)
    head = [f"P{k}" for k in keys] if family == "prompt" else keys
    names = _names(report)
    rows = [[names[f.model], f.benchmark, *[_with_ci(f.variant_accuracy.get(k), f.variant_accuracy_ci.get(k)) for k in keys]]
            for f in fams]
    return ["Model", "Benchmark", *head], rows


def robust_table(report: Report) -> Table | None:
    """Figures only variant tasks have (circular accuracy, prompt sensitivity), or None."""
    fams = [f for f in report.families() if is_robust(f.benchmark) and f.family != "non_greedy"]
    if not fams:
        return None
    names = _names(report)
    rows = [[names[f.model], f.benchmark, FAMILY_LABEL[f.family], f.circular_accuracy if f.family == "option_order" else None,
             f.prompt_sensitivity if f.family == "prompt" else None] for f in fams]
    return ["Model", "Benchmark", "Family", "Circular accuracy", "Prompt sensitivity"], rows


def variance_table(report: Report) -> Table | None:
    """Shares of the variance of correctness (question / variant / within) with intervals, or None."""
    fams = [f for f in report.families() if f.variance_shares]
    if not fams:
        return None
    names = _names(report)
    rows = [[names[f.model], f.benchmark, FAMILY_LABEL[f.family],
             *[_with_ci(f.variance_shares[k]["value"], (f.variance_shares[k]["ci_low"], f.variance_shares[k]["ci_high"]))
               for k in ("question", "variant", "within")]] for f in fams]
    return ["Model", "Benchmark", "Family", "Questions", "Variants", "Within (sampling, interaction)"], rows


def notes_lines(report: Report) -> list[str]:
    """Everything absent or noteworthy, one line each, prefixed with model/benchmark/family."""
    lines: list[str] = []
    for model, missing in report.missing_benchmarks.items():
        if missing:
            lines.append(f"{model}: no logs for benchmark(s) {listed(missing)}")
    for (model, benchmark), fams in report.missing_families.items():
        if fams:
            lines.append(f"{model} / {benchmark}: no logs for family(ies) {listed(FAMILY_LABEL[f] for f in fams)}")
    for f in report.families():
        where = f"{f.model} / {f.benchmark} / {FAMILY_LABEL[f.family]}"
        lines.extend(f"{where}: missing: {m}" for m in f.missing)
        lines.extend(f"{where}: {n}" for n in f.notes)
    lines.extend(report.notes)
    return lines


def long_rows(report: Report) -> Table:
    """Long format (one metric per row) for CSV: unknown values are empty cells."""
    columns = ["model", "benchmark", "family", "source", "layout", "metric", "value"]
    rows: list[list[Any]] = []
    for f in report.families():
        def add(metric: str, value: Any, ci: tuple[float, float] | None = None, *, ci_always: bool = False) -> None:
            """The metric's row, then ``<metric>_ci_low`` / ``_ci_high`` when it has an interval
            (``ci_always``: also without one, as empty cells)."""
            if isinstance(value, float) and math.isnan(value):
                value = None
            rows.append([f.model, f.benchmark, f.family, f.source, f.layout, metric, value])
            if ci or ci_always:
                add(f"{metric}_ci_low", ci[0] if ci else None)
                add(f"{metric}_ci_high", ci[1] if ci else None)

        add("n_questions", f.n_questions)
        add("n_incomplete", f.n_incomplete)
        add("estimated", f.estimated)
        for key in ("variants", "per_question", "seed"):
            add(f"design_{key}", f.design[key] if f.design else None)
        add("accuracy", f.accuracy, f.accuracy_ci)
        for k, v in f.variant_accuracy.items():
            label = {"prompt": f"prompt_{k}_accuracy", "option_order": f"position_{k}_accuracy"}.get(f.family,
                                                                                                  f"sample_{k}_accuracy")
            add(label, v, f.variant_accuracy_ci.get(k))
        for name in ("accuracy_min", "accuracy_max", "accuracy_range", "accuracy_std", "consistency_rate"):
            add(name, getattr(f, name), getattr(f, f"{name}_ci", None), ci_always=name == "consistency_rate")
        for k, v in f.accuracy_quantiles.items():
            add(f"accuracy_quantile_{k}", v, f.accuracy_quantiles_ci.get(k), ci_always=True)
        add("unparsed_rate", f.unparsed_rate)
        if f.family == "non_greedy" or (is_robust(f.benchmark) and not math.isnan(f.identical_sample_rate)):
            add("identical_sample_rate", f.identical_sample_rate)
        if is_robust(f.benchmark) and f.family == "option_order":
            add("circular_accuracy", f.circular_accuracy)
        if f.permuted is not None:  # the notes' "n of m question(s) had their shown options permuted"
            add("permuted_questions", f.permuted[0])
            add("arranged_questions", f.permuted[1])
        if is_robust(f.benchmark) and f.family == "prompt":
            add("prompt_sensitivity", f.prompt_sensitivity)
        for part, v in (f.variance_shares or {}).items():
            for key in ("value", "ci_low", "ci_high"):
                add(f"variance_share_{part}" + ("" if key == "value" else f"_{key}"), v[key])
    return columns, rows

