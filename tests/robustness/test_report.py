"""The robustness report on real lm-eval logs (scorekit's and upstream's SCORE tasks).

Expected values are worked out by hand from the scripted policies in
report_fixtures/build_logs.py and the fixture questions (report_fixtures/data):
MMLU-Pro question_id -> (options, gold): 70 (10, C), 71 (10, H), 72 (4, A), 73 (7, C),
74 (10, J), 75 (5, D); categories math (70, 73), law (71, 74), physics (72, 75).
AGIEval aqua-rat rows 0..3 with gold C, A, E, B (5 options each).
"""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from scorekit.robustness.readers import read_paths
from scorekit.robustness.report import build_report, render_report, report_to_json
from tests.robustness.report_fixtures import build_logs

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    return build_logs.upstream_logs(tmp_path_factory)


@pytest.fixture(scope="module")
def scorekit_logs(tmp_path_factory):
    return build_logs.scorekit_logs(tmp_path_factory)


def _family(report, model, benchmark, family):
    (f,) = [f for f in report.models[model][benchmark] if f.family == family]
    return f


def _check_mixed_prompt_mmlu(f):
    """Prompts 0-5 and 9 correct, 6-7 say "A" (right only for q72, physics), 8 unparsed."""
    assert f.source == "samples" and f.macro
    assert f.n_questions == 6 and f.n_incomplete == 0
    expected = {str(p): 1.0 for p in (0, 1, 2, 3, 4, 5, 9)} | {"6": 1 / 6, "7": 1 / 6, "8": 0.0}
    assert f.variant_accuracy == pytest.approx(expected)  # 1/6 = macro of (0, 0, 1/2)
    assert f.accuracy_min == 0.0 and f.accuracy_max == 1.0 and f.accuracy_range == 1.0
    assert f.accuracy_std == pytest.approx(float(__import__("numpy").std(list(expected.values()))))
    # 7 agreeing correct answers + 2 "A" answers per question (q72: 9 agree): (5*22 + 36) / 270
    assert f.consistency_rate == pytest.approx(146 / 270)
    # 6 questions: too few for an interval (10 are needed), said in a note
    assert all(math.isnan(x) for x in f.consistency_rate_ci)
    assert any("6 question(s) with pairs; an interval needs at least 10" in n for n in f.notes)
    assert f.unparsed_rate == pytest.approx(0.1)


def test_prompt_family_from_upstream_logs(upstream):
    report = build_report(read_paths([upstream["upstream"]]))
    f = _family(report, "scripted/mixed", "mmlu_pro", "prompt")
    assert f.layout == "upstream"
    _check_mixed_prompt_mmlu(f)
    # AGIEval is micro: prompts 6-7 right only for row 1 (gold A)
    a = _family(report, "scripted/mixed", "agieval", "prompt")
    assert not a.macro and a.variant_accuracy["6"] == pytest.approx(0.25)
    assert a.subsets == ["aqua_rat"] and "logiqa_en" in a.missing_subsets
    assert any("1 of 7 agieval subsets" in m for m in a.missing)


def test_same_answers_same_report_from_scorekit_and_upstream_logs(upstream, scorekit_logs):
    """The same scripted answers logged by upstream's tasks and by scorekit's tasks give the same
    prompt-family numbers (one extraction, one analysis), interval included."""
    up = _family(build_report(read_paths([upstream["upstream"]])), "scripted/mixed", "mmlu_pro", "prompt")
    sk = _family(build_report(read_paths([scorekit_logs["scorekit"]])), "scripted/mixed", "mmlu_pro", "prompt")
    assert sk.layout == "scorekit"
    _check_mixed_prompt_mmlu(sk)
    assert (sk.variant_accuracy, sk.consistency_rate, sk.unparsed_rate) == (up.variant_accuracy, up.consistency_rate, up.unparsed_rate)
    assert sk.consistency_rate_ci == pytest.approx(up.consistency_rate_ci, nan_ok=True)


def test_option_order_always_c_is_not_consistent(upstream, scorekit_logs):
    """Always letter C picks different content as the correct option moves. Per question with n
    options and gold g: g == C -> all answers differ; else n-1 answers agree. Pooled:
    (0 + 36 + 3 + 0 + 36 + 6) / (45 + 45 + 6 + 21 + 45 + 10) = 81/172."""
    for root in (upstream["upstream"], scorekit_logs["scorekit"]):
        report = build_report(read_paths([root]))
        model = "scripted/always-c" if root == upstream["upstream"] else "scripted/mixed"
        f = _family(report, model, "mmlu_pro", "option_order")
        assert f.consistency_rate == pytest.approx(81 / 172)
        assert f.variant_accuracy["C"] == 1.0
        assert all(v == 0.0 for k, v in f.variant_accuracy.items() if k != "C")
        assert set(f.variant_accuracy) == set("ABCDEFGHIJ")


def test_results_only_upstream_option_cr_shows_the_defect_and_says_what_is_missing(upstream):
    """Without samples the report shows upstream's own value, flags its defect, and lists what
    cannot be known (interval, unparsed rate, overall accuracy)."""
    (results,) = (upstream["upstream"] / "scripted__always-c").glob("results_*.json")
    logged = json.loads(results.read_text())["results"]["score_option_order_robustness_mmlu_pro"]
    report = build_report(read_paths([results]))
    f = _family(report, "scripted/always-c", "mmlu_pro", "option_order")
    assert f.source == "results" and f.layout == "upstream"
    assert f.consistency_rate == logged["options_consistency_rate,none"]
    assert f.consistency_rate > 81 / 172  # upstream's canonicalisation defect inflates it
    assert f.consistency_rate_ci is None and math.isnan(f.unparsed_rate) and math.isnan(f.accuracy)
    assert f.variant_accuracy["C"] == logged["per_option_macro_accuracy_C,none"]
    missing = " ".join(f.missing)
    assert "CR interval" in missing and "unparsed rate" in missing and "overall option-order accuracy" in missing
    assert any("original letter" in n for n in f.notes)


def test_results_only_scorekit_reports_logged_metrics(scorekit_logs):
    (results,) = (scorekit_logs["scorekit"] / "scripted__mixed").glob("results_*.json")
    logged = json.loads(results.read_text())["results"]
    report = build_report(read_paths([results]))
    f = _family(report, "scripted/mixed", "mmlu_pro", "prompt")
    r = logged["score_prompt_robustness_mmlu_pro"]
    assert f.source == "results" and f.layout == "scorekit" and f.n_questions == 6
    assert f.consistency_rate == r["consistency_rate,none"]
    assert math.isnan(r["consistency_rate_ci_low,none"]) and math.isnan(r["consistency_rate_ci_high,none"])
    assert f.consistency_rate_ci is None  # 6 questions: the run logged no interval, and the report says why
    assert "CR interval: undefined in the results files (fewer than 10 questions with pairs)" in f.missing
    assert f.unparsed_rate == r["unparsed_rate,none"]
    assert f.accuracy_std == pytest.approx(r["accuracy_std,none"])
    ng = _family(report, "scripted/mixed", "agieval", "non_greedy")
    assert ng.accuracy == logged["non_greedy_robustness_agieval_aqua_rat"]["non_greedy_accuracy,none"]
    assert sorted(ng.missing) == sorted([next(m for m in ng.missing if "subsets" in m),
                                         "CR interval: undefined in the results files (fewer than 10 questions with pairs)"])


def test_recomputed_samples_match_scorekit_results(scorekit_logs):
    """Samples recomputation and the run's own aggregation agree for every family."""
    (results,) = (scorekit_logs["scorekit"] / "scripted__mixed").glob("results_*.json")
    logged = json.loads(results.read_text())["results"]
    report = build_report(read_paths([scorekit_logs["scorekit"]]))
    cr_key = {"prompt": "consistency_rate", "option_order": "options_consistency_rate",
              "non_greedy": "non_greedy_consistency_rate"}
    for f in report.families():
        assert f.source == "samples"
        task = f.tasks[0]
        assert f.consistency_rate == pytest.approx(logged[task][cr_key[f.family] + ",none"])
        assert f.consistency_rate_ci == pytest.approx(
            (logged[task][cr_key[f.family] + "_ci_low,none"], logged[task][cr_key[f.family] + "_ci_high,none"]), nan_ok=True)
        assert f.unparsed_rate == pytest.approx(logged[task]["unparsed_rate,none"])


def test_non_greedy_five_seeds(upstream):
    report = build_report(read_paths([upstream["upstream_ng"]]))
    f = _family(report, "scripted/sampler", "mmlu_pro", "non_greedy")
    assert f.runs == [f"seed {s}" for s in range(1, 6)]
    assert f.n_questions == 6 and f.consistency_rate == pytest.approx(28 / 60)
    # every seed answers 2 of 6 questions with "B" (never the gold): macro accuracy 2/3 each run
    assert f.accuracy == pytest.approx(2 / 3)
    assert report.missing_families[("scripted/sampler", "mmlu_pro")] == ["prompt", "option_order"]


def test_non_greedy_with_missing_runs_is_said(upstream, tmp_path):
    import shutil

    for seed in (1, 2, 3):
        shutil.copytree(upstream["upstream_ng"] / f"seed_{seed}", tmp_path / f"seed_{seed}")
    report = build_report(read_paths([tmp_path]))
    f = _family(report, "scripted/sampler", "mmlu_pro", "non_greedy")
    assert f.runs == ["seed 1", "seed 2", "seed 3"]
    assert any("3 non-greedy runs found" in n for n in f.notes)
    # one run only: CR undefined, said
    report = build_report(read_paths([tmp_path / "seed_1"]))
    f = _family(report, "scripted/sampler", "mmlu_pro", "non_greedy")
    assert math.isnan(f.consistency_rate)
    assert any("only 1 non-greedy run" in n for n in f.notes)


def test_upstream_non_greedy_results_only(upstream, tmp_path):
    """Only the five runs' results files (no samples): accuracy known, CR said to be missing."""
    import shutil

    for p in upstream["upstream_ng"].rglob("results_*.json"):
        dst = tmp_path / p.relative_to(upstream["upstream_ng"])
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(p, dst)
    report = build_report(read_paths([tmp_path]))
    f = _family(report, "scripted/sampler", "mmlu_pro", "non_greedy")
    assert f.source == "results" and len(f.runs) == 5
    assert f.accuracy == pytest.approx(2 / 3, abs=1e-4)  # upstream rounds to 4 decimals
    assert math.isnan(f.consistency_rate)
    assert any("non-greedy CR" in m for m in f.missing)


def test_missing_benchmarks_listed(upstream, scorekit_logs):
    report = build_report(read_paths([upstream["upstream_ng"] / "seed_1" / "scripted__sampler",
                                      scorekit_logs["scorekit"]]))
    assert report.missing_benchmarks == {"scripted/mixed": [], "scripted/sampler": []}
    only_mmlu = [p for p in (scorekit_logs["scorekit"] / "scripted__mixed").iterdir() if "mmlu_pro" in p.name]
    report = build_report(read_paths([*only_mmlu, upstream["upstream_ng"] / "seed_1" / "scripted__sampler"]))
    assert report.missing_benchmarks["scripted/mixed"] == ["agieval"]
    text = render_report(report, "table")
    assert "scripted/mixed: no logs for benchmark(s) agieval" in text


def test_formats(scorekit_logs):
    report = build_report(read_paths([scorekit_logs["scorekit"]]))
    data = json.loads(render_report(report, "json"))
    assert data == json.loads(json.dumps(report_to_json(report)))
    (model,) = data["models"]
    assert model["model"] == "scripted/mixed"
    fams = {(b["benchmark"], f["family"]): f for b in model["benchmarks"] for f in b["families"]}
    assert set(fams) == {(b, f) for b in ("mmlu_pro", "agieval") for f in ("prompt", "option_order", "non_greedy")}
    assert fams[("mmlu_pro", "prompt")]["consistency_rate"] == pytest.approx(146 / 270)
    assert len(fams[("mmlu_pro", "prompt")]["consistency_rate_ci"]) == 2
    rows = list(csv.DictReader(io.StringIO(render_report(report, "csv"))))
    cr = [r for r in rows if r["benchmark"] == "mmlu_pro" and r["family"] == "prompt" and r["metric"] == "consistency_rate"]
    assert float(cr[0]["value"]) == pytest.approx(146 / 270)
    assert {r["metric"] for r in rows if r["family"] == "option_order"} >= {f"position_{x}_accuracy" for x in "ABCDE"}
    md = render_report(report, "markdown")
    assert "### SCORE robustness" in md and "### Accuracy per prompt" in md and "### Accuracy per answer position" in md
    table = render_report(report, "table")
    assert "SCORE robustness" in table and "0.54" in table
    with pytest.raises(ValueError):
        render_report(report, "xml")


# --- a model whose answers can never be read (lm-eval's dummy model says "lol") ---------------------


@pytest.fixture(scope="module")
def unparsable(tmp_path_factory):
    return build_logs.unparsable_logs(tmp_path_factory)


def test_all_unparsed_cr_is_undefined_and_said(unparsable):
    """Recomputed from samples (upstream's and scorekit's logs): CR and its interval are
    undefined, with a note, never 0.00 [0.00-0.00]."""
    report = build_report(read_paths([unparsable["upstream_lol"], unparsable["scorekit_lol"]]))
    fams = report.families()
    assert {(f.benchmark, f.family) for f in fams} == {("mmlu_pro", "prompt"), ("mmlu_pro", "non_greedy"), ("math", "prompt")}
    for f in fams:
        assert f.source == "samples" and f.unparsed_rate == 1.0
        assert math.isnan(f.consistency_rate) and all(math.isnan(x) for x in f.consistency_rate_ci)
        assert any("no question has two parsed answers" in n for n in f.notes), f.notes
    columns, rows = __import__("scorekit.robustness.report", fromlist=["summary_table"]).summary_table(report)
    for row in rows:
        assert row[columns.index("CR")] != row[columns.index("CR")]  # NaN: shown as "-"
        assert row[columns.index("CR 95% CI")] is None  # no interval, never [0.00, 0.00]
    table = render_report(report, "table")
    assert "no question has two parsed answers" in table


def test_upstream_cr_notes_say_what_upstream_does(unparsable):
    """From the results files only: upstream's MMLU-Pro CR rates identical garbage 1.0 and the
    note says why; upstream's MATH CR is 0.0 (an output without \\boxed{} agrees with nothing
    there too), and the note says that, not that identical unparsed answers agree."""
    results = sorted((unparsable["upstream_lol"] / "scripted__lol").glob("results_*.json"))
    logged = json.loads(results[0].read_text())["results"]
    assert logged["score_prompt_robustness_mmlu_pro"]["consistency_rate,none"] == 1.0
    assert logged["prompt_robustness_math_algebra"]["consistency_rate,none"] == 0.0
    report = build_report(read_paths(results))
    mmlu = _family(report, "scripted/lol", "mmlu_pro", "prompt")
    math_f = _family(report, "scripted/lol", "math", "prompt")
    assert mmlu.source == math_f.source == "results"
    assert mmlu.consistency_rate == 1.0 and math_f.consistency_rate == 0.0
    (mmlu_note,) = [n for n in mmlu.notes if n.startswith("upstream's")]
    assert "identical unparsed outputs count as agreeing" in mmlu_note
    (math_note,) = [n for n in math_f.notes if n.startswith("upstream's")]
    assert "agrees with nothing, as in scorekit" in math_note and "count as agreeing" not in math_note


def test_scorekit_results_with_undefined_cr_say_so(unparsable):
    (results,) = (unparsable["scorekit_lol"] / "scripted__lol").glob("results_*.json")
    assert math.isnan(json.loads(results.read_text())["results"]["score_prompt_robustness_mmlu_pro"]["consistency_rate,none"])
    f = _family(build_report(read_paths([results])), "scripted/lol", "mmlu_pro", "prompt")
    assert f.source == "results" and math.isnan(f.consistency_rate) and f.unparsed_rate == 1.0
    assert any("CR is undefined in the results files: no question has two parsed answers" in n for n in f.notes)
    assert not any("CR: not in the results files" in m for m in f.missing)


def test_html_is_a_whole_page_with_everything_escaped():
    from scorekit.robustness.report import FamilyReport, Report

    fam = FamilyReport(model="<script>alert('m')</script>", benchmark="mmlu_pro", family="prompt", source="samples",
                       layout="scorekit", tasks=["t"], subsets=[], missing_subsets=[], macro=True, n_questions=12,
                       variant_accuracy={"0": 0.5}, accuracy=0.5, consistency_rate=0.25, consistency_rate_ci=(0.1, 0.4),
                       unparsed_rate=0.0, notes=["a < b & \"c\""])
    report = Report(0.95, {fam.model: {"mmlu_pro": [fam]}}, {fam.model: []}, {(fam.model, "mmlu_pro"): []},
                    ["read <x>.json"])
    page = render_report(report, "html")
    assert page.startswith("<!DOCTYPE html>\n") and page.rstrip().endswith("</html>")
    assert "<script>" not in page and "&lt;script&gt;alert(&#x27;m&#x27;)&lt;/script&gt;" in page
    assert "<li>&lt;script&gt;alert(&#x27;m&#x27;)&lt;/script&gt; / mmlu_pro / prompt: a &lt; b &amp; &quot;c&quot;</li>" in page
    assert "<li>read &lt;x&gt;.json</li>" in page
    assert page.count("<table>") == 2 and "<caption>Accuracy per prompt</caption>" in page
    assert "<td>[0.10, 0.40]</td>" in page and "<td>0.25</td>" in page


def test_identical_sample_rate_from_samples_results_and_upstream_runs(upstream, scorekit_logs, tmp_path):
    """Non-greedy only. Fixture answers: the five samples of a question differ unless its gold is
    B (the scripted sampler says "B" or the gold): AGIEval row 3 only, 1 of 4 questions."""
    import shutil

    report = build_report(read_paths([scorekit_logs["scorekit"]]))
    assert _family(report, "scripted/mixed", "mmlu_pro", "non_greedy").identical_sample_rate == 0.0
    ng = _family(report, "scripted/mixed", "agieval", "non_greedy")
    assert ng.identical_sample_rate == 0.25 and not any("identical samples" in n for n in ng.notes)
    assert math.isnan(_family(report, "scripted/mixed", "agieval", "prompt").identical_sample_rate)
    data = report_to_json(report)
    fams = {(b["benchmark"], f["family"]): f for b in data["models"][0]["benchmarks"] for f in b["families"]}
    assert fams[("agieval", "non_greedy")]["identical_sample_rate"] == 0.25
    assert fams[("agieval", "prompt")]["identical_sample_rate"] is None
    rows = list(csv.DictReader(io.StringIO(render_report(report, "csv"))))
    assert [float(r["value"]) for r in rows if r["metric"] == "identical_sample_rate" and r["benchmark"] == "agieval"] == [0.25]
    assert "Identical samples" in render_report(report, "markdown")

    # results files: the logged metric; an older results file without it says so
    (results,) = (scorekit_logs["scorekit"] / "scripted__mixed").glob("results_*.json")
    ng = _family(build_report(read_paths([results])), "scripted/mixed", "agieval", "non_greedy")
    assert ng.source == "results" and ng.identical_sample_rate == 0.25
    old = json.loads(results.read_text())
    for entry in old["results"].values():
        entry.pop("identical_sample_rate,none", None)
        entry.pop("identical_sample_rate_stderr,none", None)
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / results.name).write_text(json.dumps(old))
    ng = _family(build_report(read_paths([tmp_path / "old"])), "scripted/mixed", "agieval", "non_greedy")
    assert math.isnan(ng.identical_sample_rate) and any("identical-sample rate" in m for m in ng.missing)

    # upstream's five runs: the same question across runs; five copies of one run are all identical
    report = build_report(read_paths([upstream["upstream_ng"]]))
    assert _family(report, "scripted/sampler", "mmlu_pro", "non_greedy").identical_sample_rate == 0.0
    for seed in range(1, 6):
        shutil.copytree(upstream["upstream_ng"] / "seed_1", tmp_path / "copies" / f"seed_{seed}")
    f = _family(build_report(read_paths([tmp_path / "copies"])), "scripted/sampler", "mmlu_pro", "non_greedy")
    assert f.identical_sample_rate == 1.0 and f.consistency_rate == 1.0  # inflated, and flagged
    assert any(n.startswith("identical samples: 100% of 6 questions") for n in f.notes)


def test_report_carries_variance_shares(upstream):
    """Upstream MMLU-Pro prompt family of scripted/mixed (report_fixtures): prompts 0-5 and 9
    right, 6-7 answer "A" (right only for question 72), 8 unparsed, on 6 questions."""
    import numpy as np

    from scorekit.robustness.variance import variance_shares

    report = build_report(read_paths([upstream["upstream"]]))
    (f,) = [f for f in report.models["scripted/mixed"]["mmlu_pro"] if f.family == "prompt"]
    y = np.array([[1.0] * 6 + [float(q == 72)] * 2 + [0.0, 1.0] for q in (70, 71, 72, 73, 74, 75)])
    expected = variance_shares(y)
    for k in ("question", "variant", "within"):
        assert f.variance_shares[k]["value"] == pytest.approx(expected[k]["value"])
    doc = json.loads(render_report(report, "json"))
    fams = [fam for m in doc["models"] for b in m["benchmarks"] for fam in b["families"] if fam["source"] == "samples"]
    assert fams and all(set(fam["variance_shares"]) == {"question", "variant", "within"} for fam in fams)
    defined = [fam for fam in fams if fam["variance_shares"]["question"]["value"] is not None]
    assert len(defined) >= 3
    for fam in fams:
        shares = fam["variance_shares"]
        assert set(shares["variant"]) == {"value", "ci_low", "ci_high"}
        if fam in defined:
            assert sum(shares[k]["value"] for k in shares) == pytest.approx(1.0)
        else:  # a family whose answers are all right or all wrong: undefined, and said
            assert any("variance shares undefined" in n for n in fam["notes"])
    # MMLU-Pro's option order: 10 positions for questions 70, 71, 74; 4, 7, 5 for the others
    options = [f for fams in report.models.values() for f in fams.get("mmlu_pro", []) if f.family == "option_order"
               and f.source == "samples"]
    assert options and all(any("variance shares on the 3 questions" in n and "3 question(s) with another number" in n
                               for n in f.notes) for f in options)
    assert "Shares of the variance of correctness" in render_report(report, "table")
    assert "variance_share_variant_ci_high" in render_report(report, "csv")
