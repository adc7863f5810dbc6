"""lm-eval's filter fallbacks are no answer: the variant tasks of gsm8k (lm-eval's own config, two regex
filter pipelines) run by real lm-eval on three local rows with a scripted sampler.

When a regex finds nothing lm-eval writes ``[invalid]`` as the filtered answer. Every number
scorekit reports counts it as unparsed: accuracy, CR (two ``[invalid]`` do not agree),
``unparsed_rate``, and ``scorekit compare``; ``identical_sample_rate`` compares the raw
generations, so five different generations all filtered to ``[invalid]`` are not identical
samples. Expected values are computed here from the samples log's ``resps`` and
``filtered_resps``, independently of scorekit.
"""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import pytest

from scorekit.cli import main
from tests.robustness.report_fixtures.build_logs import run_lm_eval
from tests.lm_eval.task_variants_fixtures import LM_EVAL_TASKS

TASK = "robust_non_greedy_gsm_local"
ROWS = [{"question": "What is 2+3?", "answer": "2+3=5\n#### 5"}, {"question": "What is 10*7?", "answer": "10*7=70\n#### 70"},
        {"question": "What is 9-4?", "answer": "9-4=5\n#### 5"}]


def sampler(doc: dict) -> list[str]:
    """Five samples: the same right text five times (10*7: five different texts without a
    number, which both regexes turn into ``[invalid]``; 9-4: right twice, wrong once, twice no number)."""
    if "2+3" in doc["question"]:
        return ["So it is 5.\n#### 5"] * 5
    if "10*7" in doc["question"]:
        return ["no idea", "I cannot tell", "hmm", "ask someone else", "pass"]
    return ["#### 5", "The sum: #### 5", "#### 6", "no answer", "not sure"]


def variants_gsm(tmp: Path) -> Path:
    data = tmp / "gsm.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    src = tmp / "src"
    src.mkdir()
    (src / "gsm_local.yaml").write_text(
        f"include: {LM_EVAL_TASKS / 'gsm8k' / 'gsm8k.yaml'}\ntask: gsm_local\ntag: []\ndataset_path: json\n"
        f"dataset_name: null\ndataset_kwargs:\n  data_files:\n    test: {data}\n    train: {data}\n")
    assert main(["variants", "gsm_local", "--family", "non_greedy", "--include-path", str(src), "--output-dir", str(tmp / "tasks")]) == 0
    return tmp / "tasks"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(logs folder, warnings lm-eval raised while aggregating)."""
    tmp = tmp_path_factory.mktemp("gsm_fallback")
    tasks = variants_gsm(tmp)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_lm_eval(tmp / "logs", [TASK], tasks, sampler, "org/gsm-sampler", num_fewshot=0)
    return tmp / "logs", [str(w.message) for w in caught]


def oracle(logs: Path) -> dict[str, dict[str, float]]:
    """Per filter pipeline, from the samples log alone: accuracy, pooled pair CR (an unparsed
    answer agrees with nothing), unparsed rate, share of questions whose raw samples are one text."""
    (path,) = logs.rglob(f"samples_{TASK}_*.jsonl")
    by_filter: dict[str, list[dict]] = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        by_filter.setdefault(row["filter"], []).append(row)
    out = {}
    for name, rows in by_filter.items():
        correct = unparsed = n = agree = pairs = identical = 0
        for row in rows:
            gold = row["doc"]["answer"].split("#### ")[1]
            answers = [None if a.strip() in ("", "[invalid]") else a.strip() for a in row["filtered_resps"][0]]
            raw = [r for resp in row["resps"] for r in resp]
            assert len(answers) == len(raw) == 5
            n += len(answers)
            unparsed += sum(a is None for a in answers)
            correct += sum(a == gold for a in answers)
            for a, b in itertools.combinations(answers, 2):
                pairs += 1
                agree += a is not None and a == b
            identical += len(set(raw)) == 1
        out[name] = {"accuracy": correct / n, "consistency_rate": agree / pairs, "unparsed_rate": unparsed / n,
                     "identical_sample_rate": identical / len(rows)}
    return out


def scored_filter(logs: Path) -> str:
    (path,) = logs.rglob(f"samples_{TASK}_*.jsonl")
    return json.loads(path.read_text().splitlines()[0])["filter"]


def report(paths: list[Path], capsys) -> dict:
    capsys.readouterr()
    assert main(["robustness", *map(str, paths), "--format", "json"]) == 0
    (model,) = json.loads(capsys.readouterr().out)["models"]
    (bench,) = model["benchmarks"]
    (family,) = bench["families"]
    return family


def test_the_oracle_sees_fallbacks_and_different_raw_samples(run):
    want = oracle(run[0])
    assert sorted(want) == ["flexible-extract", "strict-match"]
    for name in want:  # the fixture is what the tests below need: fallbacks, and raw samples that differ
        assert want[name]["unparsed_rate"] >= 7 / 15 and want[name]["identical_sample_rate"] == pytest.approx(1 / 3)


def test_report_from_the_samples_log(run, capsys):
    logs, _ = run
    want = oracle(logs)[scored_filter(logs)]
    family = report([logs], capsys)
    assert family["source"] == "samples" and family["layout"] == "variants"
    for key, value in want.items():
        assert family[key] == pytest.approx(value, abs=1e-12), key
    assert any("fallback of the task's filters ('[invalid]'" in n and "counted as unparsed" in n for n in family["notes"])
    assert not any(n.startswith("identical samples") for n in family["notes"])  # 1 of 3 questions: below the warning


def test_the_results_file_numbers_of_every_filter(run):
    """lm-eval's own aggregation (scorekit's task) gives the same numbers for both pipelines, and
    does not warn about identical samples: the raw generations of two questions differ."""
    logs, caught = run
    (path,) = logs.rglob("results_*.json")
    got = json.loads(path.read_text())["results"][TASK]
    for name, want in oracle(logs).items():
        assert got[f"non_greedy_accuracy,{name}"] == pytest.approx(want["accuracy"], abs=1e-12)
        assert got[f"non_greedy_consistency_rate,{name}"] == pytest.approx(want["consistency_rate"], abs=1e-12)
        assert got[f"unparsed_rate,{name}"] == pytest.approx(want["unparsed_rate"], abs=1e-12)
        assert got[f"identical_sample_rate,{name}"] == pytest.approx(want["identical_sample_rate"], abs=1e-12)
    assert not [w for w in caught if "identical samples" in w]


def test_report_from_the_results_file_only(run, capsys):
    logs, _ = run
    want = oracle(logs)[scored_filter(logs)]
    family = report(list(logs.rglob("results_*.json")), capsys)
    assert family["source"] != "samples"
    for key in ("unparsed_rate", "identical_sample_rate", "consistency_rate"):
        assert family[key] == pytest.approx(want[key], abs=1e-12), key


def test_compare_counts_fallbacks_as_unparsed(run, capsys):
    logs, _ = run
    want = oracle(logs)[scored_filter(logs)]
    assert main(["compare", str(logs), "--values", "--format", "json"]) == 0
    values = {v["metric"]: v["value"] for v in json.loads(capsys.readouterr().out)["values"] if v["task"] == TASK}
    assert values["non_greedy_accuracy"] == pytest.approx(want["accuracy"], abs=1e-12)
    assert values["non_greedy_consistency_rate"] == pytest.approx(want["consistency_rate"], abs=1e-12)


def test_logs_that_kept_the_fallback_as_the_answer(tmp_path, monkeypatch, capsys):
    """A log written while scorekit's task still logged ``[invalid]`` as the answer (the text
    kept as it was) is read as if nothing had been extracted."""
    from scorekit.lm_eval import task_variants

    monkeypatch.setattr(task_variants, "text_answer", lambda out, fallbacks=(): " ".join(str(out).split()) or None)
    tasks = variants_gsm(tmp_path)
    run_lm_eval(tmp_path / "logs", [TASK], tasks, sampler, "org/gsm-sampler", num_fewshot=0)
    (path,) = (tmp_path / "logs").rglob(f"samples_{TASK}_*.jsonl")
    logged = [r for line in path.read_text().splitlines() for r in json.loads(line)["unparsed_rate"]]
    assert any(r[5] == "[invalid]" for r in logged)  # the older shape: the fallback as the answer
    want = oracle(tmp_path / "logs")[scored_filter(tmp_path / "logs")]
    family = report([tmp_path / "logs"], capsys)
    for key, value in want.items():
        assert family[key] == pytest.approx(value, abs=1e-12), key
