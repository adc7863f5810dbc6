"""Intervals in the robustness numbers: Wilson per variant (micro), bootstrap (macro, spreads),
and the ``[lo, hi]`` / ``<name>_ci_low`` / ``<name>_ci_high`` presentation."""

from __future__ import annotations

import numpy as np
import pytest

from scorekit.metrics.intervals import bootstrap_interval, spread_statistic, wilson_interval
from scorekit.robustness.analysis import summarize
from scorekit.robustness.records import Record


def _records(n_q: int = 120, seed: int = 0) -> tuple[list[Record], np.ndarray]:
    rng = np.random.default_rng(seed)
    correct = rng.random((n_q, 4)) < np.array([0.4, 0.5, 0.6, 0.7])
    recs = [Record(str(q), "prompt", v, 4, f"cat{q % 3}", "A" if correct[q, v] else "B", bool(correct[q, v]))
            for q in range(n_q) for v in range(4)]
    return recs, correct


def test_micro_intervals_are_wilson_and_spreads_bootstrap():
    recs, correct = _records()
    s = summarize(recs, intervals=True)
    for v in range(4):
        assert s.variant_accuracy_ci[v] == pytest.approx(wilson_interval(int(correct[:, v].sum()), len(correct)), abs=1e-12)
    for kind, ci in (("range", s.accuracy_range_ci), ("std", s.accuracy_std_ci)):
        r = bootstrap_interval(correct.astype(float), spread_statistic(kind), method="basic")
        assert ci == pytest.approx((max(0.0, r.ci_low), max(0.0, r.ci_high)), abs=1e-12)
        # the basic interval reflects the bootstrap distribution around the estimate
        pct = bootstrap_interval(correct.astype(float), spread_statistic(kind))
        est = getattr(s, f"accuracy_{kind}")
        assert r.ci_low == pytest.approx(2 * est - pct.ci_high) and r.ci_high == pytest.approx(2 * est - pct.ci_low)
    assert summarize(recs).variant_accuracy_ci == {}  # off by default (the harness path)


def test_macro_intervals_cover_the_macro_values():
    recs, _ = _records()
    s = summarize(recs, macro=True, intervals=True)
    for v, acc in s.variant_accuracy.items():
        lo, hi = s.variant_accuracy_ci[v]
        assert lo < acc < hi and hi - lo < 0.4
    assert 0 <= s.accuracy_range_ci[0] < s.accuracy_range_ci[1]


def test_report_json_csv_and_table_carry_the_intervals():
    from scorekit.robustness.readers import ReadResult, SampleSet, classify_task
    from scorekit.robustness.report import build_report, long_rows, render_report, report_to_json

    recs, _ = _records()
    task = classify_task("prompt_robustness_agieval_aqua_rat")
    report = build_report(ReadResult(samples=[SampleSet("m", task, "scorekit", recs, ["x.jsonl"])]))
    fam = report_to_json(report)["models"][0]["benchmarks"][0]["families"][0]
    for name in ("accuracy_range", "accuracy_std", "consistency_rate"):
        assert 0 <= fam[f"{name}_ci_low"] < fam[f"{name}_ci_high"]
    assert fam["consistency_rate_ci_low"] <= fam["consistency_rate"] <= fam["consistency_rate_ci_high"]
    assert fam["variant_accuracy_ci_low"]["0"] < fam["variant_accuracy"]["0"] < fam["variant_accuracy_ci_high"]["0"]
    metrics = {row[5] for row in long_rows(report)[1]}
    assert {"prompt_0_accuracy_ci_low", "prompt_0_accuracy_ci_high", "accuracy_range_ci_low", "accuracy_std_ci_high"} <= metrics
    table = render_report(report, "markdown")
    assert "Range 95% CI" in table and " [0." in table
