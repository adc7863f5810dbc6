"""Benchmark: `scorekit rank` on large rank files vs. just parsing them.

Writes three rank files (one ``"org/model": rank,`` entry per line, as a leaderboard dump has
them) and times, in one run on a warm page cache:

* reference: read the file and ``ast.parse`` it (Python's parser, the least any reader that
  never runs the file pays),
* scorekit:  ``scorekit rank FILE --output OUT`` in-process (parse, check, rank, the intervals
  and rank ranges, render the table, atomic write), with its parse / rank / render parts.

The files:

* ``one``: N models on one leaderboard (no model has an interval; N = 100,000 took 428 s
  before the rank ranges compared only models with intervals);
* ``six``: N models over six leaderboards, each holding a random 60% of them with ranks
  following the model's strength plus noise (most models have intervals; above
  5,000 of them the rank ranges are left out);
* ``ranged``: 5,000 models on all six leaderboards, the largest file whose rank ranges
  are computed (25 million pairs of models).

Run: ``python bench/bench_rank.py [--models 100000] [--repeat 3] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _names(n: int, rng: random.Random) -> list[str]:
    sizes = ("0.5B", "1.5B", "3B", "7B", "8B", "14B", "32B", "70B")
    kinds = ("", "-Instruct", "-chat", "-DPO", "-merge-v2")
    return [f"org-{rng.randrange(3000)}/model-{i}-{rng.choice(sizes)}{rng.choice(kinds)}" for i in range(n)]


def write_one(path: Path, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    names = _names(n, rng)
    lines = ["# one leaderboard's rows", "Leaderboard={"]
    lines += [f'    "{m}": {r},' for r, m in enumerate(names, start=1)]
    lines += [f'    "known_totals": {n},', "}", "{}"]
    path.write_text("\n".join(lines) + "\n")


def write_six(path: Path, n: int, seed: int = 0, share: float = 0.6) -> None:
    rng = random.Random(seed)
    names = _names(n, rng)
    strength = {m: rng.random() for m in names}
    lines = []
    for b in range(6):
        held = [m for m in names if rng.random() < share]
        held.sort(key=lambda m: strength[m] + rng.gauss(0, 0.15))
        lines.append(f"Board{b}={{")
        lines += [f'    "{m}": {r},' for r, m in enumerate(held, start=1)]
        lines += [f'    "known_totals": {len(held) + rng.randrange(50)},', "}"]
    lines.append("{" + ", ".join(f'"{m}": {rng.randrange(1, 900)}' for m in names[: n // 10]) + "}")
    path.write_text("\n".join(lines) + "\n")


def parse_only(path: Path) -> float:
    t0 = time.perf_counter()
    ast.parse(path.read_bytes())
    return time.perf_counter() - t0


def scorekit_parts(path: Path) -> tuple[float, float, float]:
    from scorekit.leaderboards import rank

    t0 = time.perf_counter()
    data = rank.read_rank_file(path)
    t1 = time.perf_counter()
    rows = rank.compute_ranking(data)
    t2 = time.perf_counter()
    rank.render_ranking(rows)
    return t1 - t0, t2 - t1, time.perf_counter() - t2


def scorekit_run(path: Path, target: Path) -> float:
    from scorekit.cli import main

    devnull = open(os.devnull, "w")
    old_err = sys.stderr
    sys.stderr = devnull  # the notes
    try:
        t0 = time.perf_counter()
        code = main(["rank", str(path), "--output", str(target)])
        elapsed = time.perf_counter() - t0
    finally:
        sys.stderr = old_err
        devnull.close()
    if code != 0:
        raise SystemExit(f"scorekit rank exited with {code}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", metavar="DIR", help="write the files here and keep them (default: a temp dir, removed)")
    args = ap.parse_args()

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="scorekit-bench-rank-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        files = {"one": root / "one.txt", "six": root / "six.txt", "ranged": root / "ranged.txt"}
        write_one(files["one"], args.models)
        write_six(files["six"], args.models)
        write_six(files["ranged"], 5_000, share=1.0)
        cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
        print(f"CPU: {cpu}, {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}")
        for name, path in files.items():
            ref, total, parts = [], [], []
            for _ in range(args.repeat):
                ref.append(parse_only(path))
                total.append(scorekit_run(path, root / "out.txt"))
                parts.append(scorekit_parts(path))
            mb = path.stat().st_size / 1e6
            p, c, r = (statistics.median(x) for x in zip(*parts))
            print(f"{name:7s} {mb:6.1f} MB  ast.parse {statistics.median(ref):6.2f} s   scorekit rank "
                  f"{statistics.median(total):6.2f} s (read {p:.2f} + rank {c:.2f} + table {r:.2f})   "
                  f"ratio {statistics.median(total) / statistics.median(ref):.1f}x (medians of {args.repeat})")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
