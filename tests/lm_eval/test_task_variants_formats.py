"""``scorekit variants --family prompt --formats N``: format variations of a task's own prompt,
written, run through lm-eval with a scripted model and read by ``scorekit robustness``; refusals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from scorekit.cli import main
from tests.lm_eval.task_variants_fixtures import MMLU_ROWS, QA_ROWS, write_tasks

LETTERS = "ABCD"


@pytest.fixture(scope="module")
def src(tmp_path_factory):
    folder = write_tasks(tmp_path_factory.mktemp("formats_src"))
    data = folder / "data" / "qa.jsonl"
    common = (f"output_type: generate_until\ndataset_path: json\ndataset_name: null\ndataset_kwargs:\n  data_files:\n"
              f"    test: {data}\ntest_split: test\ndoc_to_target: answer\n"
              "metric_list:\n  - metric: exact_match\nmetadata:\n  version: 1.0\n")
    (folder / "fmt_utils.py").write_text("def prompt(doc):\n    return 'Question: ' + doc['question'] + '\\nAnswer:'\n")
    (folder / "fmt_function.yaml").write_text("task: fmt_function\ndoc_to_text: !function fmt_utils.prompt\n" + common)
    (folder / "fmt_field.yaml").write_text("task: fmt_field\ndoc_to_text: question\n" + common)
    (folder / "fmt_bare.yaml").write_text("task: fmt_bare\ndoc_to_text: \"{{question}}\"\n" + common)
    return folder


def variants(*argv: str) -> int:
    return main(["variants", *argv])


def templates_of(path: Path) -> list[str]:
    return yaml.safe_load(path.read_text().replace("!function ", ""))["metadata"]["robust"]["templates"]


@pytest.fixture(scope="module")
def written(src, tmp_path_factory):
    out = tmp_path_factory.mktemp("formats_out")
    assert variants("mmlu_local", "local_qa", "--family", "prompt", "--formats", "5", "--seed", "3",
                    "--include-path", str(src), "--output-dir", str(out)) == 0
    return out


def knows_plain_cue_mc(context: str, continuation: str, doc: dict) -> float:
    """Right under a prompt ending "\\nAnswer:" (MMLU's own); under any other format picks A."""
    label = continuation.strip()
    if context.endswith("\nAnswer:"):
        return 0.0 if label == LETTERS[doc["answer"]] else -5.0
    return -float(LETTERS.index(label))


def knows_plain_cue_qa(context: str, gen_kwargs: dict, doc: dict) -> str:
    return doc["answer"] if context.endswith("\nA:") else "no idea"


def evaluate(folder: Path, tasks: list[str], out_dir: Path) -> dict:
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    tracker = EvaluationTracker(output_path=str(out_dir))
    lm = ScriptedLM(loglikelihood=knows_plain_cue_mc, generate=knows_plain_cue_qa)
    out = lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=TaskManager(include_path=[str(folder)], include_defaults=False),
                                  log_samples=True, evaluation_tracker=tracker, bootstrap_iters=0)
    tracker.save_results_aggregated(results=out, samples=out["samples"])
    for task in out["samples"]:
        tracker.save_results_samples(task_name=task, samples=out["samples"][task])
    return {t: {k.removesuffix(",none"): v for k, v in m.items()} for t, m in out["results"].items()}


def logged_prompts(out_dir: Path, task: str) -> list[tuple[dict, str]]:
    (path,) = out_dir.rglob(f"samples_{task}_*.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [(row["doc"], row["arguments"]["gen_args_0"]["arg_0"] if isinstance(row["arguments"], dict) else row["arguments"][0][0])
            for row in rows]


@pytest.fixture(scope="module")
def run(written, tmp_path_factory):
    logs = tmp_path_factory.mktemp("formats_logs")
    return evaluate(written, ["robust_prompt_mmlu_local", "robust_prompt_local_qa"], logs), logs


def test_written_templates(written, src):
    mmlu = templates_of(written / "robust_prompt_mmlu_local.yaml")
    qa = templates_of(written / "robust_prompt_local_qa.yaml")
    assert len(mmlu) == len(set(mmlu)) == 5 and len(qa) == len(set(qa)) == 5
    assert mmlu[0] == ("{{question.strip()}}\nA. {{choices[0]}}\nB. {{choices[1]}}\nC. {{choices[2]}}\nD. {{choices[3]}}"
                       "\nAnswer:")  # lm-eval's own MMLU prompt, as written
    assert qa[0] == "Q: {{question}}\nA:"
    for t in mmlu:  # the fields in their order, the letters kept (the task is scored on them)
        assert re.findall(r"\{\{.*?\}\}", t) == re.findall(r"\{\{.*?\}\}", mmlu[0])
        assert all(re.search(rf"{x}\W? \{{\{{choices\[{i}\]\}}\}}", t) for i, x in enumerate(LETTERS)), t
    text = (written / "robust_prompt_mmlu_local.yaml").read_text()
    assert "# templates: --formats 5 --seed 3, format variations" in text.splitlines()[1]
    # the same seed writes the same files; another seed other formats
    again, other = written.parent / "again", written.parent / "other"
    assert variants("mmlu_local", "--family", "prompt", "--formats", "5", "--seed", "3", "--include-path", str(src),
                    "--output-dir", str(again)) == 0
    assert (again / "robust_prompt_mmlu_local.yaml").read_text() == text
    assert variants("mmlu_local", "--family", "prompt", "--formats", "5", "--seed", "4", "--include-path", str(src),
                    "--output-dir", str(other)) == 0
    assert templates_of(other / "robust_prompt_mmlu_local.yaml")[1:] != mmlu[1:]


def test_lm_eval_asks_every_format_with_the_wording_kept(written, run):
    _, logs = run
    mmlu = templates_of(written / "robust_prompt_mmlu_local.yaml")
    seen: dict[int, set[str]] = {}
    for doc, prompt in logged_prompts(logs, "robust_prompt_mmlu_local"):
        t = doc["_robust"]["template"]
        seen.setdefault(t, set()).add(prompt)
        assert doc["question"].strip() in prompt
        for i, choice in enumerate(doc["choices"]):  # each option after its own letter
            assert re.search(rf"(?<![A-Za-z]){LETTERS[i]}\W? {re.escape(choice)}", prompt), (t, prompt)
        if t == 0:
            assert prompt.endswith("\n" + "\n".join(f"{x}. {c}" for x, c in zip(LETTERS, doc["choices"])) + "\nAnswer:")
    assert sorted(seen) == list(range(5)) and all(len(p) == len(MMLU_ROWS) for p in seen.values())
    assert len({frozenset(p) for p in seen.values()}) == 5 == len(mmlu)


def expected_accuracy(templates: list[str], cue: str, right_otherwise: float) -> dict[str, float]:
    """The scripted models' accuracy per format, from the written templates alone."""
    return {str(t): 1.0 if template.endswith(cue) else right_otherwise for t, template in enumerate(templates)}


def test_robustness_reads_five_prompt_variants(written, run, capsys):
    res, logs = run
    mmlu = expected_accuracy(templates_of(written / "robust_prompt_mmlu_local.yaml"), "\nAnswer:",
                             sum(r["answer"] == 0 for r in MMLU_ROWS) / len(MMLU_ROWS))
    qa = expected_accuracy(templates_of(written / "robust_prompt_local_qa.yaml"), "\nA:", 0.0)
    assert len(set(mmlu.values())) == 2 and len(set(qa.values())) == 2  # the formats do make a difference here
    for task, expect in (("robust_prompt_mmlu_local", mmlu), ("robust_prompt_local_qa", qa)):
        assert {k.split("_")[0]: v for k, v in res[task].items() if k.endswith("_accuracy") and k[0].isdigit()} == expect
    assert main(["robustness", str(logs), "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    fams = {(b["benchmark"], f["family"]): f for m in data["models"] for b in m["benchmarks"] for f in b["families"]}
    assert set(fams) == {("robust_mmlu_local", "prompt"), ("robust_local_qa", "prompt")}
    for bench, expect in (("robust_mmlu_local", mmlu), ("robust_local_qa", qa)):
        fam = fams[(bench, "prompt")]
        assert fam["variant_accuracy"] == expect
        assert fam["accuracy_range"] == max(expect.values()) - min(expect.values())
    assert len(QA_ROWS) == 3  # qa: right on every question or on none, per format


@pytest.mark.parametrize("argv,message", [
    (["mmlu_local", "--family", "option_order", "--formats", "5"], "--formats is for --family prompt"),
    (["mmlu_local", "--family", "prompt", "--formats", "1"], "--formats must be >= 2"),
    (["mmlu_local", "--family", "prompt", "--seed", "1"], "--seed is for --formats"),
    (["mmlu_local", "--family", "prompt", "--formats", "5", "--harness", "lighteval"],
     "--formats is not available with --harness lighteval"),
    (["mmlu_local", "--family", "prompt", "--formats", "100000"],
     "task mmlu_local: --formats 100000: the format grammar of its prompt gives at most 504 formats (the prompt as "
     "written included)"),
    (["fmt_function", "--family", "prompt", "--formats", "5"],
     "task fmt_function: its prompt is Python (doc_to_text: !function fmt_utils.prompt), which scorekit cannot write"),
    (["fmt_field", "--family", "prompt", "--formats", "5"], "task fmt_field: its prompt is the document field 'question' as it is"),
    (["fmt_bare", "--family", "prompt", "--formats", "5"],
     "task fmt_bare: its prompt '{{question}}' has no descriptors (\"Question:\"), answer cue, option list or separate lines"),
    (["local_qa", "fmt_bare", "--family", "prompt", "--formats", "5"], "task fmt_bare: its prompt '{{question}}' has no"),
])
def test_refusals(src, tmp_path, capsys, argv, message):
    out = tmp_path / "out"
    assert variants(*argv, "--include-path", str(src), "--output-dir", str(out)) == 2
    err = capsys.readouterr().err
    assert err.startswith("scorekit: error: ") and message in err and err.count("\n") == 1, err
    assert not out.exists()  # nothing written, not even the tasks that could be


def test_templates_file_and_formats_together(src, tmp_path, capsys):
    tpl = tmp_path / "t.yml"
    tpl.write_text('- "Q: {{question}}"\n- "{{question}}"\n')
    assert variants("local_qa", "--family", "prompt", "--templates", str(tpl), "--formats", "3", "--include-path", str(src),
                    "--output-dir", str(tmp_path / "out")) == 2
    assert "--formats and --templates both give the prompt family its templates" in capsys.readouterr().err
