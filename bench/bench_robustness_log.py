"""`scorekit robustness` on a big samples log against a bare orjson parse of the same file.

The MMLU-Pro prompt family at full size (12,032 questions x 10 prompts =
120,320 lines of about 9 KB, about 1 GB), as scorekit's lm-eval task writes it with
``--log_samples``: each line holds the expanded document, the prompt, the model's output and
the line's SCORE record once per metric (18 metrics). No speed target (plain code, about 2x the
bare parse); the figures show what a user waits for.

The log is GENERATED under /tmp (never committed), then these are run side by side, each in its
own process, alternately, ``--repeat`` times:

- bare: ``orjson.loads`` of every line, nothing kept;
- scorekit: ``python -m scorekit robustness <log> --format json --output <tmp>``.

Printed: wall and CPU time (user + sys) of each (best and median), the ratio of the medians
(scorekit / bare), and each process's peak RSS; with ``--sizes`` also the figures at other
sizes (memory growth); with ``--stages`` where scorekit's time goes (CPU seconds in one
process: imports, the parse alone, reading the records, summaries and intervals, rendering).
The machine may be shared: the CPU times, and the ratio of runs made side by side, are the
figures to read.

    python bench/bench_robustness_log.py                      # full size (~1 GB)
    python bench/bench_robustness_log.py --questions 1200     # quick look (~100 MB)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATEGORIES = ["math", "physics", "chemistry", "law", "engineering", "other", "economics", "health",
              "psychology", "business", "biology", "philosophy", "computer science", "history"]
METRICS = [f"{i}_macro_accuracy" for i in range(10)] + [
    "accuracy_min", "accuracy_max", "accuracy_range", "accuracy_std", "consistency_rate",
    "consistency_rate_ci_low", "consistency_rate_ci_high", "unparsed_rate"]
LETTERS = "ABCDEFGHIJ"
STAMP = "2026-01-01T00-00-00.000000"


def _words(rng: random.Random, n: int) -> str:
    vocab = ["the", "value", "of", "a", "function", "given", "which", "following", "is", "energy", "court",
             "market", "cell", "reaction", "temperature", "argument", "theory", "system", "rate", "increase"]
    return " ".join(rng.choice(vocab) for _ in range(n))


def generate(path: Path, questions: int, prompts: int = 10, seed: int = 0) -> int:
    """Write the log; returns its size in bytes."""
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for q in range(questions):
            question = _words(rng, 200)  # ~1.2 KB, MMLU-Pro's long questions
            options = [_words(rng, 10) for _ in range(10)]
            gold = rng.randrange(10)
            category = CATEGORIES[q % len(CATEGORIES)]
            for v in range(prompts):
                doc = {"question_id": str(70000 + q), "benchmark": "mmlu_pro", "family": "prompt", "variant": v,
                       "n_variants": prompts, "category": category, "question": question, "options": options,
                       "option_map": [], "canonical_map": [], "gold_index": gold, "gold": options[gold],
                       "gold_canonical": gold, "answer": LETTERS[gold], "src": f"ori_mmlu-{category}"}
                prompt = (f"Question: {question}\n" + "".join(f"{LETTERS[i]}: {o}\n" for i, o in enumerate(options))
                          + "Examine the question and choose the correct answer. " + _words(rng, 40))
                letter = LETTERS[rng.randrange(10)] if rng.random() < 0.95 else "none"
                output = "Let's think step by step. " + _words(rng, 200) + f" The best answer is {letter}."
                record = [str(70000 + q), "prompt", v, prompts, category, LETTERS.find(letter), letter == LETTERS[gold]]
                line = {"doc_id": q * prompts + v, "doc": doc, "target": LETTERS[gold],
                        "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": {"until": ["</s>"], "max_gen_toks": 2048,
                                                                                 "do_sample": False}}},
                        "resps": [[output]], "filtered_resps": [output], "filter": "none", "metrics": METRICS,
                        "doc_hash": "%064x" % rng.getrandbits(256), "prompt_hash": "%064x" % rng.getrandbits(256),
                        "target_hash": "%064x" % rng.getrandbits(256)}
                for m in METRICS:
                    line[m] = record
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path.stat().st_size


STAGES = """
import sys, time
clock = time.process_time
t = clock()
import numpy, scipy.special
from scorekit.harness_outputs.samples import iter_samples
from scorekit.robustness.readers import read_paths
from scorekit.robustness.report import build_report, render_report
t_import = clock() - t
t = clock()
for _ in iter_samples(sys.argv[1]):
    pass
t_parse = clock() - t
t = clock()
read = read_paths([sys.argv[1]])
t_read = clock() - t
t = clock()
report = build_report(read)
t_build = clock() - t
t = clock()
render_report(report, "json")
t_render = clock() - t
n = sum(len(s.records) for s in read.samples)
print(f"  stages (CPU s): imports {t_import:.2f} (numpy, scipy.special, scorekit); parse alone {t_parse:.2f}; "
      f"records {t_read - t_parse:.2f} over the parse ({(t_read - t_parse) / n * 1e6:.1f} us an answer: "
      f"extraction, scoring); summaries + intervals {t_build:.2f}; render {t_render:.3f}")
"""

BARE = "import orjson, sys\nloads = orjson.loads\nwith open(sys.argv[1], 'rb') as fh:\n    for line in fh:\n        loads(line)\n"


def _run(cmd: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + sys) and peak RSS (bytes) of one child process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "plugin") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def measure(log: Path, repeat: int) -> dict:
    out = Path(tempfile.mkdtemp()) / "report.json"
    bare_cmd = [sys.executable, "-c", BARE, str(log)]
    sk_cmd = [sys.executable, "-m", "scorekit", "robustness", str(log), "--format", "json", "--output", str(out)]
    bare, sk = [], []
    for _ in range(repeat):
        bare.append(_run(bare_cmd))
        sk.append(_run(sk_cmd))
    report = json.loads(out.read_text())
    (model,) = report["models"]
    (fam,) = model["benchmarks"][0]["families"]
    return {"bare": bare, "scorekit": sk, "questions": fam["n_questions"]}


def _line(label: str, runs: list[tuple[float, float, int]]) -> str:
    wall, cpu = [w for w, _, _ in runs], [c for _, c, _ in runs]
    return (f"  {label}: wall best {min(wall):.2f} s, median {statistics.median(wall):.2f} s; CPU best {min(cpu):.2f} s, "
            f"median {statistics.median(cpu):.2f} s; peak RSS {max(m for _, _, m in runs) / 1e6:.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=12032)
    ap.add_argument("--sizes", type=int, nargs="*", default=[], help="also measure at these question counts")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/scorekit-bench-robustness")
    ap.add_argument("--keep", action="store_true", help="keep the generated logs")
    ap.add_argument("--stages", action="store_true", help="also time scorekit's stages (one more process)")
    args = ap.parse_args()
    for n in [args.questions, *args.sizes]:
        log = Path(args.dir) / f"n{n}" / "org__model" / f"samples_score_prompt_robustness_mmlu_pro_{STAMP}.jsonl"
        if not log.exists():
            t = time.perf_counter()
            size = generate(log, n)
            print(f"generated {log} ({size / 1e6:.0f} MB) in {time.perf_counter() - t:.0f} s", flush=True)
        size = log.stat().st_size
        r = measure(log, args.repeat)
        ratio = {k: statistics.median(x[k] for x in r["scorekit"]) / statistics.median(x[k] for x in r["bare"]) for k in (0, 1)}
        print(f"{n} questions x 10 prompts, {size / 1e6:.0f} MB, {size / (n * 10) / 1e3:.1f} KB a line, "
              f"{r['questions']} questions in the report; load average {os.getloadavg()[0]:.1f}")
        print(_line("bare orjson parse  ", r["bare"]))
        print(_line("scorekit robustness", r["scorekit"]))
        print(f"  ratio (medians, side by side): {ratio[0]:.2f}x the bare parse (wall), {ratio[1]:.2f}x (CPU)", flush=True)
        if args.stages:
            env = dict(os.environ, PYTHONPATH=str(ROOT / "plugin") + os.pathsep + os.environ.get("PYTHONPATH", ""))
            subprocess.run([sys.executable, "-c", STAGES, str(log)], env=env, check=True)
        if not args.keep:
            log.unlink()


if __name__ == "__main__":
    main()
