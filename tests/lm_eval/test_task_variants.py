"""``scorekit variants``: YAMLs, lm-eval runs with a scripted model, numbers checked against an
independent computation from the samples logs, the robustness report, and refusals."""

from __future__ import annotations

import itertools
import json
import math
import statistics
import string
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from scorekit.cli import main
from tests.lm_eval.task_variants_fixtures import ARC_ROWS, HELLASWAG_ROWS, LM_EVAL_TASKS, MC_ROWS, MMLU_ROWS, QA_ROWS, write_tasks

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = REPO / "tasks" / "robust_templates"
LETTERS = string.ascii_uppercase
MC_TASKS = ("local_mc", "arc_easy_local", "hellaswag_local", "mmlu_local")


@pytest.fixture(scope="module")
def src(tmp_path_factory):
    return write_tasks(tmp_path_factory.mktemp("robust_src"))


def variants(*argv: str) -> int:
    return main(["variants", *argv])


@pytest.fixture(scope="module")
def qa_templates(tmp_path_factory):
    path = tmp_path_factory.mktemp("tpl") / "qa.yml"
    path.write_text('- "Q: {{question}}\\nA:"\n- "Question: {{question}}\\nAnswer:"\n- "{{question}}"\n')
    return path


@pytest.fixture(scope="module")
def written(src, qa_templates, tmp_path_factory):
    out = tmp_path_factory.mktemp("robust_out")
    assert variants(*MC_TASKS, "--family", "option_order", "--show-options", "--include-path", str(src), "--output-dir", str(out)) == 0
    assert variants("arc_easy_local", "--family", "prompt", "--templates", str(TEMPLATES / "question_choices.yml"), "--include-path", str(src), "--output-dir", str(out / "mc_prompt")) == 0
    assert variants("local_qa", "--family", "prompt", "--family", "non_greedy", "--templates", str(qa_templates),
                     "--samples", "3", "--include-path", str(src), "--output-dir", str(out)) == 0
    swap = out / "swap"
    assert variants("local_mc", "--family", "option_order", "--permutations", "swap", "--show-options",
                     "--include-path", str(src), "--output-dir", str(swap)) == 0
    return out


# --- scripted models -----------------------------------------------------------------------------

def mc_gold_text(doc: dict) -> str:
    """Gold content from the ORIGINAL row fields of each task shape (not from scorekit's fields)."""
    if "options" in doc:
        return doc["options"][doc["gold"]]
    if "subject" in doc:
        return doc["choices"][doc["answer"]]
    if "answerKey" in doc:
        return doc["choices"]["text"][doc["choices"]["label"].index(doc["answerKey"])]
    return doc["choices"][int(doc["label"])]


def shown_lines(context: str) -> dict[str, str]:
    """The prompt's "X. option" lines (the last one per letter), as the model reads them."""
    return {line[0]: line[3:].strip() for line in context.splitlines() if line[:1].isupper() and line[1:3] == ". "}


def biased_mc(context: str, continuation: str, doc: dict):
    """Knows the answer to even question ids; on odd ones picks the first choice shown."""
    meta = doc["_robust"]
    label = continuation.strip()
    if len(label) == 1 and label in shown_lines(context):  # a letter; the prompt lists "A. option" lines
        if int(meta["question_id"]) % 2 == 0:
            return 0.0 if shown_lines(context)[label] == mc_gold_text(doc).strip() else -5.0
        return -float(LETTERS.index(label))
    if int(meta["question_id"]) % 2 == 0:
        return 0.0 if continuation.strip() == mc_gold_text(doc).strip() else -5.0
    shown = doc["options"] if "options" in doc else doc["choices"]["text"] if "answerKey" in doc else doc["choices"]
    displayed = [str(shown[i]).strip() for i in (meta["order"] or range(len(shown)))]
    return -float(displayed.index(continuation.strip()))


def qa_answers(context: str, gen_kwargs: dict, doc: dict):
    """Always right under the "Q:" template (the same text three times for "5", else once in
    capitals); the other templates: right, wrong, right."""
    if context.startswith("Q: "):
        return [doc["answer"]] * 3 if doc["answer"] == "5" else [doc["answer"]] * 2 + [doc["answer"].upper()]
    return [doc["answer"].upper(), "no idea", doc["answer"] + "."]


def evaluate(written: Path, tasks: list[str], out_dir: Path, generate=None, **kwargs):
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    tracker = EvaluationTracker(output_path=str(out_dir))
    lm = ScriptedLM(loglikelihood=biased_mc, generate=generate or qa_answers)
    out = lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=TaskManager(include_path=[str(written)], include_defaults=False),
                                  log_samples=True, evaluation_tracker=tracker, bootstrap_iters=0, **kwargs)
    tracker.save_results_aggregated(results=out, samples=out["samples"])
    for task in out["samples"]:
        tracker.save_results_samples(task_name=task, samples=out["samples"][task])
    return {t: {k.removesuffix(",none"): v for k, v in m.items()} for t, m in out["results"].items()}


def samples_rows(out_dir: Path, task: str) -> list[dict]:
    (path,) = out_dir.rglob(f"samples_{task}_*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# --- the independent oracle ------------------------------------------------------------------------

def logged_ll(resp: list):
    """The log-likelihood of one logged choice: ``[ll, is_greedy]`` (lm-eval 0.4), ``[[ll, is_greedy]]`` (0.5)."""
    return resp[0][0] if isinstance(resp[0], list) else resp[0]


def pair_cr(groups: list[list]) -> float:
    agree = total = 0
    for answers in groups:
        for a, b in itertools.combinations(answers, 2):
            total += 1
            agree += a is not None and a == b
    return agree / total


def oracle_option_order(rows: list[dict]) -> dict:
    """From the logged requests: the chosen continuation (argmax of the logged log-likelihoods),
    right when its text is the gold text of the original row; grouped by the gold's position."""
    by_q: dict[str, list] = defaultdict(list)
    by_pos: dict[int, list[bool]] = defaultdict(list)
    for row in rows:
        doc = row["doc"]
        args = list(row["arguments"].values())
        shown = [a["arg_1"].strip() for a in args]
        if all(len(c) == 1 and c in LETTERS for c in shown):  # labels: the options are the prompt's "X. text" lines
            lines = shown_lines(args[0]["arg_0"])
            shown = [lines[c] for c in shown]
        lls = [float(logged_ll(r)) for r in row["filtered_resps"]]
        chosen = shown[max(range(len(lls)), key=lambda i: (lls[i], -i))]  # first of the best
        gold = mc_gold_text(doc).strip()
        position = doc["_robust"]["variant"]
        assert shown[position] == gold  # the gold really is shown there
        correct = chosen == gold
        by_q[doc["_robust"]["question_id"]].append((chosen, correct, shown))
        by_pos[position].append(correct)
    acc = {LETTERS[p]: sum(v) / len(v) for p, v in sorted(by_pos.items())}
    return {
        "accuracy": sum(c for v in by_q.values() for _, c, _ in v) / sum(len(v) for v in by_q.values()),
        **{f"per_option_accuracy_{k}": v for k, v in acc.items()},
        "accuracy_range": max(acc.values()) - min(acc.values()),
        "accuracy_std": statistics.pstdev(acc.values()),
        "options_consistency_rate": pair_cr([[chosen for chosen, _, _ in v] for v in by_q.values()]),
        "circular_accuracy": sum(all(c for _, c, _ in v) for v in by_q.values()) / len(by_q),
        "_arrangements": {q: [tuple(s) for _, _, s in v] for q, v in by_q.items()},
    }


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


# --- tests -------------------------------------------------------------------------------------

def test_written_files(written):
    names = sorted(p.name for p in written.glob("*.yaml"))
    assert names == sorted([f"robust_option_order_{t}.yaml" for t in MC_TASKS] + [f"robust_{t}.yaml" for t in MC_TASKS]
                           + ["robust_prompt_local_qa.yaml", "robust_non_greedy_local_qa.yaml", "robust_local_qa.yaml"])
    import yaml

    group = yaml.safe_load((written / "robust_local_qa.yaml").read_text())
    assert group["group"] == "robust_local_qa" and group["task"] == ["robust_prompt_local_qa", "robust_non_greedy_local_qa"]
    task = yaml.safe_load((written / "robust_prompt_local_qa.yaml").read_text().replace("!function ", ""))
    assert task["metadata"]["robust"]["templates"][0] == "Q: {{question}}\nA:"
    assert task["metadata"]["robust"]["samples"] == 3


@pytest.fixture(scope="module")
def mc_run(written, tmp_path_factory):
    out = tmp_path_factory.mktemp("mc_logs")
    res = evaluate(written, [f"robust_option_order_{t}" for t in MC_TASKS], out)
    return res, out


@pytest.mark.parametrize("task,rows", [("local_mc", MC_ROWS), ("arc_easy_local", ARC_ROWS), ("hellaswag_local", HELLASWAG_ROWS),
                                       ("mmlu_local", MMLU_ROWS)])
def test_option_order_matches_the_oracle(mc_run, task, rows):
    res, out = mc_run
    name = f"robust_option_order_{task}"
    logged = samples_rows(out, name)
    expect = oracle_option_order(logged)
    got = res[name]
    for key, value in expect.items():
        if not key.startswith("_"):
            assert close(got[key], value), (key, got[key], value)
    # cyclic: every rotation of each question's choices, once
    assert len(logged) == sum(len(r.get("options") or r.get("endings") or r["choices"].get("text") if isinstance(r.get("choices"), dict)
                                  else r.get("options") or r.get("endings") or r["choices"]) for r in rows)
    for arrangements in expect["_arrangements"].values():
        first = arrangements[0]
        rotations = {tuple(first[i:] + first[:i]) for i in range(len(first))}
        assert set(arrangements) == rotations and len(arrangements) == len(first)


def test_option_order_exposes_position_bias(mc_run):
    res, _ = mc_run
    got = res["robust_option_order_local_mc"]
    # questions 0 and 2 known; 1 and 3 answered "first shown": right only with the gold at A
    assert got["per_option_accuracy_A"] == 1.0 and got["per_option_accuracy_B"] == 0.5
    assert got["circular_accuracy"] == 0.5
    # question 2 has "Paris" twice: both count as the gold content


def test_options_inside_the_prompt_are_reordered(mc_run):
    """MMLU's shape: the labels stay A-D, the options listed in the prompt move."""
    res, out = mc_run
    rows = samples_rows(out, "robust_option_order_mmlu_local")
    prompts = {row["arguments"]["gen_args_0"]["arg_0"].split("\n\n")[-1] for row in rows
               if row["doc"]["_robust"]["question_id"] == "0"}  # after the task's description
    assert "Find the order of the group Z_6.\nA. 2\nB. 3\nC. 6\nD. 12\nAnswer:" in prompts
    assert "Find the order of the group Z_6.\nA. 6\nB. 12\nC. 2\nD. 3\nAnswer:" in prompts  # rotated by 2
    got = res["robust_option_order_mmlu_local"]
    assert got["per_option_accuracy_A"] == 1.0 and got["circular_accuracy"] == 2 / 3


def test_swap_arrangements(written, tmp_path):
    res = evaluate(written / "swap", ["robust_option_order_local_mc"], tmp_path)
    logged = samples_rows(tmp_path, "robust_option_order_local_mc")
    expect = oracle_option_order(logged)
    for key, value in expect.items():
        if not key.startswith("_"):
            assert close(res["robust_option_order_local_mc"][key], value), key
    for q, arrangements in expect["_arrangements"].items():
        original = [o.strip() for o in MC_ROWS[int(q)]["options"]]
        gold = MC_ROWS[int(q)]["gold"]
        for p, shown in enumerate(arrangements):  # the gold swapped into position p, nothing else moved
            swapped = list(original)
            swapped[p], swapped[gold] = swapped[gold], swapped[p]
            assert list(shown) == swapped


@pytest.fixture(scope="module")
def qa_run(written, tmp_path_factory):
    out = tmp_path_factory.mktemp("qa_logs")
    res = evaluate(written, ["robust_local_qa"], out)
    return res, out


def _em(output: str, gold: str) -> bool:
    strip = str.maketrans("", "", string.punctuation)
    return output.lower().translate(strip).strip() == gold.lower().translate(strip).strip()


def test_prompt_with_samples_matches_the_oracle(qa_run):
    res, out = qa_run
    rows = samples_rows(out, "robust_prompt_local_qa")
    assert len(rows) == len(QA_ROWS) * 3  # one document per template, three samples each
    y: dict[str, dict[int, list[bool]]] = defaultdict(dict)
    texts: dict[str, list[str]] = defaultdict(list)
    identical = []
    for row in rows:
        doc, outputs = row["doc"], row["filtered_resps"][0]
        assert len(outputs) == 3
        y[doc["question"]][doc["_robust"]["template"]] = [_em(o, doc["answer"]) for o in outputs]
        texts[doc["question"]].extend(" ".join(o.split()) for o in outputs)
        identical.append(len(set(outputs)) == 1)
    per_template = {t: statistics.mean(c for q in y for c in y[q][t]) for t in range(3)}
    between = sum(statistics.pvariance([statistics.mean(y[q][t]) for t in range(3)]) for q in y)
    total = sum(statistics.pvariance([c for t in range(3) for c in y[q][t]]) for q in y)
    got = res["robust_prompt_local_qa"]
    for t, acc in per_template.items():
        assert close(got[f"{t}_accuracy"], acc)
    assert close(got["prompt_sensitivity"], between / total)
    assert close(got["consistency_rate"], pair_cr(list(texts.values())))
    assert close(got["identical_sample_rate"], sum(identical) / len(identical))
    assert got["accuracy_range"] == 1 - 2 / 3  # template 0 always right, the others 2 of 3


def test_non_greedy_matches_the_oracle(qa_run):
    res, out = qa_run
    rows = samples_rows(out, "robust_non_greedy_local_qa")
    groups = [[" ".join(o.split()) for o in row["filtered_resps"][0]] for row in rows]
    correct = [_em(o, row["doc"]["answer"]) for row in rows for o in row["filtered_resps"][0]]
    got = res["robust_non_greedy_local_qa"]
    assert close(got["non_greedy_accuracy"], sum(correct) / len(correct))
    assert close(got["non_greedy_consistency_rate"], pair_cr(groups))
    flags = [len(set(row["resps"][0])) == 1 for row in rows]
    assert got["identical_sample_rate"] == sum(flags) / len(flags) == 1 / 3


def test_prompt_on_multiple_choice_with_the_shipped_templates(written, tmp_path):
    res = evaluate(written / "mc_prompt", ["robust_prompt_arc_easy_local"], tmp_path)
    got = res["robust_prompt_arc_easy_local"]
    n_templates = len([line for line in (TEMPLATES / "question_choices.yml").read_text().splitlines() if line.startswith("- ")])
    assert [k for k in got if k.endswith("_accuracy") and k[0].isdigit()] == [f"{t}_accuracy" for t in range(n_templates)]
    rows = samples_rows(tmp_path, "robust_prompt_arc_easy_local")
    # each template rendered over the document's own fields
    assert {row["arguments"]["gen_args_0"]["arg_0"] if isinstance(row["arguments"], dict) else row["arguments"][0][0]
            for row in rows if row["doc"]["_robust"]["question_id"] == "0"} >= {
        "Question: Which planet is closest to the Sun?\nAnswer:", "Q: Which planet is closest to the Sun?\nA:"}
    # choices in the original order: the first one is right on question 1, wrong on question 3
    assert got["accuracy"] == 0.75 and got["consistency_rate"] == 1.0 and got["accuracy_range"] == 0.0


def test_report_reads_them_beside_score(mc_run, qa_run, capsys):
    _, mc_out = mc_run
    res, qa_out = qa_run
    assert main(["robustness", str(mc_out), str(qa_out), "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    fams = {(b["benchmark"], f["family"]): f for m in data["models"] for b in m["benchmarks"] for f in b["families"]}
    assert set(fams) == {("robust_local_mc", "option_order"), ("robust_arc_easy_local", "option_order"),
                         ("robust_hellaswag_local", "option_order"), ("robust_mmlu_local", "option_order"), ("robust_local_qa", "prompt"),
                         ("robust_local_qa", "non_greedy")}
    assert fams[("robust_local_mc", "option_order")]["circular_accuracy"] == 0.5
    prompt = fams[("robust_local_qa", "prompt")]
    assert close(prompt["prompt_sensitivity"], res["robust_prompt_local_qa"]["prompt_sensitivity"])
    assert close(prompt["consistency_rate"], res["robust_prompt_local_qa"]["consistency_rate"])
    assert prompt["variant_accuracy"] == {str(t): res["robust_prompt_local_qa"][f"{t}_accuracy"] for t in range(3)}
    for fmt, needle in (("table", "Circular accuracy"), ("markdown", "Prompt sensitivity"), ("html", "Variant tasks"),
                        ("csv", "circular_accuracy")):
        assert main(["robustness", str(mc_out), str(qa_out), "-f", fmt]) == 0
        text = capsys.readouterr().out
        assert needle in text and "robust_hellaswag_local" in text


def test_report_from_results_files_only(mc_run, tmp_path, capsys):
    _, mc_out = mc_run
    (results,) = mc_out.rglob("results_*.json")
    assert main(["robustness", str(results), "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    fam = next(f for m in data["models"] for b in m["benchmarks"] if b["benchmark"] == "robust_local_mc" for f in b["families"])
    assert fam["source"] == "results" and fam["circular_accuracy"] == 0.5 and fam["variant_accuracy"]["A"] == 1.0


def test_letter_generating_builtin_task_is_written_offline(tmp_path, capsys):
    """kmmlu's direct tasks generate the letter of an option their template shows: written from
    the config (their documents are checked when lm-eval runs them)."""
    assert variants("kmmlu_direct_accounting", "--family", "option_order", "--output-dir", str(tmp_path)) == 0
    assert (tmp_path / "robust_option_order_kmmlu_direct_accounting.yaml").is_file()
    assert capsys.readouterr().err == ""


def test_builtin_task_is_written_without_loading_data(tmp_path):
    import lm_eval
    import yaml

    assert variants("arc_easy", "--family", "option_order", "--show-options", "--output-dir", str(tmp_path)) == 0
    cfg = yaml.safe_load((tmp_path / "robust_option_order_arc_easy.yaml").read_text().replace("!function ", ""))
    assert cfg["metadata"]["robust"]["config"] == str(Path(lm_eval.__file__).resolve().parent / "tasks" / "arc" / "arc_easy.yaml")


# --- refusals: one line, exit 2, nothing written ------------------------------------------------

@pytest.mark.parametrize("argv,message", [
    (["local_qa", "--family", "option_order"], "task local_qa: output type generate_until and its prompt template shows no "
                                            "lettered options (A. ... B. ...); option order on a generation task needs"),
    (["gsm8k", "--family", "option_order"], "task gsm8k: output type generate_until and its prompt template shows no"),
    (["local_mc", "--family", "non_greedy"], "task local_mc: output type multiple_choice: sampling needs a generate_until task"),
    (["no_such_task", "--family", "option_order"], "task no_such_task: no such lm-eval task"),
    (["ai2_arc", "--family", "option_order"], "task ai2_arc: a tag, not a task"),
    (["local_mc", "--family", "prompt"], "task local_mc: --family prompt needs --templates FILE"),
    (["lambada_openai", "--family", "prompt"], "task lambada_openai: output type loglikelihood; scorekit variants handles"),
    (["squadv2", "--family", "non_greedy"], "task squadv2: a Python task class"),
    (["local_mc", "--family", "option_order", "--samples", "3"], "--samples applies to the prompt and non_greedy families"),
    # cloze tasks: their documents read (local data) say so
    (["local_mc", "--family", "option_order"], "task local_mc: document 0: the prompt shows none of the options (a cloze task"),
    (["arc_easy_local", "--family", "option_order"], "changes nothing the model sees); scorekit variants --show-options asks"),
    (["local_qa", "--family", "prompt", "--show-options"], "--show-options is for --family option_order"),
    (["kmmlu_direct_accounting", "--family", "option_order", "--show-options"],
     "task kmmlu_direct_accounting: --show-options is for multiple_choice tasks (this one generates its answer)"),
    (["local_mc", "--family", "option_order", "--show-options", "--harness", "lighteval"],
     "--show-options is not available with --harness lighteval"),
    # ... or, offline without the data, their configs
    (["arc_easy", "--family", "option_order"], "task arc_easy: its prompt does not read the fields its choices come from, "
                                              "so it never shows the options (a cloze task"),
    (["hellaswag", "--family", "option_order"], "task hellaswag: its prompt does not read the fields"),
])
def test_refusals(src, tmp_path, capsys, argv, message):
    out = tmp_path / "out"
    assert variants(*argv, "--include-path", str(src), "--output-dir", str(out)) == 2
    err = capsys.readouterr().err
    assert err.startswith("scorekit: error: ") and message in err and err.count("\n") == 1
    assert not out.exists()


@pytest.fixture(scope="module")
def shapes_05(src, tmp_path_factory):
    """local_mc with one lm-eval 0.5 config key each (0.4 has none of them; 0.5 would rewrite the
    prompt or the scoring with it, or, for multiple_inputs, ask several prompts per document)."""
    folder = tmp_path_factory.mktemp("shapes_05")
    base = (src / "local_mc.yaml").read_text()
    (folder / "local_mc.yaml").write_text(base)
    for name, extra in (("mc_formats", "formats: mcqa\n"), ("mc_scorer", "scorer: first_token\n"),
                        ("mc_inputs", "multiple_inputs: true\n")):
        (folder / f"{name}.yaml").write_text(base.replace("task: local_mc\n", f"task: {name}\n") + extra)
    return folder


@pytest.mark.parametrize("task,message", [
    ("mc_formats", "task mc_formats: sets the lm-eval 0.5 prompt format 'mcqa'"),
    ("mc_scorer", "task mc_scorer: scored by the lm-eval 0.5 scorer 'first_token'"),
    ("mc_inputs", "task mc_inputs: several inputs per document (multiple_inputs, winogrande's shape)"),
    ("local_mc@cloze", "task local_mc@cloze: @cloze selects an lm-eval 0.5 prompt format, which scorekit variants "
                       "does not wrap; scorekit variants local_mc"),
])
def test_refusals_of_lm_eval_05_task_shapes(shapes_05, tmp_path, capsys, task, message):
    out = tmp_path / "out"
    assert variants(task, "--family", "option_order", "--include-path", str(shapes_05), "--output-dir", str(out)) == 2
    err = capsys.readouterr().err
    assert err.startswith("scorekit: error: ") and message in err and err.count("\n") == 1
    assert not out.exists()


def test_bad_templates_file_names_the_place(src, tmp_path, capsys):
    bad = tmp_path / "t.yml"
    bad.write_text('- "Q: {{question}"\n- "{{question}}"\n')
    assert variants("local_qa", "--family", "prompt", "--templates", str(bad), "--include-path", str(src),
                     "--output-dir", str(tmp_path / "out")) == 2
    err = capsys.readouterr().err
    assert f"{bad}: item 0: jinja syntax error in template 0" in err and err.count("\n") == 1


def test_a_file_it_did_not_write_is_not_replaced(src, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "robust_local_mc.yaml").write_text("group: mine\n")
    assert variants("local_mc", "--family", "option_order", "--show-options", "--include-path", str(src), "--output-dir", str(out)) == 2
    assert "not written by scorekit variants; not replaced" in capsys.readouterr().err
    assert (out / "robust_local_mc.yaml").read_text() == "group: mine\n"
    assert not (out / "robust_option_order_local_mc.yaml").exists()


@pytest.fixture(scope="module")
def clashing(src, tmp_path_factory):
    """Tasks ``qa`` and ``prompt_qa``: the prompt family of the first and the group of the second
    are both named ``robust_prompt_qa``."""
    folder = tmp_path_factory.mktemp("clash")
    base = (src / "local_qa.yaml").read_text()
    for name in ("qa", "prompt_qa"):
        (folder / f"{name}.yaml").write_text(base.replace("task: local_qa\n", f"task: {name}\n"))
    return folder


def test_names_that_clash_in_one_call_are_refused(clashing, qa_templates, tmp_path, capsys):
    out = tmp_path / "out"
    assert variants("qa", "prompt_qa", "--family", "prompt", "--templates", str(qa_templates), "--include-path",
                     str(clashing), "--output-dir", str(out)) == 2
    err = capsys.readouterr().err
    assert ("scorekit: error: the prompt family of task qa and the group of task prompt_qa would both be written to "
            "robust_prompt_qa.yaml") in err and err.count("\n") == 1
    assert not out.exists()


def test_a_file_written_for_another_task_is_not_replaced(clashing, qa_templates, tmp_path, capsys):
    out = tmp_path / "out"
    args = ("--family", "prompt", "--templates", str(qa_templates), "--include-path", str(clashing), "--output-dir", str(out))
    assert variants("qa", *args) == 0
    before = {p.name: p.read_text() for p in out.iterdir()}
    capsys.readouterr()
    assert variants("prompt_qa", *args) == 2
    err = capsys.readouterr().err
    assert (f"{out / 'robust_prompt_qa.yaml'}: holds the prompt family of task qa; the group of task prompt_qa has the "
            "same name; not replaced") in err and err.count("\n") == 1
    assert {p.name: p.read_text() for p in out.iterdir()} == before  # nothing replaced, nothing added


def test_lm_eval_cli_runs_the_written_task(written, tmp_path):
    """``lm_eval --include_path DIR --tasks robust_option_order_<T>`` then ``scorekit robustness``."""
    logs = tmp_path / "logs"
    run = subprocess.run([sys.executable, "-m", "lm_eval", "--model", "dummy", "--include_path", str(written),
                          "--tasks", "robust_option_order_local_mc", "--output_path", str(logs), "--log_samples"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    report = subprocess.run([sys.executable, "-m", "scorekit", "robustness", str(logs), "-f", "json"],
                            capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    fam = json.loads(report.stdout)["models"][0]["benchmarks"][0]["families"][0]
    assert fam["family"] == "option_order" and fam["n_questions"] == len(MC_ROWS) and fam["n_records"] == 15


def test_limit_cuts_whole_questions_only(written, tmp_path):
    """--limit 6 takes question 0 (4 arrangements) and 2 of question 1's 3: question 1 is left out."""
    with pytest.warns(RuntimeWarning, match="1 question"):
        res = evaluate(written, ["robust_option_order_local_mc"], tmp_path, limit=6)
    got = res["robust_option_order_local_mc"]
    assert got["accuracy"] == 1.0 and got["circular_accuracy"] == 1.0  # question 0 only (known)
    assert got["per_option_accuracy_A"] == 1.0 and "per_option_accuracy_D" in got


def test_seeded_samples_go_out_with_their_own_seeds(written, tmp_path):
    import lm_eval
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    lm = ScriptedLM(generate=qa_answers)
    lm_eval.simple_evaluate(model=lm, tasks=["robust_non_greedy_local_qa"], gen_kwargs="seed=7", bootstrap_iters=0,
                            task_manager=TaskManager(include_path=[str(written)], include_defaults=False))
    seeds = sorted({call["args"][1]["seed"] for call in lm.calls})
    assert seeds == [21, 22, 23] and len(lm.calls) == 3 * len(QA_ROWS)
    assert all(call["args"][1]["do_sample"] and call["args"][1]["temperature"] == 0.7 for call in lm.calls)


def test_sampled_families_keep_every_sample_through_the_task_filters():
    """gsm8k's real filters: regex then take_first; the sampled task keeps the regex, all samples."""
    from lm_eval.tasks._yaml_loader import load_yaml

    from scorekit.lm_eval.task_variants import _sampled_filters
    from tests.lm_eval.task_variants_fixtures import LM_EVAL_TASKS

    filters = load_yaml(LM_EVAL_TASKS / "gsm8k" / "gsm8k.yaml")["filter_list"]
    out = _sampled_filters(filters, 5)
    assert [f["name"] for f in out] == ["strict-match", "flexible-extract"]
    for pipeline in out:
        assert [step["function"] for step in pipeline["filter"]] == ["regex", "take_first_k"]
        assert pipeline["filter"][-1]["k"] == 5
    assert _sampled_filters(None, 3) == [{"name": "none", "filter": [{"function": "take_first_k", "k": 3}]}]


def _robust_gsm(tmp_path: Path) -> Path:
    """lm-eval's own gsm8k config on three local rows, written as variant tasks (non-greedy, 3 samples) into
    ``tmp_path / "out"``."""
    rows = [{"question": "What is 2+3?", "answer": "2+3=5\n#### 5"}, {"question": "What is 10*7?", "answer": "10*7=70\n#### 70"},
            {"question": "What is 9-4?", "answer": "9-4=5\n#### 5"}]
    data = tmp_path / "gsm.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    src = tmp_path / "src"
    src.mkdir()
    (src / "gsm_local.yaml").write_text(
        f"include: {LM_EVAL_TASKS / 'gsm8k' / 'gsm8k.yaml'}\ntask: gsm_local\ntag: []\ndataset_path: json\n"
        f"dataset_name: null\ndataset_kwargs:\n  data_files:\n    test: {data}\n    train: {data}\n")
    assert variants("gsm_local", "--family", "non_greedy", "--samples", "3", "--include-path", str(src),
                     "--output-dir", str(tmp_path / "out")) == 0
    return tmp_path / "out"


def _gsm_answers(doc: dict) -> list[str]:  # right and formatted, off by one, no "####"
    gold = doc["answer"].split("#### ")[1]
    return [f"So it is {gold}.\n#### {gold}", f"#### {int(gold) + 1}", f"I think {gold}"]


def test_a_log_of_two_filter_pipelines(tmp_path):
    """The real gsm8k filters write each document twice (strict-match, flexible-extract): the
    report scores the first row's pipeline and says so."""
    from scorekit.robustness.readers import read_paths
    from tests.robustness.report_fixtures.build_logs import run_lm_eval

    tasks = _robust_gsm(tmp_path)
    run_lm_eval(tmp_path / "logs", ["robust_non_greedy_gsm_local"], tasks, _gsm_answers, "org/gsm-model", num_fewshot=0)
    read = read_paths([tmp_path / "logs"])
    (sample_set,) = read.samples
    first = next(iter(samples_rows(tmp_path / "logs", "robust_non_greedy_gsm_local")))
    assert first["filter"] in ("strict-match", "flexible-extract")
    assert any(f"scored the '{first['filter']}' rows" in n and "flexible-extract" in n and "strict-match" in n
               for n in sample_set.notes), sample_set.notes
    assert len(sample_set.records) == 3 * 3  # three documents, three samples each, one pipeline


def test_non_greedy_through_the_real_gsm8k_filters(tmp_path):
    """lm-eval's own gsm8k config (two filter pipelines, regex + take_first): every sample kept
    through each pipeline, and each pipeline's own exact_match decides correctness (checked
    against the logged filtered answers; under lm-eval 0.5 the pipelines are separate scorers)."""
    import re

    _robust_gsm(tmp_path)

    def answers(context, gen_kwargs, doc):
        return _gsm_answers(doc)

    import lm_eval
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    out = lm_eval.simple_evaluate(model=ScriptedLM(generate=answers), tasks=["robust_non_greedy_gsm_local"], num_fewshot=0,
                                  bootstrap_iters=0, log_samples=True,
                                  task_manager=TaskManager(include_path=[str(tmp_path / "out")], include_defaults=False))
    got = out["results"]["robust_non_greedy_gsm_local"]
    by_filter: dict[str, list] = defaultdict(list)
    for row in out["samples"]["robust_non_greedy_gsm_local"]:
        by_filter[row["filter"]].append((row["doc"]["answer"].split("#### ")[1], list(row["filtered_resps"][0])))
    assert sorted(by_filter) == ["flexible-extract", "strict-match"]
    for name, docs in by_filter.items():
        assert all(len(outputs) == 3 for _, outputs in docs)
        clean = [[re.sub(r"\.$", "", o.replace(",", "").replace("$", "")) for o in outputs] for _, outputs in docs]
        correct = [o == gold for (gold, _), outputs in zip(docs, clean) for o in outputs]
        assert close(got[f"non_greedy_accuracy,{name}"], sum(correct) / len(correct)), name
        assert close(got[f"non_greedy_consistency_rate,{name}"], pair_cr([[" ".join(o.split()) for o in outs] for _, outs in docs]))
    assert got["non_greedy_accuracy,strict-match"] == 1 / 3  # only the "#### N" answer passes the strict regex
    assert got["non_greedy_accuracy,flexible-extract"] > 1 / 3  # the last number of "I think N" too


def test_answers_scored_by_the_task_own_process_results(src, tmp_path):
    """A generation task with its own ``process_results`` (correct when the gold appears anywhere
    in the answer, which exact_match would call wrong): the prompt family scores each answer with
    it, as the wrapped task does."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "contains.py").write_text(
        "def process_results(doc, results):\n"
        "    return {'exact_match': float(doc['answer'].lower() in results[0].lower())}\n")
    (tasks / "qa_contains.yaml").write_text(
        (src / "local_qa.yaml").read_text().replace("task: local_qa\n", "task: qa_contains\n")
        + "process_results: !function contains.process_results\n")
    templates = tmp_path / "t.yml"
    templates.write_text('- "Q: {{question}}\\nA:"\n- "{{question}}"\n')
    assert variants("qa_contains", "--family", "prompt", "--templates", str(templates), "--include-path", str(tasks),
                     "--output-dir", str(tmp_path / "out")) == 0

    def answers(context, gen_kwargs, doc):  # the gold inside a sentence under the first template only
        return f"It is {doc['answer']}, surely" if context.startswith("Q: ") else "nothing"

    res = evaluate(tmp_path / "out", ["robust_prompt_qa_contains"], tmp_path / "logs", generate=answers)["robust_prompt_qa_contains"]
    assert res["0_accuracy"] == 1.0 and res["1_accuracy"] == 0.0 and res["accuracy"] == 0.5


def test_the_group_keeps_families_written_earlier(src, qa_templates, tmp_path):
    import yaml

    assert variants("local_qa", "--family", "non_greedy", "--include-path", str(src), "--output-dir", str(tmp_path)) == 0
    assert variants("local_qa", "--family", "prompt", "--templates", str(qa_templates), "--include-path", str(src),
                     "--output-dir", str(tmp_path)) == 0
    group = yaml.safe_load((tmp_path / "robust_local_qa.yaml").read_text())
    assert group["task"] == ["robust_prompt_local_qa", "robust_non_greedy_local_qa"]
    task = yaml.safe_load((tmp_path / "robust_non_greedy_local_qa.yaml").read_text().replace("!function ", ""))
    assert task["metadata"]["robust"]["samples"] == 5  # SCORE's default


BBH_LIKE = [
    {"input": "Which is a fruit?\nOptions:\n(A) apple\n(B) brick\n(C) spoon", "target": "(A)"},
    {"input": "Which is a colour?\nOptions:\n(A) table\n(B) red", "target": "(B)"},
]


def _bbh_like(folder: Path, rows: list[dict]) -> Path:
    """lm-eval's leaderboard BBH (multiple choice) config on local rows: the options are inside
    the input text as ``(A) ...`` lines."""
    data = folder / "bbh_like.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "bbh_like.yaml").write_text(
        f"include: {LM_EVAL_TASKS / 'leaderboard' / 'bbh_mc' / 'date_understanding.yaml'}\ntask: bbh_like\ntag: []\n"
        f"dataset_path: json\ndataset_name: null\ndataset_kwargs:\n  data_files:\n    test: {data}\nnum_fewshot: 0\n")
    return data


def test_a_document_without_its_options_is_refused_before_writing(tmp_path, capsys):
    _bbh_like(tmp_path, [*BBH_LIKE, {"input": "Which is an animal?", "target": "(A)"}])
    out = tmp_path / "out"
    assert variants("bbh_like", "--family", "option_order", "--include-path", str(tmp_path), "--output-dir", str(out)) == 2
    err = capsys.readouterr().err
    assert err.startswith("scorekit: error: task bbh_like: document 2: the prompt does not show the labels A, B, ...")
    assert err.count("\n") == 1 and not out.exists()


def test_a_later_document_stops_the_run_in_one_line(tmp_path):
    """Written when the data was good; the data changed before the run: lm-eval's CLI stops at
    the bad document with scorekit's one line and exit status 2, not a traceback."""
    data = _bbh_like(tmp_path, BBH_LIKE)
    out = tmp_path / "out"
    assert variants("bbh_like", "--family", "option_order", "--include-path", str(tmp_path), "--output-dir", str(out)) == 0
    rows = [*BBH_LIKE, {"input": "Pick one:\n(A) one\n(B) two\n(A) three", "target": "(A)"}]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = subprocess.run([sys.executable, "-m", "lm_eval", "--model", "dummy", "--include_path", str(out),
                          "--tasks", "robust_option_order_bbh_like", "--output_path", str(tmp_path / "logs")],
                         capture_output=True, text=True)
    assert run.returncode == 2, run.stderr[-2000:]
    lines = [line for line in run.stderr.splitlines() if line.startswith("scorekit: error: ")]
    assert lines == ["scorekit: error: task bbh_like: document 2: the prompt does not show the labels A, B, ... once each "
                     "at the start of a line (A. / A) / A: / (A)) or as (A) in the text"]
    assert "Traceback" not in run.stderr
