"""Benchmark: time spent in scorekit's SCORE prompt-robustness task code vs the whole lm-eval run,
and vs lm-eval's own (upstream) SCORE task on the same data, in the same process.

Setup: N MMLU-Pro-shaped questions (default 1,000; 10 options, 14 categories) in a local JSONL
file; ``score_prompt_robustness_mmlu_pro`` expands them to N x 10 documents. Both scorekit's task
and upstream's task (``lm_eval/tasks/score/mmlu_pro``) are loaded through include YAMLs that only
swap the dataset for that file, and run with ``lm_eval.simple_evaluate`` on the same scripted fake
model (tests/support/fake_lm.py): 60% correct, 30% a wrong letter, 10% no answer phrase.

Measured by wrapping, before the task is loaded, every ``!function`` the task's YAML (and its
includes) names, in the module lm-eval resolves it from (wall time, ``time.perf_counter``):
``process_docs`` (document expansion; lm-eval calls it once at task construction and again each
time it lists the documents), ``doc_to_text`` (prompt rendering), ``process_results`` (answer
extraction and scoring per document) and every metric aggregation. "Whole run" = task loading
(dataset read) + ``simple_evaluate`` (which includes ~1.5 s of lm-eval's environment report).

Each timed run starts from a full garbage collection (``gc.collect()``, not timed), so the
garbage one run leaves cannot make a collection land in the next run's timers; with
``--repeat R`` the implementations alternate which goes first, and the table shows each one's
median run (by adapter time) with the min and median over the runs below it. scorekit keeps no
state from one run to the next that could make a later run cheaper (its caches are keyed by the
identity of that run's objects).

Guard: scorekit's adapter time no more than upstream's (ratio scorekit / upstream of the median
runs <= 1), printed as ``GUARD ...: <ratio> (guard <= 1) PASS|FAIL`` (exit status 1 on FAIL);
target: < 10% of the whole run.

    python bench/bench_score_suite.py [--questions N] [--repeat R]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

TASK = "score_prompt_robustness_mmlu_pro"
CATEGORIES = ["biology", "business", "chemistry", "computer science", "economics", "engineering", "health",
              "history", "law", "math", "other", "philosophy", "physics", "psychology"]
LETTERS = "ABCDEFGHIJ"


def write_questions(path: Path, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            gold = rng.randrange(10)
            row = {
                "question_id": i,
                "question": f"Question {i}: " + " ".join(rng.choice(["which", "value", "the", "of", "is", "best", "a"]) for _ in range(30)) + "?",
                "options": [f"option {k} for question {i}: " + "x" * rng.randrange(5, 40) for k in range(10)],
                "answer": LETTERS[gold],
                "answer_index": gold,
                "cot_content": "",
                "category": CATEGORIES[i % len(CATEGORIES)],
                "src": "bench",
            }
            f.write(json.dumps(row) + "\n")


def write_include(dest: Path, include: Path, data: Path, extra: str = "") -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "task.yaml").write_text(
        f"include: {include}\ntask: {TASK}\ndataset_path: json\ndataset_name: null\n"
        f"dataset_kwargs:\n  data_files:\n    test: {data}\n{extra}",
        encoding="utf-8",
    )
    return dest


def fake_answer(doc: dict) -> str:
    """Deterministic per (question, prompt): 60% correct, 30% another letter, 10% no phrase."""
    qid = int(str(doc["question_id"]).rsplit("/", 1)[-1])
    p = int(doc["prompt_id"] if "prompt_id" in doc else doc["variant"])
    h = (qid * 31 + p * 7) % 10
    if h < 6:
        return f"Let me think step by step.\nThe best answer is {doc['answer']}."
    if h < 9:
        return f"Reasoning...\nThe best answer is {LETTERS[(qid + p) % 10]}."
    return "I am not sure about this one."


class Timer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def wrap(self, name: str, fn):
        def wrapped(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - t0
                self.calls[name] += 1

        return wrapped

    def total(self) -> float:
        return sum(self.seconds.values())


_FUNCTION = re.compile(r"^\s*(?:-\s*)?(\w+):\s*!function\s+([\w.]+)", re.M)
_INCLUDE = re.compile(r"^include:\s*(\S+)", re.M)
CATEGORIES_OF = {"process_docs": "process_docs", "doc_to_text": "doc_to_text", "process_results": "process_results",
                 "aggregation": "aggregation"}


def yaml_functions(path: Path) -> list[tuple[str, str, Path]]:
    """(YAML key, dotted function name, YAML folder) for every !function in a YAML and its includes."""
    text = path.read_text(encoding="utf-8")
    found = [(k, q, path.parent) for k, q in _FUNCTION.findall(text)]
    for inc in _INCLUDE.findall(text):
        inc_path = Path(inc) if Path(inc).is_absolute() else path.parent / inc
        found += yaml_functions(inc_path)
    return found


def install_timers(yaml_path: Path, timer: Timer) -> list[tuple[object, str, object]]:
    """Wrap every adapter function the task YAML names, in the module lm-eval will take it from
    (a file next to the YAML through lm-eval's module cache, else an importable module)."""
    import importlib

    from lm_eval.tasks._yaml_loader import _load_module_with_cache

    patched = []
    for key, qual, base in yaml_functions(yaml_path):
        if key not in CATEGORIES_OF:
            continue
        mod_name, fn_name = qual.rsplit(".", 1)
        local = (base / (mod_name.replace(".", "/") + ".py")).resolve()
        module = _load_module_with_cache(local) if local.exists() else importlib.import_module(mod_name)
        original = getattr(module, fn_name)
        if getattr(original, "_bench_wrapped", False):
            continue
        wrapped = timer.wrap(CATEGORIES_OF[key], original)
        wrapped._bench_wrapped = True  # type: ignore[attr-defined]
        setattr(module, fn_name, wrapped)
        patched.append((module, fn_name, original))
    return patched


def run_once(include_dir: Path) -> tuple[Timer, float, float, dict]:
    import lm_eval
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    timer = Timer()
    patched = install_timers(include_dir / "task.yaml", timer)
    gc.collect()
    try:
        t0 = time.perf_counter()
        tm = TaskManager(include_path=[str(include_dir)], include_defaults=False)
        task = tm.load([TASK])["tasks"][TASK]
        t_load = time.perf_counter() - t0
        lm = ScriptedLM(generate=lambda context, gen_kwargs, doc: fake_answer(doc))
        t1 = time.perf_counter()
        out = lm_eval.simple_evaluate(model=lm, tasks=[task], task_manager=tm, log_samples=False, verbosity="ERROR")
        t_eval = time.perf_counter() - t1
    finally:
        for module, name, original in patched:
            setattr(module, name, original)
    missing = [c for c in CATEGORIES_OF.values() if not timer.calls[c]]
    if missing:
        raise RuntimeError(f"timers for {missing} were never called: the wrapping missed lm-eval's functions")
    return timer, t_load, t_eval, out["results"][TASK]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=1000, help="MMLU-Pro-shaped questions (default 1000)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per implementation (min and median reported)")
    args = ap.parse_args()

    import logging
    import statistics

    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    import lm_eval  # noqa: F401  (import cost outside the measurement)

    from scorekit.resources import tasks_dir
    from scorekit.robustness.templates import upstream_score_dir

    work = Path(tempfile.mkdtemp(prefix="bench_score_"))

    def includes(tag: str, n: int) -> dict[str, Path]:
        data = work / f"mmlu_pro_{tag}.jsonl"
        write_questions(data, n)
        return {
            "scorekit": write_include(work / f"scorekit_{tag}", tasks_dir() / "score" / "mmlu_pro" / f"{TASK}.yaml", data),
            "upstream": write_include(work / f"upstream_{tag}", upstream_score_dir() / "mmlu_pro" / f"{TASK}.yaml", data,
                                      "validation_split: null\n"),
        }

    # Warm-up on a few questions: one-time imports and lm-eval/datasets set-up stay out of the numbers.
    for inc in includes("warmup", 5).values():
        run_once(inc)
    impls = includes("main", args.questions)
    print(f"{args.questions} questions x 10 prompts = {args.questions * 10} documents; "
          f"fake LM; {args.repeat} run(s) per implementation, order alternating\n")
    runs: dict[str, list[tuple[Timer, float, float, dict]]] = {name: [] for name in impls}
    for r in range(args.repeat):
        for name in (list(impls) if r % 2 == 0 else list(impls)[::-1]):
            runs[name].append(run_once(impls[name]))

    def adapter(run) -> float:
        return run[0].total()

    def whole(run) -> float:
        return run[1] + run[2]

    median_run = {name: sorted(rs, key=adapter)[(len(rs) - 1) // 2] for name, rs in runs.items()}
    header = f"{'':10} {'process_docs':>13} {'doc_to_text':>12} {'process_res':>12} {'aggregation':>12} {'adapter':>9} {'whole run':>10} {'share':>7}"
    print(header)
    for name, run in median_run.items():
        timer = run[0]
        calls = ", ".join(f"{k} x{v}" for k, v in timer.calls.items() if k != "doc_to_text")
        s = timer.seconds
        print(f"{name:10} {s['process_docs']:13.3f} {s['doc_to_text']:12.3f} {s['process_results']:12.3f} "
              f"{s['aggregation']:12.3f} {timer.total():9.3f} {whole(run):10.3f} {timer.total() / whole(run):7.1%}   ({calls})")
    for name, rs in runs.items():
        ad, wh = [adapter(x) for x in rs], [whole(x) for x in rs]
        shares = [adapter(x) / whole(x) for x in rs]
        print(f"  {name}: adapter min {min(ad):.3f} median {statistics.median(ad):.3f} s; whole run min {min(wh):.3f} "
              f"median {statistics.median(wh):.3f} s; share min {min(shares):.1%} median {statistics.median(shares):.1%}")
    sk_ad = [adapter(x) for x in runs["scorekit"]]
    up_ad = [adapter(x) for x in runs["upstream"]]
    sk_share = [adapter(x) / whole(x) for x in runs["scorekit"]]
    ratio_med = statistics.median(sk_ad) / statistics.median(up_ad)
    print(f"\nadapter time scorekit / upstream = {ratio_med:.3f} (medians; mins: {min(sk_ad) / min(up_ad):.3f})  (target <= 1)")
    passed = ratio_med <= 1
    print(f"GUARD SCORE task code vs upstream (adapter time, medians): {ratio_med:.3f} (guard <= 1) "
          f"{'PASS' if passed else 'FAIL'}; upstream / scorekit = {1 / ratio_med:.2f}x")
    print(f"scorekit adapter share of its whole run = {statistics.median(sk_share):.1%} (median; max {max(sk_share):.1%})  (target < 10%)")
    print(f"whole run scorekit / upstream = {statistics.median(whole(x) for x in runs['scorekit']) / statistics.median(whole(x) for x in runs['upstream']):.3f} (medians)")
    sk, up = median_run["scorekit"], median_run["upstream"]
    acc_sk = [sk[3][f"{i}_macro_accuracy,none"] for i in range(10)]
    acc_up = [up[3][f"{i}_macro_accuracy,none"] for i in range(10)]
    print(f"\nsanity: prompt-0 macro accuracy scorekit {acc_sk[0]:.4f} upstream {acc_up[0]:.4f}; "
          f"CR scorekit {sk[3]['consistency_rate,none']:.4f} upstream {up[3]['consistency_rate,none']:.4f} "
          "(upstream counts identical unparsed text as agreeing)")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
