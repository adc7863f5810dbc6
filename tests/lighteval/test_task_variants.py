"""``scorekit variants`` for lighteval, end to end: the tasks of a user's custom-tasks file
(tests/lighteval/robust_local_tasks.py, local data) written as variant tasks through the CLI
(``--harness lighteval``) and :func:`scorekit.lighteval.task_variants.robust_tasks`, run by the real
lighteval CLI with a scripted model (robust_scripted_model.py), reported by
``scorekit robustness``; every number is checked against a computation from the data rows and
the scripted model's answer rules alone (no scorekit arrangement, record or metric code)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import pytest

from tests.lighteval.conftest import results_file, robust_model as model, run_lighteval

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
LOCAL_TASKS = HERE / "robust_local_tasks.py"
MODEL = HERE / "robust_scripted_model.py"
DATA = HERE / "robust_data"
TEMPLATES = ["Q: {{question}}\nA:", "{{question}} Answer with a number:"]
SAMPLES = 4


def rows(name: str) -> list[dict]:
    return [json.loads(x) for x in (DATA / name / "test.jsonl").read_text().splitlines() if x.strip()]


# ------------------------------------------------------------------ independent expectations

def _pick(qline: str, shown: list[str]) -> int:
    scores = [model().choice_logprob(qline, c, p) for p, c in enumerate(shown)]
    return scores.index(max(scores))  # first on ties


def expected_option_order(name: str) -> dict[str, list[tuple[int, str, bool]]]:
    """{question: [(gold position, answer content, correct)]} for every arrangement."""
    out: dict[str, list] = {}
    for i, row in enumerate(rows(name)):
        if name == "mc":  # cyclic: rotation r shows option (k + r) mod n at k
            opts, gold = row["choices"]["text"], row["choices"]["label"].index(row["answerKey"])
            n = len(opts)
            arrs = [[opts[(k + r) % n] for k in range(n)] for r in range(n)]
            shifts = [(gold - r) % n for r in range(n)]
        else:  # swap: the gold trades places with the option at p
            opts, gold = row["choices"], row["answer"]
            n = len(opts)
            arrs, shifts = [], []
            for p in range(n):
                shown = list(opts)
                shown[p], shown[gold] = opts[gold], opts[p]
                arrs.append(shown)
                shifts.append(p)
        qline = f"Question: {row['question']}"
        answers = []
        for shown, pos in zip(arrs, shifts):
            picked = shown[_pick(qline, shown)]
            answers.append((pos, picked, picked == opts[gold]))
        out[str(i)] = answers
    return out


def expected_letters() -> dict[str, list[tuple[int, str, bool]]]:
    """Generated labels, cyclic: the option the label names (by content), None for a refusal."""
    m = model()
    out = {}
    for i, row in enumerate(rows("labels")):
        opts, gold = row["choices"], row["answer"]
        n = len(opts)
        answers = []
        for r in range(n):
            shown = [opts[(k + r) % n] for k in range(n)]
            query = f"Question: {row['question']}" + "".join(f"\n{'ABCD'[k]}. {c}" for k, c in enumerate(shown)) + "\nAnswer:"
            said = m.letter_answer(query, shown).strip()
            picked = shown["ABCD".index(said)] if said in ("A", "B", "C", "D") else None  # naming no label: unparsed
            answers.append(((gold - r) % n, picked, picked == opts[gold]))
        out[str(i)] = answers
    return out


def _norm(text: str) -> str | None:
    return " ".join(text.split()) or None


def expected_prompt_mc() -> dict[str, list[tuple[int, str, bool]]]:
    out = {}
    for i, row in enumerate(rows("mc")):
        opts, gold = row["choices"]["text"], row["choices"]["label"].index(row["answerKey"])
        answers = []
        for t, tpl in enumerate(TEMPLATES):
            qline = tpl.replace("{{question}}", row["question"]).split("\n")[0]
            picked = opts[_pick(qline, [f" {o}" for o in opts])]
            answers.append((t, picked, picked == opts[gold]))
        out[str(i)] = answers
    return out


def expected_generations(family: str) -> dict[str, list[tuple[int, str | None, bool, str]]]:
    """{question: [(variant, answer, correct, raw text)]} for prompt (one per template) or
    non_greedy (SAMPLES samples); exact match after stripping, as lighteval's ``exact_match``."""
    gen = model().generation
    out = {}
    for i, row in enumerate(rows("qa")):
        gold = row["answer"]
        if family == "prompt":
            raw = [(t, gen(tpl.replace("{{question}}", row["question"]), "prompt", t, 0, gold)) for t, tpl in enumerate(TEMPLATES)]
        else:
            query = f"Question: {row['question']}\nAnswer:"
            raw = [(s, gen(query, "non_greedy", 0, s, gold)) for s in range(SAMPLES)]
        out[str(i)] = [(v, _norm(x), x.strip() == gold, x) for v, x in raw]
    return out


def figures(per_question: dict[str, list[tuple]], letters: bool) -> dict:
    """Accuracy per variant, overall, circular, and the CR over answer pairs (unparsed agrees
    with nothing), pooled over questions."""
    by_variant: dict = defaultdict(list)
    agree = pairs = 0
    for answers in per_question.values():
        for v, _a, ok, *_ in answers:
            by_variant["ABCD"[v] if letters else str(v)].append(ok)
        for x, y in combinations(answers, 2):
            pairs += 1
            agree += x[1] is not None and x[1] == y[1]
    flat = [ok for answers in per_question.values() for _v, _a, ok, *_ in answers]
    return {
        "variant_accuracy": {k: sum(v) / len(v) for k, v in sorted(by_variant.items())},
        "accuracy": sum(flat) / len(flat),
        "circular_accuracy": sum(all(a[2] for a in ans) for ans in per_question.values()) / len(per_question),
        "consistency_rate": agree / pairs,
        "unparsed_rate": sum(a[1] is None for ans in per_question.values() for a in ans) / len(flat),
    }


# ------------------------------------------------------------------------------- the run

def scorekit(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorekit", *args], env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def run(tmp_path_factory, lighteval_env):
    tmp = tmp_path_factory.mktemp("variants_lighteval")
    env = {**lighteval_env, "SCOREKIT_ROBUST_CALLS": str(tmp / "calls.jsonl")}
    written = scorekit("variants", "local_labels", "--family", "option_order", "--permutations", "swap",
                       "--harness", "lighteval", "--custom-tasks", str(LOCAL_TASKS), "--output-dir", str(tmp / "gen"), env=env)
    assert written.returncode == 0, written.stderr[-3000:]
    module = tmp / "gen" / "robust_lighteval_tasks.py"
    assert written.stdout.strip().endswith(str(module))
    # one --custom-tasks file: the CLI's module plus more families through the library call
    combined = tmp / "all_tasks.py"
    combined.write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('robust_cli_module', {str(module)!r})\n"
        "cli = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(cli)\n"
        "from scorekit.lighteval.task_variants import robust_tasks\n"
        f"TASKS_TABLE = cli.TASKS_TABLE + robust_tasks(['local_mc'], ['prompt'], custom_tasks={str(LOCAL_TASKS)!r}, templates={TEMPLATES!r})"
        f" + robust_tasks(['local_shown'], ['option_order'], custom_tasks={str(LOCAL_TASKS)!r})"
        f" + robust_tasks(['local_letters'], ['option_order'], custom_tasks={str(LOCAL_TASKS)!r})"
        f" + robust_tasks(['local_qa'], ['non_greedy', 'prompt'], custom_tasks={str(LOCAL_TASKS)!r}, templates={TEMPLATES!r}, samples={SAMPLES})\n")
    out = tmp / "out"
    tasks = ["robust_option_order_local_labels", "robust_option_order_local_shown", "robust_prompt_local_mc",
             "robust_non_greedy_local_qa", "robust_prompt_local_qa", "robust_option_order_local_letters"]
    run_lighteval(["custom", "scripted", str(MODEL), ",".join(f"{t}|0" for t in tasks), "--custom-tasks", str(combined),
                   "--output-dir", str(out), "--save-details"], env)
    calls = [json.loads(x) for x in (tmp / "calls.jsonl").read_text().splitlines()]
    report = scorekit("robustness", str(out), "--format", "json", env=env)
    assert report.returncode == 0, report.stderr[-3000:]
    return out, calls, json.loads(report.stdout), module


def family(report: dict, benchmark: str, fam: str) -> dict:
    [m] = report["models"]
    b = next(b for b in m["benchmarks"] if b["benchmark"] == benchmark)
    return next(f for f in b["families"] if f["family"] == fam)


def test_module_written_by_the_cli_names_the_tasks_and_pins_the_choices(run):
    *_, module = run
    text = module.read_text()
    assert text.startswith("# Generated by `scorekit variants`")
    assert "permutations='swap'" in text and "n_choices={'local_labels': 4}" in text


def test_every_arrangement_was_shown(run):
    _, calls, _, _ = run
    mc, labels = rows("mc"), rows("labels")
    seen = defaultdict(list)
    for c in calls:
        seen[c["task"].split("|")[0].split(":")[0]].append(c)
    # option order, options shown (nested choices.text) and scored as continuations: every rotation of
    # every question, the gold shown at the named letter, the choices in the order the query shows
    oo = seen["robust_option_order_local_shown"]
    assert len(oo) == sum(len(r["choices"]["text"]) for r in mc)
    queries = defaultdict(set)
    for c in oo:
        row = mc[int(c["robust"]["question_id"])]
        opts, letter = row["choices"]["text"], "ABCD"[c["robust"]["variant"]]
        assert sorted(x.strip() for x in c["choices"]) == sorted(opts)
        assert c["task"].split(":")[1] == f"position_{letter}|0"
        gold = row["choices"]["text"][row["choices"]["label"].index(row["answerKey"])]
        assert c["choices"][c["robust"]["variant"]].strip() == gold
        assert c["query"].split("\n")[1:-1] == [f"{k}. {x.strip()}" for k, x in zip("ABCD", c["choices"])]
        queries[c["robust"]["question_id"]].add(c["query"])
    # a different prompt per arrangement (one row has 3 options, one a repeated option text)
    assert {q: len(v) for q, v in queries.items()} == {str(i): len(r["choices"]["text"]) for i, r in enumerate(mc)}
    # labels: the options in the query move, the labels stay
    ol = seen["robust_option_order_local_labels"]
    assert len(ol) == 4 * len(labels)
    for c in ol:
        row = labels[int(c["robust"]["question_id"])]
        assert c["choices"] == [" A", " B", " C", " D"]
        assert f"\n{'ABCD'[c['robust']['variant']]}. {row['choices'][row['answer']]}\n" in c["query"] + "\n"
    assert {c["query"].split("\n")[0][:3] for c in seen["robust_prompt_local_qa"]} >= {"Q: "}
    assert all(c["num_samples"] == SAMPLES for c in seen["robust_non_greedy_local_qa"])
    assert len(seen["robust_non_greedy_local_qa"]) == len(rows("qa"))


@pytest.mark.parametrize("bench,fam", [("robust_local_shown", "option_order"), ("robust_local_labels", "option_order"),
                                           ("robust_local_mc", "prompt"), ("robust_local_qa", "prompt"),
                                           ("robust_local_qa", "non_greedy"), ("robust_local_letters", "option_order")])
def test_report_matches_independent_computation(run, bench, fam):
    _, _, report, _ = run
    got = family(report, bench, fam)
    if bench == "robust_local_letters":
        want = figures(expected_letters(), letters=True)
    elif fam == "option_order":
        want = figures(expected_option_order("mc" if bench == "robust_local_shown" else "labels"), letters=True)
    elif bench == "robust_local_mc":
        want = figures(expected_prompt_mc(), letters=False)
    else:
        want = figures(expected_generations(fam), letters=False)
    assert got["layout"] == "lighteval" and got["n_incomplete"] == 0
    assert got["n_questions"] == len(rows({"robust_local_mc": "mc", "robust_local_shown": "mc", "robust_local_labels": "labels",
                                           "robust_local_letters": "labels"}.get(bench, "qa")))
    if fam != "non_greedy":
        assert got["variant_accuracy"] == pytest.approx(want["variant_accuracy"], abs=1e-12)
    for key in ("accuracy", "consistency_rate", "unparsed_rate"):
        assert got[key] == pytest.approx(want[key], abs=1e-12), key
    if fam == "option_order":
        assert got["circular_accuracy"] == pytest.approx(want["circular_accuracy"], abs=1e-12)
    if fam == "non_greedy":
        raws = expected_generations("non_greedy").values()
        share = sum(len({x[3] for x in ans}) == 1 for ans in raws) / len(raws)
        assert got["identical_sample_rate"] == pytest.approx(share, abs=1e-12)
    # the scripted answers make every figure informative
    assert 0 < want["accuracy"] < 1 and 0 < want["consistency_rate"] < 1


def test_lighteval_results_hold_each_variant_accuracy(run):
    out, _, _, _ = run
    results = results_file(out, "scripted")["results"]
    for name, benchmark in (("mc", "local_shown"), ("labels", "local_labels")):
        want = figures(expected_option_order(name), letters=True)["variant_accuracy"]
        for letter, acc in want.items():
            assert results[f"robust_option_order_{benchmark}:position_{letter}|0"]["accuracy"] == pytest.approx(acc, abs=1e-12)
    ng = results["robust_non_greedy_local_qa|0"]
    want = figures(expected_generations("non_greedy"), letters=False)
    assert ng["non_greedy_accuracy"] == pytest.approx(want["accuracy"], abs=1e-12)
    assert ng["non_greedy_consistency_rate"] == pytest.approx(want["consistency_rate"], abs=1e-12)


def test_refusals_are_one_line_exit_2_nothing_written(tmp_path, lighteval_env):
    out = tmp_path / "gen"
    for extra in (["--include-path", str(tmp_path)], ["--choice-score", "acc_norm"],
                  ["--custom-tasks", str(tmp_path / "missing.py")]):
        proc = scorekit("variants", "local_mc", "--family", "option_order", "--harness", "lighteval",
                        "--output-dir", str(out), *extra, env=lighteval_env)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and not out.exists()
    # a cloze task (options never shown): option order would be a no-op, refused before anything is written
    proc = scorekit("variants", "local_mc", "--family", "option_order", "--harness", "lighteval",
                    "--custom-tasks", str(LOCAL_TASKS), "--output-dir", str(out), env=lighteval_env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("scorekit: error:")]  # lighteval's import noise aside
    assert proc.stderr.strip().endswith(line) and "local_mc" in line and "every arrangement would be the same prompt" in line
    assert not out.exists()


def test_generative_option_order_and_multiple_choice_sampling_are_refused():
    import importlib.util

    from scorekit.errors import ScorekitError
    from scorekit.lighteval.task_variants import robust_task_configs

    spec = importlib.util.spec_from_file_location("robust_local_tasks_t", LOCAL_TASKS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    by_name = {c.name: c for c in mod.TASKS_TABLE}
    with pytest.raises(ScorekitError, match="lighteval task local_qa: at most 1 choice.s. per question; nothing to permute"):
        robust_task_configs(by_name["local_qa"], "option_order")
    # a cloze task: its options are never shown, every arrangement would be the same prompt
    with pytest.raises(ScorekitError, match="lighteval task local_mc: row 0: option order needs the options shown .* "
                                            "every arrangement would be the same prompt"):
        robust_task_configs(by_name["local_mc"], "option_order")
    with pytest.raises(ScorekitError, match="generative"):
        robust_task_configs(by_name["local_mc"], "non_greedy")
    with pytest.raises(ScorekitError, match="at least two templates"):
        robust_task_configs(by_name["local_mc"], "prompt", templates=["{{question}}"])
    assert [c.name for c in robust_task_configs(by_name["local_shown"], "option_order", n_choices=3)] == [
        f"robust_option_order_local_shown:position_{x}" for x in "ABC"]


def test_results_file_alone_gives_the_per_variant_accuracies(run, tmp_path, lighteval_env):
    import shutil

    out, *_ = run
    shutil.copytree(out / "results", tmp_path / "results")
    proc = scorekit("robustness", str(tmp_path), "--format", "json", env=lighteval_env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    got = family(report, "robust_local_shown", "option_order")
    assert got["source"] == "results"
    want = figures(expected_option_order("mc"), letters=True)
    assert got["variant_accuracy"] == pytest.approx(want["variant_accuracy"], abs=1e-12)
    ng = family(report, "robust_local_qa", "non_greedy")
    assert ng["consistency_rate"] == pytest.approx(figures(expected_generations("non_greedy"), letters=False)["consistency_rate"])


@pytest.mark.hf
def test_accelerate_tiny_model_option_order_and_non_greedy(tiny_hf_model, lighteval_env, tmp_path):
    """The real transformers backend: lighteval's own ``acc`` of each position task (its
    ``loglikelihood_acc`` on the permuted Doc) equals the records' accuracy, and non-greedy
    sampling runs (scorekit's sampling patch) with every sample recorded."""
    tasks_file = tmp_path / "tasks.py"
    tasks_file.write_text(
        "from scorekit.lighteval.task_variants import robust_tasks\n"
        f"TASKS_TABLE = robust_tasks(['local_shown'], ['option_order'], custom_tasks={str(LOCAL_TASKS)!r})"
        f" + robust_tasks(['local_qa'], ['non_greedy'], custom_tasks={str(LOCAL_TASKS)!r}, samples=3)\n")
    out = tmp_path / "out"
    run_lighteval(["accelerate", f"model_name={tiny_hf_model},batch_size=8,cache_dir={tmp_path / 'cache'},"
                   "generation_parameters={temperature:0.7}",
                   "robust_option_order_local_shown|0,robust_non_greedy_local_qa|0", "--custom-tasks", str(tasks_file),
                   "--output-dir", str(out), "--save-details"], lighteval_env)
    model = str(tiny_hf_model).lstrip("/")
    results = results_file(out, model)["results"]
    for letter in "ABCD":
        r = results[f"robust_option_order_local_shown:position_{letter}|0"]
        assert r["accuracy"] == pytest.approx(r["acc"], abs=1e-12), letter
    from scorekit.robustness.readers import read_paths
    from scorekit.robustness.readers.lighteval_details import LightevalDetailsReader

    sets = {s.task.name: s for s in read_paths([out], readers=[LightevalDetailsReader()]).samples}
    assert len(sets["robust_option_order_local_shown"].records) == sum(len(r["choices"]["text"]) for r in rows("mc"))
    assert len(sets["robust_non_greedy_local_qa"].records) == 3 * len(rows("qa"))
    assert len(sets["robust_non_greedy_local_qa"].identical) == len(rows("qa"))
