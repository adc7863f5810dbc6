"""The rendered catalogue check of ``scorekit variants --family option_order`` (docs/variants.md,
"lm-eval's catalogue"), run by hand: every multiple-choice task of the installed lm-eval, each on
local rows in its dataset's real columns where tests/lm_eval/catalogue_rows.py has rows for it
(else offline without data), without and with ``--show-options``, written or refused in one
line; what is written is built as lm-eval builds it and checked independently
(tests/lm_eval/catalogue_check.py: every arrangement asks something new, the gold's text moves,
the continuation scored correct names the gold).

    python bench/variants_catalogue.py [--tasks REGEX] [--every N | --sample SIZE --seed SEED]
        [--part K/N] [--stop-after SECONDS] [--out OUT.jsonl]
    python bench/variants_catalogue.py --summarise OUT.jsonl [OUT.jsonl ...] [--sample SIZE --seed SEED]

``--every N`` takes every N-th task; ``--sample SIZE --seed SEED`` a simple random sample of SIZE
of them (``random.Random(SEED).sample`` over the names in sorted order, done in that sample's
order, so that with ``--stop-after SECONDS`` the tasks done in time are a simple random sample
too), and then also prints, for every count, its estimate over all the tasks matched (count /
tasks done x tasks matched) with a 95% Wilson interval (no finite-population correction, so the
intervals are slightly wide). ``--part K/N`` does the K-th of N interleaved parts of the chosen
tasks (tasks at positions K-1, K-1+N, ...), so that N processes share the work, each a simple
random sample of the sample too; ``--summarise`` prints the counts of the parts' outcome files
together. Prints, per mode, the counts (written and moving; refused; and the two that must be 0: written but not moving or not scoring the gold,
and crashes or answers of more than one line), the refusals by reason, and the folders without
rows; every task's outcome goes to OUT.jsonl as it is decided. Under lm-eval 0.4.13 a task takes
about 0.35 s of CPU per mode (two builds of the task: scorekit's check, then this one's).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")  # lm-eval loads metrics it lacks (f1) through evaluate, which retries the hub
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="variants_catalogue_hf_"))  # before datasets is imported
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MODES = {"option_order": (), "option_order --show-options": ("--show-options",)}


def reason(err: str) -> str:
    """A refusal's reason without the task name and the document's specifics."""
    text = err.strip().removeprefix("scorekit: error: ")
    text = re.sub(r"^task \S+: (document \d+: )?", "", text)
    return re.split(r"[:(;'\"]", text, maxsplit=1)[0].strip()[:90]


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion k/n (0 <= k <= n, n > 0)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=".*", help="regex over task names (search)")
    parser.add_argument("--every", type=int, default=1, help="take every N-th task")
    parser.add_argument("--sample", type=int, help="a simple random sample of this many tasks")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (with --sample)")
    parser.add_argument("--stop-after", type=float, help="take no new task after this many seconds (wall); the "
                        "counts are over the tasks done (with --sample: the first ones of the sample's random order)")
    parser.add_argument("--out", help="write every task's outcome here (JSON lines)")
    parser.add_argument("--part", help="K/N: the K-th of N interleaved parts of the tasks chosen")
    parser.add_argument("--summarise", nargs="+", metavar="OUT.jsonl", help="print the counts of these outcome files")
    args = parser.parse_args(argv)

    import datasets
    import lm_eval
    from lm_eval.tasks._index import Kind
    from lm_eval.tasks._yaml_loader import load_yaml

    from scorekit.lm_eval.task_variants_build import task_index as _task_index
    from tests.lm_eval.catalogue_check import LM_EVAL_TASKS, moves, run_variants, write_local
    from tests.lm_eval.catalogue_rows import rows_for

    datasets.disable_progress_bars()
    started, cpu = time.time(), time.process_time()
    index = _task_index(None)
    tasks = {}
    for name, entry in sorted(index.items()):
        if entry.kind is not Kind.TASK or not re.search(args.tasks, name):
            continue
        cfg = load_yaml(entry.yaml_path, resolve_func=False)
        if cfg.get("output_type") == "multiple_choice" and "class" not in cfg:
            tasks[name] = (entry, cfg)
    population = len(tasks)
    if args.sample is not None:
        # in the sample's own random order, so that the tasks done before --stop-after are a simple random sample too
        tasks = {n: tasks[n] for n in random.Random(args.seed).sample(sorted(tasks), min(args.sample, population))}
    else:
        tasks = dict(list(tasks.items())[:: args.every])
    if args.summarise:
        records = [json.loads(line) for f in args.summarise for line in Path(f).read_text(encoding="utf-8").splitlines()]
        return summarise(records, population, args)
    if args.part:
        k, n = (int(x) for x in args.part.split("/"))
        tasks = dict(list(tasks.items())[k - 1 :: n])
    work = Path(tempfile.mkdtemp(prefix="variants_catalogue_"))
    local_dir, plain_dir = work / "local", work / "plain"
    local_dir.mkdir()
    plain_dir.mkdir()
    plan: dict[str, tuple[str, Path, list | None]] = {}
    folder_of = {name: Path(e.yaml_path).resolve().relative_to(LM_EVAL_TASKS).parts[0] for name, (e, _) in tasks.items()}
    for name, (entry, cfg) in tasks.items():
        found = rows_for(name, entry.yaml_path, cfg)
        if found is None:
            plan[name] = (name, plain_dir, None)
        else:
            fixture, data = found
            plan[name] = (write_local(local_dir, name, entry.yaml_path, data, cfg, fixture.extra), local_dir,
                          [fixture.gold(r) for r in data])
    sink = open(args.out, "w", encoding="utf-8") if args.out else None
    records: list[dict] = []
    for i, (name, (local, include, golds)) in enumerate(plan.items()):
        if args.stop_after is not None and time.time() - started > args.stop_after:
            print(f"stopped after {i} of {len(plan)} tasks (--stop-after {args.stop_after:.0f} s)", file=sys.stderr, flush=True)
            break
        data = "rows" if golds is not None else "no rows"
        for mode, flags in MODES.items():
            out = work / "out" / f"{i}{len(flags)}"
            rc, err = run_variants(local, include, out, *flags)
            errors = [line for line in err.splitlines() if not line.startswith("scorekit: note: ")]
            record = {"task": name, "folder": folder_of[name], "mode": mode, "data": data}
            if rc == 0:
                problem = moves(out, local, golds) if golds is not None else None
                kind = "written, unchecked" if golds is None else "written, moves" if problem is None else "written, WRONG"
                record.update(outcome=kind, problem=problem)
            elif rc == 2 and len(errors) == 1 and errors[0].startswith("scorekit: error: "):
                record.update(outcome="refused", error=errors[0])
            else:
                record.update(outcome="CRASH or not one line", rc=str(rc), stderr=err[-500:])
            records.append(record)
            if "WRONG" in record["outcome"] or "CRASH" in record["outcome"]:
                print("BAD", json.dumps(record, ensure_ascii=False), file=sys.stderr, flush=True)
            if sink:
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                sink.flush()
        if (i + 1) % 250 == 0:
            print(f"... {i + 1}/{len(plan)} {time.process_time() - cpu:.0f} s CPU", file=sys.stderr, flush=True)
    print(f"lm-eval {lm_eval.__version__}: {time.process_time() - cpu:.0f} s CPU, {time.time() - started:.0f} s wall, "
          f"on {cpu_model()} ({os.cpu_count()} cores)")
    return summarise(records, population, args)


def summarise(records: list[dict], population: int, args: argparse.Namespace) -> int:
    """Print the counts of ``records`` (one per task and mode); 1 when any is wrong or crashed."""
    tasks = {r["task"]: r for r in records}
    rendered = {r["folder"] for r in tasks.values() if r["data"] == "rows"}
    print(f"{len(tasks)} multiple-choice tasks ({sum(r['data'] == 'rows' for r in tasks.values())} on local rows, "
          f"in {len(rendered)} of {len({r['folder'] for r in tasks.values()})} folders)")
    if args.sample is not None:
        print(f"simple random sample: {len(tasks)} of {population} tasks (seed {args.seed}); estimates over the "
              f"{population}: count / {len(tasks)} x {population}, 95% Wilson interval")
    print(f"folders without rows: {sorted({r['folder'] for r in tasks.values()} - rendered)}")
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    bad = []
    for r in records:
        counts[r["mode"]][f"{r['data']}: {r['outcome']}"] += 1
        if r["outcome"] == "refused":
            reasons[f"{r['mode']}, {r['data']}"][reason(r["error"])] += 1
        elif "WRONG" in r["outcome"] or "CRASH" in r["outcome"]:
            bad.append(json.dumps(r, ensure_ascii=False))
    for mode in MODES:
        print(f"{mode}:")
        totals = Counter({key: n for key, n in counts[mode].items()})
        for kind in ("written, moves", "written, unchecked", "refused", "written, WRONG", "CRASH or not one line"):
            totals[f"all: {kind}"] = sum(n for key, n in counts[mode].items() if key.endswith(": " + kind))
        for key, n in sorted(totals.items()):
            if args.sample is None:
                print(f"  {key}: {n}")
            elif n or key.startswith("all: "):
                low, high = wilson(n, len(tasks))
                print(f"  {key}: {n} of {len(tasks)}; estimate {n / len(tasks) * population:.0f} of {population} "
                      f"[{low * population:.0f}, {high * population:.0f}]")
    for key, by in sorted(reasons.items()):
        print(f"refusals ({key}):")
        for text, n in by.most_common():
            print(f"  {n:5d}  {text}")
    for line in bad[:40]:
        print("BAD", line)
    return 1 if bad else 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
