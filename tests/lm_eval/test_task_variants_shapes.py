"""``scorekit variants --family option_order`` end to end on real lm-eval task configs of many
shapes (tests/lm_eval/shape_tasks.py), run by the real lm-eval with a position-biased
scripted model: the options the model reads really move, the report shows the bias, and an
independent computation from the samples logs gives the same numbers."""

from __future__ import annotations

import itertools
import json
import math
import re
import string
from collections import defaultdict
from pathlib import Path

import pytest

from scorekit.cli import main
from tests.lm_eval.shape_tasks import SHAPES, gold_by_question, local_name, question_of, write_shape_tasks

LETTERS = string.ascii_uppercase
GOLD = gold_by_question()
# an option line as the model reads it: "A. x", "A: x", "(A) x", "A) x", and "A．x" forms
OPTION_LINE = re.compile(r"^\s*(?:\(([A-J])\)|([A-J])[.:)．：])\s*(.*)$")


def shown_options(prompt: str) -> dict[str, str]:
    """The last block of consecutive option lines A, B, C... of a prompt (after any few-shot
    examples), whitespace runs collapsed."""
    block: dict[str, str] = {}
    found: dict[str, str] = {}
    for line in prompt.splitlines():
        m = OPTION_LINE.match(line)
        letter = m and (m.group(1) or m.group(2))
        if m and letter == LETTERS[len(block)]:
            block[letter] = " ".join(m.group(3).split())
        elif m and letter == "A":
            if len(block) >= 2:
                found = block
            block = {"A": " ".join(m.group(3).split())}
        else:
            if len(block) >= 2:
                found = block
            block = {}
    return block if len(block) >= 2 else found


def biased(context: str, continuation: str, doc: dict) -> float:
    """Knows the answer of even question ids (the option whose text is the gold); on odd ones
    always takes the first option shown (letter A). Reads only the prompt and the original row."""
    letter = continuation.strip().strip("()")
    if int(doc["_robust"]["question_id"]) % 2 == 0:
        return 0.0 if shown_options(context).get(letter) == GOLD[question_of(doc)] else -5.0
    return -float(LETTERS.index(letter))


def letter_of_gold(context: str, gen_kwargs: dict, doc: dict) -> str:
    """The generating model, biased the same way: the gold's letter on even question ids, A on odd ones."""
    if int(doc["_robust"]["question_id"]) % 2 == 0:
        return next(k for k, v in shown_options(context).items() if v == GOLD[question_of(doc)])
    return "A"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    src = write_shape_tasks(tmp_path_factory.mktemp("shapes"))
    out = tmp_path_factory.mktemp("shapes_robust")
    shown = [local_name(s) for s in SHAPES if not s.show_options]
    cloze = [local_name(s) for s in SHAPES if s.show_options]
    assert main(["variants", *shown, "--family", "option_order", "--include-path", str(src), "--output-dir", str(out)]) == 0
    assert main(["variants", *cloze, "--family", "option_order", "--show-options", "--include-path", str(src),
                 "--output-dir", str(out)]) == 0
    logs = tmp_path_factory.mktemp("shapes_logs")
    tracker = EvaluationTracker(output_path=str(logs))
    tasks = [f"robust_option_order_{local_name(s)}" for s in SHAPES]
    res = lm_eval.simple_evaluate(model=ScriptedLM(loglikelihood=biased, generate=letter_of_gold), tasks=tasks, log_samples=True,
                                  task_manager=TaskManager(include_path=[str(out), str(src)], include_defaults=False),
                                  evaluation_tracker=tracker, bootstrap_iters=0)
    tracker.save_results_aggregated(results=res, samples=res["samples"])
    for task in res["samples"]:
        tracker.save_results_samples(task_name=task, samples=res["samples"][task])
    results = {t: {k.removesuffix(",none"): v for k, v in m.items()} for t, m in res["results"].items()}
    return results, logs


def logged(logs: Path, task: str) -> list[dict]:
    (path,) = logs.rglob(f"samples_{task}_*.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def oracle(rows: list[dict]) -> dict:
    """From the samples log alone: the letter with the highest logged log-likelihood (the first
    on ties), the option text the prompt shows after it, right when that is the row's gold."""
    by_q: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    by_pos: dict[int, list[bool]] = defaultdict(list)
    prompts: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        args = list(row["arguments"].values())
        prompt = args[0]["arg_0"]
        options = shown_options(prompt)
        if isinstance(args[0]["arg_1"], dict):  # generated: the letter written
            output = row["filtered_resps"][0]
            chosen = options.get(str(output[0] if isinstance(output, list) else output).strip().strip("()"))
        else:  # log-likelihoods of the letters
            letters = [a["arg_1"].strip().strip("()") for a in args]
            lls = [float(r[0][0] if isinstance(r[0], list) else r[0]) for r in row["filtered_resps"]]
            best = max(range(len(lls)), key=lambda i: (lls[i], -i))
            chosen = options.get(letters[best])
        gold = GOLD[question_of(row["doc"])]
        position = [letter for letter, text in options.items() if text == gold]
        assert len(position) == 1, (options, gold)  # the gold is shown exactly once
        q = row["doc"]["_robust"]["question_id"]
        by_q[q].append((chosen, chosen == gold))
        by_pos[LETTERS.index(position[0])].append(chosen == gold)
        prompts[q].add(prompt)
    acc = {p: sum(v) / len(v) for p, v in by_pos.items()}
    agree = total = 0
    for answers in by_q.values():
        for (a, _), (b, _) in itertools.combinations(answers, 2):
            total += 1
            agree += a == b
    return {"accuracy": sum(c for v in by_q.values() for _, c in v) / sum(len(v) for v in by_q.values()),
            "per_position": acc, "accuracy_range": max(acc.values()) - min(acc.values()),
            "options_consistency_rate": agree / total,
            "circular_accuracy": sum(all(c for _, c in v) for v in by_q.values()) / len(by_q),
            "arrangements": {q: len(v) for q, v in by_q.items()}, "prompts": {q: len(p) for q, p in prompts.items()}}


@pytest.fixture(scope="module")
def report(run):
    import contextlib
    import io

    _, logs = run
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["robustness", str(logs), "-f", "json"]) == 0
    data = json.loads(buf.getvalue())
    return {b["benchmark"]: f for m in data["models"] for b in m["benchmarks"] for f in b["families"]}


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_shown_options_move_and_the_numbers_match(run, report, shape):
    results, logs = run
    task = f"robust_option_order_{local_name(shape)}"
    rows = logged(logs, task)
    expect = oracle(rows)
    # every question asked once per option it shows, each arrangement a different prompt
    n_options = {question_of(r): len(shown_options(_first_prompt(rows, question_of(r)))) for r in shape.rows}
    assert sorted(expect["arrangements"].values()) == sorted(n_options.values())
    assert expect["prompts"] == expect["arrangements"]
    assert {r["doc"]["_robust"]["permuted"] for r in rows} == {True}
    got = results[task]
    assert close(got["accuracy"], expect["accuracy"])
    assert close(got["options_consistency_rate"], expect["options_consistency_rate"])
    assert close(got["accuracy_range"], expect["accuracy_range"])
    assert close(got["circular_accuracy"], expect["circular_accuracy"])
    for p, a in expect["per_position"].items():
        assert close(got[f"per_option_accuracy_{LETTERS[p]}"], a), (p, expect["per_position"], {k: v for k, v in got.items() if "per_option" in k})
    fam = report[f"robust_{local_name(shape)}"]
    assert fam["family"] == "option_order"
    assert close(fam["accuracy"], expect["accuracy"]) and close(fam["consistency_rate"], expect["options_consistency_rate"])
    assert close(fam["accuracy_range"], expect["accuracy_range"])
    assert fam["variant_accuracy"] == {LETTERS[p]: pytest.approx(a) for p, a in sorted(expect["per_position"].items())}
    # the position bias shows: answers change with the order, accuracy with the gold's position
    assert fam["consistency_rate"] < 1 and fam["accuracy_range"] > 0
    # the report says how many questions had their shown options moved
    n = len(expect["arrangements"])
    assert f"option order: {n} of {n} question(s) had their shown options permuted" in fam["notes"]


def _first_prompt(rows: list[dict], question: str) -> str:
    return next(list(r["arguments"].values())[0]["arg_0"] for r in rows if question_of(r["doc"]) == question)
