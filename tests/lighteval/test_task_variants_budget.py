"""``scorekit variants --harness lighteval --budget B`` end to end: a user's custom task
(``local_budget`` of tests/lighteval/robust_local_tasks.py, 30 local rows, four options written
into the query, the labels scored by log-likelihood) written with the prompt family (5 templates)
and option order (4 arrangements) on a budget of 2, run by the real lighteval CLI with the
scripted model (robust_scripted_model.py), reported by ``scorekit robustness``.

What the model was asked is read from the scripted model's own call log; the expected answers
come from the data rows and the model's answer rule alone; the estimates are compared with
:func:`scorekit.robustness.budget.estimate_robustness` on that matrix."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from tests.lighteval.conftest import robust_model as model, run_lighteval

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
LOCAL_TASKS = HERE / "robust_local_tasks.py"
MODEL = HERE / "robust_scripted_model.py"
OPTIONS = "\nA. {{choices[0]}}\nB. {{choices[1]}}\nC. {{choices[2]}}\nD. {{choices[3]}}\nAnswer:"
PREFIXES = ["Q: ", "Question: ", "", "Pick one. ", "Answer this: "]
TEMPLATES = [p + "{{question}}" + OPTIONS for p in PREFIXES]
N, B, SEED = 30, 2, 3
V = {"prompt": 5, "option_order": 4}
TASK = {"prompt": "robust_prompt_local_budget", "option_order": "robust_option_order_local_budget"}


def rows() -> list[dict]:
    return [json.loads(x) for x in (HERE / "robust_data" / "budget" / "test.jsonl").read_text().splitlines() if x.strip()]


def scorekit(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorekit", *args], env=env, capture_output=True, text=True, timeout=600)


def errors(proc: subprocess.CompletedProcess) -> list[str]:
    return [x for x in proc.stderr.splitlines() if x.startswith("scorekit: error:")]


def one_line(proc: subprocess.CompletedProcess) -> str:
    """The one error line of a refusal: exit 2, no traceback, the line last (lighteval's import
    noise may come before it)."""
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    [line] = errors(proc)
    assert proc.stderr.strip().endswith(line)
    return line


@pytest.fixture(scope="module")
def run(tmp_path_factory, lighteval_env):
    tmp = tmp_path_factory.mktemp("variants_lighteval_budget")
    env = {**lighteval_env, "SCOREKIT_ROBUST_CALLS": str(tmp / "calls.jsonl")}
    templates = tmp / "templates.yml"
    templates.write_text("".join(f"- {json.dumps(t)}\n" for t in TEMPLATES))
    written = scorekit("variants", "local_budget", "--family", "prompt", "--family", "option_order", "--templates",
                       str(templates), "--harness", "lighteval", "--custom-tasks", str(LOCAL_TASKS), "--budget", str(B),
                       "--seed", str(SEED), "--output-dir", str(tmp / "gen"), env=env)
    assert written.returncode == 0, written.stderr[-3000:]
    module = tmp / "gen" / "robust_lighteval_tasks.py"
    out = tmp / "out"
    run_lighteval(["custom", "scripted", str(MODEL), f"{TASK['prompt']}|0,{TASK['option_order']}|0", "--custom-tasks",
                   str(module), "--output-dir", str(out), "--save-details"], env)
    calls = [json.loads(x) for x in (tmp / "calls.jsonl").read_text().splitlines()]
    report = scorekit("robustness", str(out), "--format", "json", env=env)
    assert report.returncode == 0, report.stderr[-3000:]
    return written, module, out, calls, json.loads(report.stdout)


def family(report: dict, fam: str) -> dict:
    [m] = report["models"]
    [b] = [b for b in m["benchmarks"] if b["benchmark"] == "robust_local_budget"]
    return next(f for f in b["families"] if f["family"] == fam)


def asked(calls: list[dict], fam: str) -> dict[str, list[int]]:
    """{question: the variants the model was asked it under} for one family, from the call log."""
    out: dict[str, list[int]] = defaultdict(list)
    for c in calls:
        if c["task"].startswith(TASK[fam] + ":"):
            out[c["robust"]["question_id"]].append(c["robust"]["variant"])
    return out


# ----------------------------------------------------------------- independent expectations

def answer(fam: str, row: dict, variant: int) -> tuple[str, bool]:
    """(the option the scripted model picks, whether it is the gold) for a row under a variant:
    the highest ``choice_logprob`` of (the query's first line, the option, its position)."""
    opts, gold = row["choices"], row["answer"]
    if fam == "prompt":
        qline, shown = PREFIXES[variant] + row["question"], list(opts)
    else:  # cyclic: the gold at position ``variant``, the others following it round
        r = (gold - variant) % len(opts)
        qline, shown = f"Question: {row['question']}", [opts[(k + r) % len(opts)] for k in range(len(opts))]
    scores = [model().choice_logprob(qline, c, p) for p, c in enumerate(shown)]
    picked = shown[scores.index(max(scores))]
    return picked, picked == opts[gold]


def logged_order(out: Path, fam: str) -> list[str]:
    """The questions in the order the details hold them (variant tasks by name, rows as written):
    the order of the report's matrix, on which its Monte Carlo draws depend."""
    import pyarrow.parquet as pq

    order: list[str] = []
    for f in sorted(out.glob(f"details/*/*/details_{TASK[fam]}:*.parquet"), key=lambda p: p.name):
        for doc in pq.read_table(f, columns=["doc"]).column("doc").to_pylist():
            q = doc["specific"]["robust"]["question_id"]
            if q not in order:
                order.append(q)
    return order


# ------------------------------------------------------------------------------------ tests

def test_the_module_records_the_design_and_the_command_prints_the_cost(run):
    written, module, *_ = run
    text = module.read_text()
    assert f"budget={{'per_question': {B}, 'seed': {SEED}}}" in text and f"n_questions={{'local_budget': {N}}}" in text
    assert written.stdout.strip() == str(module)
    notes = [x for x in written.stderr.splitlines() if x.startswith("scorekit: note:")]
    assert notes == [
        "scorekit: note: robust_prompt_local_budget: asks 2 of 5 prompts per question: 2.0 evaluations' worth "
        "(40% of the full run's 5)",
        "scorekit: note: robust_option_order_local_budget: asks 2 of 4 option arrangements per question: 2.0 "
        "evaluations' worth (50% of the full run's 4)"]


@pytest.mark.parametrize("fam", ["prompt", "option_order"])
def test_each_question_is_asked_b_distinct_variants_balanced_and_as_designed(run, fam):
    *_, calls, _ = run
    got = asked(calls, fam)
    assert sorted(got, key=int) == [str(i) for i in range(N)]  # every question, once per variant asked
    assert all(len(v) == B and len(set(v)) == B for v in got.values())
    per_variant = Counter(v for vs in got.values() for v in vs)
    assert sorted(per_variant) == list(range(V[fam]))
    assert all(N * B // V[fam] <= c <= -(-N * B // V[fam]) for c in per_variant.values()), per_variant
    from scorekit.robustness.budget import Design, assign

    assert {q: tuple(sorted(v)) for q, v in got.items()} == assign(range(N), Design.make(V[fam], B, SEED))
    # what each call showed: the template's prefix, or the gold option at the position named
    data = rows()
    for c in calls:
        if c["task"].startswith(TASK[fam] + ":"):
            meta, row = c["robust"], data[int(c["robust"]["question_id"])]
            assert meta["design"] == {"variants": V[fam], "per_question": B, "seed": SEED}
            assert meta["design_questions"] == N
            if fam == "prompt":
                assert c["query"].startswith(PREFIXES[meta["variant"]] + row["question"] + "\nA. ")
            else:
                letter = "ABCD"[meta["variant"]]
                assert f"\n{letter}. {row['choices'][row['answer']]}\n" in c["query"]


@pytest.mark.parametrize("fam", ["prompt", "option_order"])
def test_the_report_gives_the_design_and_the_estimates_of_estimate_robustness(run, fam):
    *_, out, calls, report = run
    got = family(report, fam)
    assert got["design"] == {"variants": V[fam], "per_question": B, "seed": SEED}
    assert got["estimated"] is True and got["layout"] == "lighteval"
    assert got["n_questions"] == N and got["n_incomplete"] == 0 and got["n_records"] == N * B
    assert got["notes"][0].startswith(f"budgeted run (2 of {V[fam]} variants per question, seed {SEED}): every number "
                                      "is an estimate")
    # the matrix from the data and the model's rule, in the details' question order
    data, plan = rows(), asked(calls, fam)
    order = logged_order(out, fam)
    correct = np.full((N, V[fam]), np.nan)
    agree = np.zeros(N)
    for i, q in enumerate(order):
        picks = []
        for v in plan[q]:
            picked, ok = answer(fam, data[int(q)], v)
            correct[i, v] = float(ok)
            picks.append(picked)
        agree[i] = float(picks[0] == picks[1])
    from scorekit.robustness.budget import estimate_robustness

    labels = [("ABCD"[v] if fam == "option_order" else str(v)) for v in range(V[fam])]
    want = estimate_robustness(correct, agree=agree, parsed=np.full(N, float(B))).to_json(labels)
    for key in ("accuracy", "accuracy_min", "accuracy_max", "accuracy_range", "accuracy_std", "consistency_rate"):
        for suffix in ("", "_ci_low", "_ci_high"):
            assert got[key + suffix] == pytest.approx(want[key + suffix], abs=1e-12), key + suffix
    for key in ("accuracy_quantiles", "accuracy_quantiles_ci_low", "accuracy_quantiles_ci_high", "variant_accuracy",
                "variant_accuracy_ci_low", "variant_accuracy_ci_high"):
        assert got[key] == pytest.approx(want[key], abs=1e-12), key
    # the estimate is of a run that varies: answers right and wrong, pairs agreeing and not
    assert 0 < np.nanmean(correct) < 1 and 0 < agree.mean() < 1
    lo, hi = got["accuracy_quantiles_ci_low"], got["accuracy_quantiles_ci_high"]
    assert all(lo[k] <= got["accuracy_quantiles"][k] <= hi[k] for k in lo) and lo["50"] < hi["50"]


def _edited(out: Path, dest: Path, fam: str, edit, files: slice = slice(None)) -> Path:
    """A copy of the run whose variant documents of ``fam`` (those of ``files``) went through ``edit``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    shutil.copytree(out, dest)
    for f in sorted(dest.glob(f"details/*/*/details_{TASK[fam]}:*.parquet"), key=lambda p: p.name)[files]:
        table = pq.read_table(f).to_pylist()
        for row in table:
            row["doc"]["specific"]["robust"] = edit(dict(row["doc"]["specific"]["robust"]))
        pq.write_table(pa.Table.from_pylist(table), f)
    return dest


def _lose(meta: dict) -> dict:
    return {k: v for k, v in meta.items() if k not in ("design", "design_questions")}


def test_a_lost_edited_or_mixed_design_is_one_line(run, tmp_path, lighteval_env):
    *_, out, _, _ = run
    lost = _edited(out, tmp_path / "lost", "prompt", _lose)
    line = one_line(scorekit("robustness", str(lost), "--format", "json", env=lighteval_env))
    assert "every question was asked 2 of its 5 variants but the log records no design (doc.specific.robust.design): " \
           "a budgeted log that lost its design" in line
    seed = _edited(out, tmp_path / "seed", "prompt", lambda m: {**m, "design": {**m["design"], "seed": SEED + 1}})
    line = one_line(scorekit("robustness", str(seed), "--format", "json", env=lighteval_env))
    assert f"that the design (variants 5, per_question 2, seed {SEED + 1}) does not give it" in line
    assert "the design was edited or the log mixes runs" in line
    mixed = _edited(out, tmp_path / "mixed", "option_order", _lose, slice(1, 2))
    line = one_line(scorekit("robustness", str(mixed), "--format", "json", env=lighteval_env))
    assert "robust_option_order_local_budget: this file records" in line and "no design" in line
    assert "mixed in one family, or the design was edited" in line


def test_bad_budgets_are_one_line_exit_2_nothing_written(tmp_path, lighteval_env):
    out = tmp_path / "gen"
    base = ["variants", "local_budget", "--family", "option_order", "--harness", "lighteval", "--custom-tasks",
            str(LOCAL_TASKS), "--output-dir", str(out)]
    for bad, said in (("1", "budget must be at least 2 variants per question"), ("0", "budget must be at least 2"),
                      ("-3", "budget"), ("2.5", "budget"), ("two", "budget")):
        line = one_line(scorekit(*base, "--budget", bad, env=lighteval_env))
        assert said in line and not out.exists(), line
    # sampling has no budget: its samples are drawn alike (the reason is the line)
    line = one_line(scorekit("variants", "local_qa", "--family", "non_greedy", "--harness", "lighteval", "--custom-tasks",
                             str(LOCAL_TASKS), "--budget", "2", "--output-dir", str(out), env=lighteval_env))
    assert "--budget does not apply to --family non_greedy: its samples are drawn alike" in line and not out.exists()


def test_budgets_the_data_cannot_take_are_one_line(tmp_path, lighteval_env):
    out = tmp_path / "gen"
    # 10 questions x 2 < 21 templates: a variant task would have no document, which lighteval refuses
    templates = tmp_path / "t.yml"
    templates.write_text("".join(f"- {json.dumps('{{question}} (' + str(k) + ')')}\n" for k in range(21)))
    line = one_line(scorekit("variants", "local_qa", "--family", "prompt", "--templates", str(templates), "--harness",
                             "lighteval", "--custom-tasks", str(LOCAL_TASKS), "--budget", "2", "--output-dir", str(out),
                             env=lighteval_env))
    assert "lighteval task local_qa: 10 question(s) x --budget 2 is fewer than its 21 variants" in line
    assert not out.exists()
    # 3- and 4-option questions: a design has one number of variants
    line = one_line(scorekit("variants", "local_shown", "--family", "option_order", "--harness", "lighteval",
                             "--custom-tasks", str(LOCAL_TASKS), "--budget", "2", "--output-dir", str(out),
                             env=lighteval_env))
    assert "lighteval task local_shown: --budget needs one number of option arrangements per question" in line
    assert "3, 4 options" in line and not out.exists()


def test_a_budget_of_v_or_more_is_the_full_run(tmp_path, lighteval_env):
    """As for lm-eval (docs/budget.md): B >= V asks every variant, the cost line says so and the
    module records no budget."""
    out = tmp_path / "gen"
    proc = scorekit("variants", "local_budget", "--family", "option_order", "--harness", "lighteval", "--custom-tasks",
                    str(LOCAL_TASKS), "--budget", "9", "--output-dir", str(out), env=lighteval_env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert ("scorekit: note: robust_option_order_local_budget: asks all 4 option arrangements per question: --budget 9 "
            "is not less than 4, a full run") in proc.stderr
    text = (out / "robust_lighteval_tasks.py").read_text()
    assert "budget=" not in text and "n_choices={'local_budget': 4}" in text


def test_a_full_run_of_some_variant_tasks_is_not_a_lost_design(run, tmp_path, lighteval_env):
    """lighteval runs each template as its own task: a run of two of five (every question asked
    the same two) is not a budgeted run that lost its design. Given with the budgeted run, its
    two tasks have runs of two designs: not combined, one line."""
    tasks_file = tmp_path / "tasks.py"
    tasks_file.write_text("from scorekit.lighteval.task_variants import robust_tasks\n"
                          f"TASKS_TABLE = robust_tasks(['local_budget'], ['prompt'], custom_tasks={str(LOCAL_TASKS)!r}, "
                          f"templates={TEMPLATES!r})\n")
    out = tmp_path / "out"
    env = {**lighteval_env, "SCOREKIT_ROBUST_CALLS": str(tmp_path / "calls.jsonl")}
    run_lighteval(["custom", "scripted", str(MODEL), f"{TASK['prompt']}:template_0|0,{TASK['prompt']}:template_3|0",
                   "--custom-tasks", str(tasks_file), "--output-dir", str(out), "--save-details"], env)
    proc = scorekit("robustness", str(out), "--format", "json", env=env)
    assert proc.returncode == 0 and "lost its design" not in proc.stderr, proc.stderr[-3000:]
    got = family(json.loads(proc.stdout), "prompt")
    assert got["design"] is None and got["estimated"] is False
    assert len(asked([json.loads(x) for x in (tmp_path / "calls.jsonl").read_text().splitlines()], "prompt")) == N
    both = tmp_path / "both"
    shutil.copytree(run[2], both)
    shutil.copytree(out / "details", both / "details", dirs_exist_ok=True)
    line = one_line(scorekit("robustness", str(both), "--format", "json", env=env))
    assert f"a budgeted run (2 of 5 variants, seed {SEED})" in line and "a full run" in line
    assert "given together; they are not combined" in line
