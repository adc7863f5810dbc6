"""Intervals in the robustness numbers: Wilson per variant (micro), bootstrap (macro), the box of
the per-variant intervals (spreads),
and the ``[lo, hi]`` / ``<name>_ci_low`` / ``<name>_ci_high`` presentation."""

from __future__ import annotations

import numpy as np
import pytest

from scorekit.metrics.intervals import wilson_interval
from scorekit.robustness.analysis import summarize
from scorekit.robustness.records import Record


def _records(n_q: int = 120, seed: int = 0) -> tuple[list[Record], np.ndarray]:
    rng = np.random.default_rng(seed)
    correct = rng.random((n_q, 4)) < np.array([0.4, 0.5, 0.6, 0.7])
    recs = [Record(str(q), "prompt", v, 4, f"cat{q % 3}", "A" if correct[q, v] else "B", bool(correct[q, v]))
            for q in range(n_q) for v in range(4)]
    return recs, correct


def test_micro_intervals_are_wilson_and_spreads_their_box():
    recs, correct = _records()
    s = summarize(recs, intervals=True)
    lows, highs = [], []
    for v in range(4):
        want = wilson_interval(int(correct[:, v].sum()), len(correct))
        assert s.variant_accuracy_ci[v] == pytest.approx(want, abs=1e-12)
        lows.append(want[0])
        highs.append(want[1])
    # range: [max(0, max low - min high), max high - min low], written out here
    assert s.accuracy_range_ci == pytest.approx((max(0.0, max(lows) - min(highs)), max(highs) - min(lows)), abs=1e-12)
    # std: brute force over points of the box (its corners give the largest)
    rng = np.random.default_rng(0)
    corners = np.array([[highs[v] if (c >> v) & 1 else lows[v] for v in range(4)] for c in range(16)])
    inside = np.array(lows) + (np.array(highs) - np.array(lows)) * rng.random((50_000, 4))
    lo, hi = s.accuracy_std_ci
    assert hi == pytest.approx(corners.std(axis=1).max(), abs=1e-12)
    assert lo <= inside.std(axis=1).min() + 1e-12 and inside.std(axis=1).min() - lo < 0.01
    assert lo <= s.accuracy_std <= hi and s.accuracy_range_ci[0] <= s.accuracy_range <= s.accuracy_range_ci[1]
    assert summarize(recs).variant_accuracy_ci == {}  # off by default (the harness path)


@pytest.mark.parametrize("span", [0.0, 0.5])
def test_spread_intervals_cover_with_equal_and_unequal_prompts(span):
    """10 prompts on 100 questions, per-question ability plus a prompt effect on the logit scale
    (span 0: a model equally accurate on every prompt, true spread 0 -- where the bootstrap of
    the spread covered ~50% for the std). Coverage of the 95% intervals >= 93%."""
    rng = np.random.default_rng(3)
    ability = rng.normal(0.3, 1.5, 2000)
    p = 1 / (1 + np.exp(-(ability[:, None] + np.linspace(-span, span, 10)[None, :])))
    truth = p.mean(axis=0)
    runs, hit_range, hit_std = 150, 0, 0
    for _ in range(runs):
        correct = rng.random((100, 10)) < p[rng.integers(0, 2000, 100)]
        recs = [Record(str(q), "prompt", v, 10, "c", "A" if correct[q, v] else "B", bool(correct[q, v]))
                for q in range(100) for v in range(10)]
        s = summarize(recs, intervals=True)
        hit_range += s.accuracy_range_ci[0] - 1e-12 <= truth.max() - truth.min() <= s.accuracy_range_ci[1] + 1e-12
        hit_std += s.accuracy_std_ci[0] - 1e-12 <= truth.std() <= s.accuracy_std_ci[1] + 1e-12
    assert hit_range / runs >= 0.93 and hit_std / runs >= 0.93, (hit_range / runs, hit_std / runs)


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


def _index_bootstrap(per_question_stat, n_q: int, n_boot: int = 4000, seed: int = 7) -> tuple[float, float]:
    """A plain bootstrap written here: resample question indices, recompute, 2.5/97.5% quantiles."""
    rng = np.random.default_rng(seed)
    draws = [per_question_stat(rng.integers(0, n_q, size=n_q)) for _ in range(n_boot)]
    return float(np.quantile(draws, 0.025)), float(np.quantile(draws, 0.975))


def test_accuracy_interval_non_greedy_is_a_bootstrap_over_questions():
    # 5 samples per question; a question's samples are correlated (its own success rate), so
    # the interval must resample questions, not answers: it is wider than Wilson over answers
    rng = np.random.default_rng(4)
    n_q, n_s = 150, 5
    rate = rng.beta(0.6, 0.6, size=n_q)
    correct = rng.random((n_q, n_s)) < rate[:, None]
    recs = [Record(str(q), "non_greedy", v, n_s, "all", "A" if correct[q, v] else "B", bool(correct[q, v]))
            for q in range(n_q) for v in range(n_s)]
    s = summarize(recs, intervals=True)
    assert s.accuracy == pytest.approx(correct.mean())
    lo, hi = s.accuracy_ci
    row = correct.mean(axis=1)
    ref = _index_bootstrap(lambda idx: row[idx].mean(), n_q)
    se = row.std(ddof=1) / np.sqrt(n_q)
    assert lo == pytest.approx(ref[0], abs=0.25 * se) and hi == pytest.approx(ref[1], abs=0.25 * se)
    assert lo < s.accuracy < hi
    w_lo, w_hi = wilson_interval(int(correct.sum()), correct.size)
    assert hi - lo > 1.5 * (w_hi - w_lo)


def test_accuracy_interval_macro_is_the_bootstrap_of_the_macro_accuracy():
    recs, correct = _records()
    s = summarize(recs, macro=True, intervals=True)
    cats = np.arange(len(correct)) % 3

    def macro(idx):
        c, k = correct[idx], cats[idx]
        return np.mean([c[k == j].mean() for j in range(3) if (k == j).any()])

    assert s.accuracy == pytest.approx(macro(np.arange(len(correct))), abs=1e-12)
    ref = _index_bootstrap(macro, len(correct), n_boot=2000)
    se = (ref[1] - ref[0]) / 3.92
    assert s.accuracy_ci == pytest.approx(ref, abs=0.25 * se)


def test_report_shows_the_accuracy_interval_in_every_format():
    from scorekit.robustness.readers import ReadResult, SampleSet, classify_task
    from scorekit.robustness.report import build_report, long_rows, render_report, report_to_json

    recs, _ = _records()
    task = classify_task("prompt_robustness_agieval_aqua_rat")
    report = build_report(ReadResult(samples=[SampleSet("m", task, "scorekit", recs, ["x.jsonl"])]))
    fam = report_to_json(report)["models"][0]["benchmarks"][0]["families"][0]
    assert fam["accuracy_ci_low"] < fam["accuracy"] < fam["accuracy_ci_high"]
    metrics = {row[5] for row in long_rows(report)[1]}
    assert {"accuracy_ci_low", "accuracy_ci_high"} <= metrics
    for fmt in ("table", "markdown", "html", "latex"):
        text = render_report(report, fmt)
        header = "Accuracy 95\\% CI" if fmt == "latex" else "Accuracy 95% CI"
        assert header in text and f"[{fam['accuracy_ci_low']:.2f}, {fam['accuracy_ci_high']:.2f}]" in text


def test_accuracy_interval_with_questions_of_different_sizes():
    # option order: a question has as many variants as options (4 or 10 here), so the family's
    # accuracy is pooled over records; a per-question mean would weigh the questions wrongly
    rng = np.random.default_rng(9)
    recs, right, size = [], [], []
    for q in range(160):
        n = 4 if q % 2 else 10
        c = rng.random(n) < (0.9 if n == 4 else 0.3)
        recs += [Record(str(q), "option_order", v, n, f"cat{q % 2}", "A" if c[v] else "B", bool(c[v])) for v in range(n)]
        right.append(c.sum())
        size.append(n)
    right, size = np.array(right, dtype=float), np.array(size, dtype=float)
    for macro in (False, True):
        s = summarize(recs, macro=macro, intervals=True)
        lo, hi = s.accuracy_ci
        assert lo < s.accuracy < hi
        # positions E..J exist only in the 10-option questions: their accuracy and interval
        # count those 80 questions only (an earlier version counted all 160, with 0 for the rest)
        for v in range(10):
            v_lo, v_hi = s.variant_accuracy_ci[v]
            assert v_lo < s.variant_accuracy[v] < v_hi, (macro, v)
            if not macro:
                have = [r for r in recs if r.variant == v]
                assert (v_lo, v_hi) == pytest.approx(wilson_interval(sum(r.correct for r in have), len(have)), abs=1e-12)
        if not macro:
            assert s.accuracy == pytest.approx(right.sum() / size.sum())
            ref = _index_bootstrap(lambda idx: right[idx].sum() / size[idx].sum(), len(right))
            se = (ref[1] - ref[0]) / 3.92
            assert (lo, hi) == pytest.approx(ref, abs=0.25 * se)


@pytest.mark.parametrize("macro", [True, False])
@pytest.mark.parametrize("all_right", [False, True])
def test_an_accuracy_of_0_or_1_gets_a_wilson_interval_not_zero_width(macro, all_right):
    """Every answer of prompt 2 wrong (or right), and of the whole family in the second case:
    the bootstrap's draws are all equal there; the interval is Wilson's over the questions."""
    n_q = 30
    rng = np.random.default_rng(5)
    correct = rng.random((n_q, 4)) < 0.5
    correct[:, 2] = all_right
    recs = [Record(str(q), "prompt", v, 4, f"cat{q % 3}", "A" if correct[q, v] else "B", bool(correct[q, v]))
            for q in range(n_q) for v in range(4)]
    s = summarize(recs, macro=macro, intervals=True)
    lo, hi = wilson_interval(n_q if all_right else 0, n_q)
    assert s.variant_accuracy[2] == (1.0 if all_right else 0.0)
    assert s.variant_accuracy_ci[2] == pytest.approx((lo, hi) if all_right or not macro else (0.0, hi), abs=1e-12)
    assert s.variant_accuracy_ci[2][1] - s.variant_accuracy_ci[2][0] > 0.1
    family = [Record(r.question_id, r.family, r.variant, r.n_variants, r.category, "A" if all_right else "B", all_right)
              for r in recs]
    s = summarize(family, macro=macro, intervals=True)
    assert s.accuracy_ci == pytest.approx((lo, 1.0) if all_right else (0.0, hi), abs=1e-12)
