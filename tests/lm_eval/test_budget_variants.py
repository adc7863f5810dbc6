"""``scorekit variants --budget B``: the design written into the task files, run by lm-eval (the
scripted models of tests/support), read back by ``scorekit robustness`` (issue 32, items 1 and 2).

A multiple-choice task (option order, 4 options, 40 questions) and a generation task (prompt
family, 5 templates, 30 questions). Runs under lm-eval 0.4.13 and, with
/work/venv-lm05/bin/python, 0.5.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from scorekit.cli import main
from scorekit.robustness.budget import Design, assign
from tests.lm_eval.test_task_variants import evaluate, samples_rows

N_MC, N_QA = 40, 30
TEMPLATES = ['Q: {{question}}\nA:', 'Question: {{question}}\nAnswer:', '{{question}}', 'Answer this. {{question}}',
             'Task: {{question}}\nResult:']


def _write_tasks(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    mc = [{"q": f"Which is option {i}?", "options": [f"o{i}a", f"o{i}b", f"o{i}c", f"o{i}d"], "gold": i % 4}
          for i in range(N_MC)]
    qa = [{"question": f"What is {i} + 1?", "answer": str(i + 1)} for i in range(N_QA)]
    (folder / "mc.jsonl").write_text("".join(json.dumps(r) + "\n" for r in mc))
    (folder / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in qa))
    (folder / "budget_mc.yaml").write_text(
        "task: budget_mc\noutput_type: multiple_choice\ndataset_path: json\ndataset_name: null\n"
        f"dataset_kwargs:\n  data_files:\n    test: {folder / 'mc.jsonl'}\ntest_split: test\n"
        "doc_to_text: \"Question: {{q}}\\nAnswer:\"\ndoc_to_choice: options\ndoc_to_target: gold\n"
        "metric_list:\n  - metric: acc\n    aggregation: mean\n    higher_is_better: true\nmetadata:\n  version: 1.0\n")
    (folder / "budget_qa.yaml").write_text(
        "task: budget_qa\noutput_type: generate_until\ndataset_path: json\ndataset_name: null\n"
        f"dataset_kwargs:\n  data_files:\n    test: {folder / 'qa.jsonl'}\ntest_split: test\n"
        "doc_to_text: \"Q: {{question}}\\nA:\"\ndoc_to_target: answer\n"
        "generation_kwargs:\n  until: [\"\\n\"]\n  do_sample: false\n"
        "metric_list:\n  - metric: exact_match\n    aggregation: mean\n    higher_is_better: true\nmetadata:\n  version: 1.0\n")
    (folder / "templates.yml").write_text(yaml.safe_dump(TEMPLATES))
    return folder


def qa_by_template(context: str, gen_kwargs: dict, doc: dict):
    """Right under the first two templates; under the others right on even questions only."""
    meta = doc["_robust"]
    if int(meta["template"]) < 2 or int(meta["question_id"]) % 2 == 0:
        return doc["answer"]
    return "no idea"


@pytest.fixture(scope="module")
def src(tmp_path_factory):
    return _write_tasks(tmp_path_factory.mktemp("budget_src"))


@pytest.fixture(scope="module")
def written(src, tmp_path_factory):
    out = tmp_path_factory.mktemp("budget_tasks")
    assert main(["variants", "budget_mc", "--family", "option_order", "--show-options", "--budget", "2", "--seed", "1",
                 "--include-path", str(src), "--output-dir", str(out)]) == 0
    assert main(["variants", "budget_qa", "--family", "prompt", "--templates", str(src / "templates.yml"),
                 "--budget", "2", "--seed", "3", "--include-path", str(src), "--output-dir", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def run(written, tmp_path_factory):
    out = tmp_path_factory.mktemp("budget_run")
    results = evaluate(written, ["robust_option_order_budget_mc", "robust_prompt_budget_qa"], out,
                       generate=qa_by_template)
    return out, results


def test_the_budget_is_written_into_the_task_files(written):
    mc = yaml.safe_load((written / "robust_option_order_budget_mc.yaml").read_text().replace("!function ", ""))
    assert mc["metadata"]["robust"]["budget"] == {"per_question": 2, "seed": 1}
    qa = yaml.safe_load((written / "robust_prompt_budget_qa.yaml").read_text().replace("!function ", ""))
    assert qa["metadata"]["robust"]["budget"] == {"per_question": 2, "seed": 3}


def test_the_command_prints_the_cost(src, tmp_path, capsys):
    assert main(["variants", "budget_qa", "--family", "prompt", "--templates", str(src / "templates.yml"),
                 "--budget", "2", "--include-path", str(src), "--output-dir", str(tmp_path / "t")]) == 0
    err = capsys.readouterr().err
    assert "asks 2 of 5 prompts per question: 2.0 evaluations' worth (40% of the full run's 5)" in err
    assert main(["variants", "budget_qa", "--family", "prompt", "--templates", str(src / "templates.yml"),
                 "--budget", "9", "--include-path", str(src), "--output-dir", str(tmp_path / "full")]) == 0
    assert "--budget 9 is not less than 5, a full run" in capsys.readouterr().err


@pytest.mark.parametrize("budget, said", [("0", "at least 2"), ("1", "at least 2"), ("-3", "at least 2"),
                                          ("2.5", "must be an integer"), ("two", "must be an integer")])
def test_bad_budgets_are_one_line_and_write_nothing(src, tmp_path, capsys, budget, said):
    out = tmp_path / "never"
    assert main(["variants", "budget_qa", "--family", "prompt", "--templates", str(src / "templates.yml"),
                 f"--budget={budget}", "--include-path", str(src), "--output-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err, err
    assert not out.exists()


def test_non_greedy_and_seed_without_budget_are_refused(src, tmp_path, capsys):
    assert main(["variants", "budget_qa", "--family", "non_greedy", "--budget", "2", "--include-path", str(src),
                 "--output-dir", str(tmp_path / "ng")]) == 2
    assert "--samples B" in capsys.readouterr().err
    assert main(["variants", "budget_qa", "--family", "prompt", "--templates", str(src / "templates.yml"), "--seed", "2",
                 "--include-path", str(src), "--output-dir", str(tmp_path / "s")]) == 2
    assert "--seed is for --formats or --budget" in capsys.readouterr().err
    assert not (tmp_path / "ng").exists() and not (tmp_path / "s").exists()


@pytest.mark.parametrize("task, n, v, seed", [("robust_option_order_budget_mc", N_MC, 4, 1),
                                              ("robust_prompt_budget_qa", N_QA, 5, 3)])
def test_lm_eval_asks_each_question_the_designs_variants(run, task, n, v, seed):
    out, _ = run
    rows = samples_rows(out, task)
    plan = assign([str(i) for i in range(n)], Design.make(v, 2, seed))
    asked: dict[str, set[int]] = {}
    for r in rows:
        meta = r["doc"]["_robust"]
        assert meta["design"] == {"variants": v, "per_question": 2, "seed": seed} and meta["design_questions"] == n
        asked.setdefault(meta["question_id"], set()).add(int(meta["variant"]))
    assert len(rows) == 2 * n
    assert {q: tuple(sorted(a)) for q, a in asked.items()} == plan


def test_lm_eval_reports_plain_means_of_what_was_asked(run):
    _, results = run
    qa = results["robust_prompt_budget_qa"]
    # templates 0 and 1 always right; 2-4 right on even questions
    assert qa["0_accuracy"] == 1.0 and qa["1_accuracy"] == 1.0
    assert 0 < qa["accuracy"] < 1


def test_scorekit_robustness_reads_the_budgeted_run(run):
    from scorekit.robustness.readers import read_paths
    from scorekit.robustness.report import build_report, report_to_json

    out, _ = run
    data = report_to_json(build_report(read_paths([str(out)])))
    fams = {f["family"]: f for m in data["models"] for b in m["benchmarks"] for f in b["families"]}
    oo, pr = fams["option_order"], fams["prompt"]
    assert oo["design"] == {"variants": 4, "per_question": 2, "seed": 1} and oo["estimated"] and oo["n_questions"] == N_MC
    assert pr["design"] == {"variants": 5, "per_question": 2, "seed": 3} and pr["estimated"] and pr["n_questions"] == N_QA
    for f in (oo, pr):
        assert set(f["accuracy_quantiles"]) == {"5", "25", "50", "75", "95"}
        assert f["consistency_rate"] is not None and f["consistency_rate_ci_low"] <= f["consistency_rate"]
    # the prompt family's truth: templates 0, 1 at 1.0, templates 2-4 at 0.5
    assert pr["variant_accuracy_ci_low"]["0"] <= 1.0 <= pr["variant_accuracy_ci_high"]["0"] + 1e-9
    assert pr["accuracy_ci_low"] <= 0.7 <= pr["accuracy_ci_high"]


def test_lm_eval_cli_then_scorekit_robustness(written, tmp_path):
    """``lm_eval --include_path DIR --tasks ... --log_samples`` (the real CLI, its dummy model),
    then ``scorekit robustness`` in a subprocess: the design comes back from the logs."""
    import subprocess
    import sys

    logs = tmp_path / "logs"
    run = subprocess.run([sys.executable, "-m", "lm_eval", "--model", "dummy", "--include_path", str(written),
                          "--tasks", "robust_option_order_budget_mc,robust_prompt_budget_qa", "--output_path", str(logs),
                          "--log_samples"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    report = subprocess.run([sys.executable, "-m", "scorekit", "robustness", str(logs), "-f", "json"],
                            capture_output=True, text=True, timeout=600)
    assert report.returncode == 0, report.stderr
    fams = {f["family"]: f for m in json.loads(report.stdout)["models"] for b in m["benchmarks"] for f in b["families"]}
    assert fams["option_order"]["design"] == {"variants": 4, "per_question": 2, "seed": 1}
    assert fams["prompt"]["design"] == {"variants": 5, "per_question": 2, "seed": 3}
    assert fams["option_order"]["n_records"] == 2 * N_MC and fams["prompt"]["n_records"] == 2 * N_QA
    assert all(f["estimated"] for f in fams.values())


# --harness lighteval takes --budget: tests/lighteval/test_task_variants_budget.py
@pytest.mark.parametrize("extra, said", [
    (["--family", "prompt", "--samples", "3"], "--samples > 1 is not supported"),
])
def test_other_budget_refusals_are_one_line(src, tmp_path, capsys, extra, said):
    templates = ["--templates", str(src / "templates.yml")] if "prompt" in extra else []
    out = tmp_path / "never"
    assert main(["variants", "budget_qa", *extra, *templates, "--budget", "2", "--include-path", str(src),
                 "--output-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err, err
    assert not out.exists()
