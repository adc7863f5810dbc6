"""End to end through the real lighteval CLI (offline, ``python -m scorekit.lighteval``) with
a scripted ``lighteval custom`` model on the SCORE fixture data, then the details reader and
the parity with lm-eval on the same script.

One lighteval run covers every family of every benchmark (all 207 variant tasks, families
selected by their prefix) so the slow part -- starting lighteval -- happens once.
"""

from __future__ import annotations

import json
import math
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

from scorekit.robustness.analysis import summarize
from scorekit.robustness.identical import identical_share, samples_identical
from scorekit.robustness.records import records_from_items
from scorekit.robustness.grading import equal_for, prompt_for, record_for
from tests.lighteval.conftest import SCRIPTED_MODEL, results_file, run_lighteval
from tests.lighteval.script import expanded_docs, scripted_answer, write_script

pytestmark = pytest.mark.slow

FAMILIES = [
    "score_prompt_robustness_mmlu_pro", "score_option_order_robustness_mmlu_pro", "score_non_greedy_robustness_mmlu_pro",
    "score_prompt_robustness_agieval", "score_option_order_robustness_agieval", "score_non_greedy_robustness_agieval",
    "score_prompt_robustness_math", "score_non_greedy_robustness_math",
]
MACRO = {"mmlu_pro": True, "agieval": False, "math": False}


def rows_by_source(data_dir: Path) -> dict[tuple[str, str], list[dict]]:
    out = {}
    for folder in sorted(data_dir.iterdir()):
        bench = "mmlu_pro" if folder.name == "mmlu_pro" else folder.name.split("_")[0]
        subset = "" if bench == "mmlu_pro" else folder.name[len(bench) + 1:]
        out[(bench, subset)] = [json.loads(x) for x in (folder / "test.jsonl").read_text().splitlines() if x.strip()]
    return out


def lighteval_name(doc: dict) -> str:
    from scorekit.robustness.benchmarks import lighteval_task as task_name

    subset = "" if doc["benchmark"] == "mmlu_pro" else doc["category"]
    return task_name(doc["benchmark"], doc["family"], subset, int(doc["variant"]))


def expected_records(doc: dict) -> list:
    ans = scripted_answer(doc)
    if doc["family"] == "non_greedy":
        return [record_for(doc, a, sample=i) for i, a in enumerate(ans)]
    return [record_for(doc, ans)]


@pytest.fixture(scope="module")
def expected(score_data_dir):
    """{lighteval task name: (benchmark, [records])} computed without lighteval."""
    out: dict[str, tuple[str, list]] = {}
    docs = list(expanded_docs(rows_by_source(score_data_dir)))
    for doc in docs:
        name = lighteval_name(doc)
        out.setdefault(name, (doc["benchmark"], []))[1].extend(expected_records(doc))
    return out, docs


@pytest.fixture(scope="module")
def scripted_run(tmp_path_factory, lighteval_env, score_data_dir):
    tmp = tmp_path_factory.mktemp("lighteval_scripted")
    script = write_script(tmp / "script.json", rows_by_source(score_data_dir))
    env = {**lighteval_env, "SCOREKIT_LIGHTEVAL_SCRIPT": str(script)}
    out = tmp / "out"
    proc = run_lighteval(["custom", "scripted", str(SCRIPTED_MODEL), ",".join(f"{f}|0" for f in FAMILIES),
                          "--custom-tasks", "scorekit.lighteval.score_suite", "--output-dir", str(out), "--save-details"], env)
    calls = [json.loads(x) for x in Path(str(script) + ".calls").read_text().splitlines()]
    return out, calls, proc


def test_every_variant_task_ran_with_the_right_prompt_and_samples(scripted_run, expected):
    out, calls, proc = scripted_run
    exp, docs = expected
    assert "skipped lighteval's import-time download" in proc.stderr or "tinyBenchmarks" not in proc.stderr
    by_key = {f"{d['question_id']}|{d['family']}|{d['variant']}": d for d in docs}
    assert sorted(c["key"] for c in calls) == sorted(by_key)  # every document once, nothing else
    for c in calls:
        doc = by_key[c["key"]]
        assert c["task"] == lighteval_name(doc) + "|0"
        assert c["query"] == prompt_for(doc)
        assert c["num_samples"] == (5 if doc["family"] == "non_greedy" else 1)
    results = results_file(out, "scripted")["results"]
    assert {k.removesuffix("|0") for k in results if ":_average" not in k and k != "all"} == set(exp)


def test_results_match_scorekit_analysis(scripted_run, expected):
    out, _, _ = scripted_run
    exp, docs = expected
    results = results_file(out, "scripted")["results"]
    for name, (benchmark, records) in exp.items():
        got = results[f"{name}|0"]
        if "non_greedy" in name:
            want = summarize(records, macro=MACRO[benchmark], equal=equal_for(benchmark)).metrics()
            want["identical_sample_rate"] = identical_share(
                samples_identical(scripted_answer(d)) for d in docs if lighteval_name(d) == name)
            assert got.keys() == want.keys(), name
            for k in want:
                assert got[k] == pytest.approx(want[k], abs=1e-12, nan_ok=True), (name, k)
        else:
            key = "macro_accuracy" if MACRO[benchmark] else "accuracy"
            with warnings.catch_warnings():  # one record per question: CR is undefined here, only accuracy is used
                warnings.simplefilter("ignore", RuntimeWarning)
                acc = summarize([r._replace(n_variants=1, variant=0) for r in records], macro=MACRO[benchmark]).accuracy
            assert got[key] == pytest.approx(acc, abs=1e-12), name
            assert got["unparsed_rate"] == pytest.approx(sum(r.answer is None for r in records) / len(records))
    # the script makes the numbers non-trivial
    values = [results[f"{n}|0"].get("macro_accuracy", results[f"{n}|0"].get("accuracy")) for n in exp if "non_greedy" not in n]
    assert 0 < min(values) < max(values) <= 1 or min(values) == 0 < max(values)


def test_details_reader_recovers_every_record(scripted_run, expected):
    from scorekit.robustness.readers import read_paths
    from scorekit.robustness.readers.lighteval_details import LightevalDetailsReader

    out, _, _ = scripted_run
    exp, docs = expected
    read = read_paths([out], readers=[LightevalDetailsReader()])
    want: dict[tuple, list] = defaultdict(list)
    for doc in docs:
        want[(doc["benchmark"], doc["family"], doc["category"] if doc["benchmark"] != "mmlu_pro" else "")].extend(
            expected_records(doc))
    got = {(s.task.benchmark, s.task.family, s.task.subset or ""): s for s in read.samples}
    assert set(got) == set(want)
    for key, s in got.items():
        assert s.model == "scripted" and s.layout == "lighteval"
        assert sorted(s.records, key=repr) == sorted(want[key], key=repr), key
    # results JSON gives the per-variant accuracies under the upstream names
    agg = {(a.task.benchmark, a.task.family, a.task.subset or ""): a.metrics for a in read.aggregates}
    assert agg[("mmlu_pro", "prompt", "")].keys() == {f"{v}_macro_accuracy" for v in range(10)}
    assert set(agg[("agieval", "option_order", "aqua_rat")]) == {f"per_option_accuracy_{c}" for c in "ABCDE"}


# ------------------------------------------------------------------------------------ parity

LM_EVAL_TASKS = ["score_prompt_robustness_mmlu_pro", "score_option_order_robustness_mmlu_pro",
                 "score_non_greedy_robustness_mmlu_pro", "prompt_robustness_agieval_aqua_rat",
                 "option_order_robustness_agieval_aqua_rat", "non_greedy_robustness_agieval_aqua_rat",
                 "prompt_robustness_agieval_sat_en", "option_order_robustness_agieval_sat_en",
                 "prompt_robustness_math_algebra", "non_greedy_robustness_math_algebra"]


@pytest.fixture(scope="module")
def lm_eval_results(tmp_path_factory):
    import lm_eval
    from lm_eval.tasks import TaskManager

    from tests.robustness.fixture_tasks import build_fixture_tasks
    from tests.support.fake_lm import ScriptedLM

    tasks_root = build_fixture_tasks(tmp_path_factory.mktemp("lm_eval_score_suite"))
    tm = TaskManager(include_path=[str(tasks_root)], include_defaults=False)
    lm = ScriptedLM(generate=lambda context, gen_kwargs, doc: scripted_answer(doc))
    out = lm_eval.simple_evaluate(model=lm, tasks=LM_EVAL_TASKS, task_manager=tm, log_samples=True, bootstrap_iters=0)
    return out


def test_parity_lm_eval_and_lighteval_same_accuracy_and_consistency(scripted_run, lm_eval_results):
    from scorekit.robustness.readers import classify_task, read_paths
    from scorekit.robustness.readers.lighteval_details import LightevalDetailsReader

    out, _, _ = scripted_run
    read = read_paths([out], readers=[LightevalDetailsReader()])
    lighteval = {(s.task.benchmark, s.task.family, s.task.subset): s.records for s in read.samples}
    identical = {(s.task.benchmark, s.task.family, s.task.subset): s.identical for s in read.samples}
    compared = 0
    for task in LM_EVAL_TASKS:
        t = classify_task(task)
        lm = {k.removesuffix(",none"): v for k, v in lm_eval_results["results"][task].items()
              if k.endswith(",none") and not k.endswith("_stderr,none")}
        # the records lm-eval logged are the ones lighteval produced
        lm_records = records_from_items([s[s["metrics"][0]] for s in lm_eval_results["samples"][task]])
        le_records = lighteval[(t.benchmark, t.family, t.subset)]
        assert sorted(lm_records, key=repr) == sorted(le_records, key=repr), task
        le = summarize(le_records, macro=MACRO[t.benchmark], equal=equal_for(t.benchmark)).metrics()
        if t.family == "non_greedy":  # from the raw generations of lighteval's details
            le["identical_sample_rate"] = identical_share(identical[(t.benchmark, t.family, t.subset)].values())
        for name, value in lm.items():
            assert name in le, (task, name)
            if isinstance(value, float) and math.isnan(value):
                assert math.isnan(le[name]), (task, name)
            else:
                assert le[name] == pytest.approx(value, abs=1e-12), (task, name)
            compared += 1
        cr = next(k for k in lm if k.endswith("consistency_rate"))
        assert 0.0 < lm[cr] < 1.0, (task, cr, lm[cr])  # the script makes answers disagree sometimes
    assert compared > 60


def test_data_dir_variable_is_read_as_lm_eval_reads_it(tmp_path, monkeypatch):
    """`SCOREKIT_SCORE_DATA_DIR=" ~/score data "` names the same folder for both harnesses (lighteval's
    build_tasks once took it verbatim: spaces kept, ~ not expanded, so every local task was missing)."""
    from scorekit.lighteval.score_suite import build_tasks
    from scorekit.robustness.local_data import DATA_DIR_ENV, data_dir

    demo_rows = Path(__file__).resolve().parents[2] / "plugin" / "scorekit" / "demo" / "data" / "mmlu_pro.jsonl"
    home = tmp_path / "home"
    (home / "score data" / "mmlu_pro").mkdir(parents=True)
    (home / "score data" / "mmlu_pro" / "test.jsonl").write_text(demo_rows.read_text())
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv(DATA_DIR_ENV, " ~/score data ")
    assert data_dir() == (home / "score data").resolve()  # lm-eval's SCORE tasks
    mmlu = [t for t in build_tasks(generation_size=4) if t.name.split(":")[0].endswith("_mmlu_pro")]
    assert mmlu, "no local MMLU-Pro task registered"
    assert {t.hf_repo for t in mmlu} == {str((home / "score data" / "mmlu_pro").resolve())}
