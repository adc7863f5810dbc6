"""PNG plots of a SCORE robustness report (the JSON of ``scorekit robustness --format json``),
returned as bytes for embedding in the HTML report (:mod:`scorekit.robustness.html_report`).

Needs matplotlib (the ``plots`` extra); it is imported inside each function, with the
non-interactive Agg backend, so importing this module costs nothing.
"""

from __future__ import annotations

import io
import math
from typing import Any, NamedTuple

from scorekit.robustness.benchmarks import BENCHMARKS
from scorekit.robustness.records import Family
from scorekit.robustness.report_data import FAMILY_LABEL


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _families(report: dict[str, Any]):
    """Yield (label, family dict) for every family: the benchmark, after the model when there
    are several."""
    several_models = len(report["models"]) > 1
    for model in report["models"]:
        for bench in model["benchmarks"]:
            key = bench["benchmark"]
            label = BENCHMARKS[key].label if key in BENCHMARKS else key  # MMLU-Pro; a variant task by its name
            for fam in bench["families"]:
                yield (f"{model['model']} · {label}" if several_models else label), fam


class Plot(NamedTuple):
    """One figure: a file-like ``name`` (``accuracy_per_prompt``), a one-line ``caption`` and
    the PNG bytes."""

    name: str
    caption: str
    png: bytes


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    _pyplot().close(fig)
    return buf.getvalue()


def plot_variant_accuracy(report: dict[str, Any], family: Family) -> bytes | None:
    """Grouped bars of accuracy per variant (prompt template or answer position); None if the
    report has no such family."""
    rows = [(label, fam) for label, fam in _families(report) if fam["family"] == family and fam.get("variant_accuracy")]
    if not rows:
        return None
    plt = _pyplot()
    variants = list(dict.fromkeys(key for _, fam in rows for key in fam["variant_accuracy"]))
    width = 0.8 / len(rows)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.7 * len(variants) * max(1, len(rows)) / 2 + 3), 4))
    for i, (label, fam) in enumerate(rows):
        xs = [j + (i - (len(rows) - 1) / 2) * width for j in range(len(variants))]
        ys = [_num(fam["variant_accuracy"].get(v)) for v in variants]
        ax.bar(xs, ys, width=width, label=f"{label} (mean {_num(fam.get('accuracy')):.2f})")
    ax.set_xticks(range(len(variants)))
    ax.set_xticklabels([f"P{v}" if family == "prompt" else v for v in variants])
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy")
    ax.set_xlabel("prompt template" if family == "prompt" else "position of the correct option")
    ax.set_title(f"SCORE {FAMILY_LABEL.get(family, family)} robustness: accuracy per "
                 + ("prompt" if family == "prompt" else "answer position"))
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    return _png(fig)


def plot_consistency(report: dict[str, Any]) -> bytes | None:
    """Horizontal bars of every defined consistency rate with its confidence interval (no error
    bar where there is no interval, i.e. below 10 questions); None when no CR is defined."""
    labels, values, lows, highs = [], [], [], []
    for label, fam in _families(report):
        cr = _num(fam.get("consistency_rate"))
        if math.isnan(cr):
            continue
        ci = fam.get("consistency_rate_ci") or [None, None]
        lo, hi = _num(ci[0]), _num(ci[1])  # nan: no interval, so no error bar
        labels.append(f"{label} · {FAMILY_LABEL.get(fam['family'], fam['family'])}")
        values.append(cr)
        lows.append(cr - lo)
        highs.append(hi - cr)
    if not labels:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(labels) + 1.5))
    ys = list(range(len(labels)))[::-1]
    ax.barh(ys, values, xerr=[lows, highs], capsize=4, color="#4c72b0")
    ax.set_yticks(ys)
    ax.set_yticklabels(labels)
    ax.set_xlim(0, 1)
    level = report.get("confidence", 0.95)
    ax.set_xlabel(f"consistency rate (bars: {level:.0%} confidence interval over questions)")
    ax.set_title("SCORE consistency rates")
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def report_plots(report: dict[str, Any]) -> list[Plot]:
    """Every plot the report supports, in reading order (absent families and an undefined CR
    everywhere give no plot)."""
    made = [
        Plot("accuracy_per_prompt", "Accuracy per prompt template", plot_variant_accuracy(report, "prompt")),
        Plot("accuracy_per_position", "Accuracy per position of the correct option",
             plot_variant_accuracy(report, "option_order")),
        Plot("consistency_rates", "Consistency rates with their confidence intervals", plot_consistency(report)),
    ]
    return [p for p in made if p.png is not None]


def _num(value: Any) -> float:
    return float("nan") if value is None else float(value)
