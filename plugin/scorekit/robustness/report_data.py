"""The SCORE robustness report as data: :class:`Report` of :class:`FamilyReport` rows, built by
:func:`scorekit.robustness.report.build_report`, and its JSON (the source of every rendering:
:mod:`scorekit.robustness.report_tables`, :mod:`scorekit.robustness.html_report`).

JSON shape (:func:`report_to_json`; NaN and unknown values are ``null``)::

    {"report": "scorekit-robustness", "version": 1, "confidence": 0.95,
     "models": [{"model": str,
                 "benchmarks": [{"benchmark": "mmlu_pro" | "agieval" | "math",
                                 "families": [FAMILY, ...],
                                 "missing_families": [str, ...]}],
                 "missing_benchmarks": [str, ...]}],
     "notes": [str, ...]}

    FAMILY = {"family": "prompt" | "option_order" | "non_greedy",
              "source": "samples" | "results", "layout": "scorekit" | "upstream" | ...,
              "tasks": [str], "subsets": [str], "missing_subsets": [str], "macro": bool,
              "n_questions": int | null, "n_incomplete": int | null, "n_records": int | null,
              "variant_accuracy": {"0": float, ...}   # prompt index | "A".. position | run
              "accuracy", "accuracy_min", "accuracy_max", "accuracy_range", "accuracy_std",
              "consistency_rate": float | null,       # null: undefined (no two parsed answers)
              "consistency_rate_ci": [low, high] | [null, null] | null,  # no interval / not logged
              "variant_accuracy_ci": {"0": [low, high], ...},  # Wilson (micro) / bootstrap (macro)
              "accuracy_range_ci", "accuracy_std_ci": [low, high] | null,  # spread within the variants' intervals
              "accuracy_ci": [low, high] | null,  # bootstrap over questions; null from results files
              # and for every "<name>_ci": "<name>_ci_low", "<name>_ci_high" (maps for variants)
              "unparsed_rate": float | null, "identical_sample_rate": float | null,
              "circular_accuracy": float | null, "prompt_sensitivity": float | null,
              "variance_shares": {"question"|"variant"|"within": {"value", "ci_low", "ci_high"}} | null,
              "runs": [str], "sources": [str], "missing": [str], "notes": [str]}

``accuracy`` is the family's overall accuracy (all records; non-greedy: all samples of all
runs); min/max/range/std (population) are over the per-variant accuracies (prompts or
answer positions; for non-greedy over runs/samples). ``identical_sample_rate`` (non-greedy
only, else null) is the share of the family's questions whose samples were all the same raw
text (:mod:`scorekit.robustness.identical`), recomputed from the logged generations (or read
from results files that report it); a high rate comes with a note, as the CR is then inflated.

Tasks written by ``scorekit variants`` (docs/variants.md) are reported beside SCORE's: their
benchmark is ``robust_<task>``, accuracy is micro, ``circular_accuracy`` (option order: correct
in every arrangement) and ``prompt_sensitivity`` (prompt family sampled N times per template:
share of the variance between prompts) are set for them only (null elsewhere); a prompt family
sampled N times also has ``identical_sample_rate`` (share of question-template pairs whose
samples were the same text) and its ``variant_accuracy`` is per template.

``variance_shares`` (samples logs, families with more than one variant per question): the
shares of the variance of correctness between questions, between variants (prompts, answer
positions, non-greedy runs; templates for a family sampled N times) and within (sampling and
question x variant interaction), summing to 1, each with its bootstrap interval over questions
(:mod:`scorekit.robustness.variance`); null from results files.
"""


from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from scorekit.robustness.benchmarks import BENCHMARKS
from scorekit.robustness.records import Family

FAMILY_LABEL = {"prompt": "prompt", "option_order": "option order", "non_greedy": "non-greedy"}
_NAN = float("nan")


@dataclass
class FamilyReport:
    """One row of the report (fields as in the module's JSON shape)."""

    model: str
    benchmark: str
    family: Family
    source: str
    layout: str
    tasks: list[str]
    subsets: list[str]
    missing_subsets: list[str]
    macro: bool
    n_questions: int | None = None
    n_incomplete: int | None = None
    n_records: int | None = None
    variant_accuracy: dict[str, float] = field(default_factory=dict)
    accuracy: float = _NAN
    accuracy_min: float = _NAN
    accuracy_max: float = _NAN
    accuracy_range: float = _NAN
    accuracy_std: float = _NAN
    consistency_rate: float = _NAN
    consistency_rate_ci: tuple[float, float] | None = None
    variant_accuracy_ci: dict[str, tuple[float, float]] = field(default_factory=dict)
    accuracy_range_ci: tuple[float, float] | None = None
    accuracy_std_ci: tuple[float, float] | None = None
    accuracy_ci: tuple[float, float] | None = None
    unparsed_rate: float = _NAN
    identical_sample_rate: float = _NAN
    circular_accuracy: float = _NAN
    prompt_sensitivity: float = _NAN
    variance_shares: dict[str, dict[str, float]] | None = None
    permuted: tuple[int, int] | None = None  # variant option order: (questions whose shown options moved, questions)
    # budgeted runs (scorekit.robustness.budget): the design (None: a full run), whether the numbers
    # are estimates of the full run's, and the quantiles across variants of per-variant accuracy
    design: dict[str, int] | None = None
    estimated: bool = False
    accuracy_quantiles: dict[str, float] = field(default_factory=dict)
    accuracy_quantiles_ci: dict[str, tuple[float, float]] = field(default_factory=dict)
    accuracy_min_ci: tuple[float, float] | None = None
    accuracy_max_ci: tuple[float, float] | None = None
    runs: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Report:
    """Families by model and benchmark, plus absences and notes."""

    confidence: float
    models: dict[str, dict[str, list[FamilyReport]]]
    missing_benchmarks: dict[str, list[str]]
    missing_families: dict[tuple[str, str], list[Family]]
    notes: list[str]

    def families(self) -> list[FamilyReport]:
        return [f for benches in self.models.values() for fams in benches.values() for f in fams]


def _variant_key(family: Family, v: int) -> str:
    from scorekit.robustness.shown_options import letters

    return letters(v + 1)[-1] if family == "option_order" else str(v)


def _subset_coverage(benchmark: str, subsets: set[str]) -> tuple[list[str], list[str]]:
    known = [s.key for s in BENCHMARKS[benchmark].subsets] if benchmark in BENCHMARKS else []
    return [s for s in known if s in subsets], [s for s in known if s not in subsets]


def _clean(value: Any) -> Any:
    """JSON-ready: NaN (and any other non-finite number) becomes null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def _flat_ci(d: dict[str, Any]) -> None:
    """Add ``<name>_ci_low`` / ``<name>_ci_high`` next to every ``<name>_ci`` pair (JSON/CSV
    convention); per-variant intervals become ``variant_accuracy_ci_low`` / ``_high`` maps."""
    for key in [k for k in d if k.endswith("_ci")]:
        ci = d[key]
        if isinstance(ci, dict):
            d[f"{key}_low"] = {k: v[0] for k, v in ci.items()}
            d[f"{key}_high"] = {k: v[1] for k, v in ci.items()}
        else:
            d[f"{key}_low"], d[f"{key}_high"] = (ci[0], ci[1]) if ci else (None, None)


def report_to_json(report: Report) -> dict[str, Any]:
    """The report as plain JSON data (shape in the module docstring)."""
    models = []
    for model, benches in report.models.items():
        bench_list = []
        for benchmark, fams in benches.items():
            fam_list = []
            for f in fams:
                d = asdict(f)
                for k in ("model", "benchmark", "permuted"):  # permuted: in the notes (and the CSV's rows)
                    d.pop(k)
                _flat_ci(d)
                fam_list.append(_clean(d))
            bench_list.append({"benchmark": benchmark, "families": fam_list,
                               "missing_families": report.missing_families.get((model, benchmark), [])})
        models.append({"model": model, "benchmarks": bench_list,
                       "missing_benchmarks": report.missing_benchmarks.get(model, [])})
    return {"report": "scorekit-robustness", "version": 1, "confidence": report.confidence, "models": models,
            "notes": list(report.notes)}

