"""Benchmark scorekit's metric core against the reference implementations, in one process.

    python bench/bench_metrics.py            # full sizes
    python bench/bench_metrics.py --quick    # smaller sizes, a few seconds

1. Consistency rate over 12,032 questions x 10 answers (MMLU-Pro size; letters A-J, ~2%
   unparsed) vs lm-eval's ``lm_eval.tasks.score.utils.calculate_consistency_rate``.
2. G-Pass@k (k in 4, 8, 16; tau in 0, .25, .5, .75, 1) and mG-Pass@k for 100,000 questions with
   n = 48 vs lighteval's per-question ``GPassAtK.g_pass_at_k``. lighteval needs ~1 ms per
   question, so it is timed on a random subset (``--reference-questions``, all of them with
   ``--reference-questions 100000``) and its time for the full set is extrapolated linearly;
   the values are compared on that subset.
Timings are the best of several repeats (``time.perf_counter``), scorekit and the reference
interleaved so that load from other processes hits both alike. The CR is plain code (a
``Counter`` per question) with no speed target: its figures are printed, and the run fails if
its value differs from lm-eval's. Guard, printed as a ``GUARD ...: <ratio>x (guard >= Nx)
PASS|FAIL`` line (exit status 1 if it fails): G-Pass >= 50x.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np


def best_time(fn, repeats: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def times(fn, repeats: int) -> tuple[list[float], object]:
    out, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        out.append(time.perf_counter() - t0)
    return out, result


def guard(label: str, ratio: float, target: float) -> bool:
    """Print one guard line, ``GUARD <label>: <ratio>x (guard >= <target>x) PASS|FAIL``; True on PASS."""
    ok = ratio >= target
    print(f"GUARD {label}: {ratio:.1f}x (guard >= {target:g}x) {'PASS' if ok else 'FAIL'}")
    return ok


def bench_cr(n_questions: int, repeats: int) -> bool:
    from lm_eval.tasks.score.utils import calculate_consistency_rate

    from scorekit.metrics import consistency_rate, consistency_rate_interval

    rng = np.random.default_rng(0)
    letters = np.array(list("ABCDEFGHIJ"), dtype=object)
    favourite = rng.integers(0, 10, n_questions)[:, None]
    other = rng.integers(0, 10, (n_questions, 10))
    answers = np.where(rng.random((n_questions, 10)) < 0.7, favourite, other)
    groups = letters[answers].tolist()
    for q, i in zip(*np.nonzero(rng.random((n_questions, 10)) < 0.02)):
        groups[q][i] = None
    # lm-eval counts None == None as agreement; compare the values on the parsed-only input
    clean = [[a for a in g if a is not None] for g in groups]
    # interleaved, so that load from other processes hits both sides alike; the CPU time of
    # this thread (time.thread_time) is also recorded, as it does not count time spent waiting
    # for a core on a shared machine
    wall = {"ours": [], "ref": []}
    cpu = {"ours": [], "ref": []}
    for _ in range(repeats):
        for side, fn in (("ours", lambda: consistency_rate(groups)), ("ref", lambda: calculate_consistency_rate(groups))):
            w0, c0 = time.perf_counter(), time.thread_time()
            value = fn()
            cpu[side].append(time.thread_time() - c0)
            wall[side].append(time.perf_counter() - w0)
            if side == "ours":
                ours = value
    same = consistency_rate(clean) == calculate_consistency_rate(clean)
    print(f"Consistency rate, {n_questions:,} questions x 10 answers (best / median of {repeats}, ms)")
    for label, side in (("scorekit consistency_rate         ", "ours"), ("lm-eval calculate_consistency_rate", "ref")):
        print(f"  {label}  wall {min(wall[side]) * 1e3:7.2f} / {np.median(wall[side]) * 1e3:7.2f}"
              f"   cpu {min(cpu[side]) * 1e3:7.2f} / {np.median(cpu[side]) * 1e3:7.2f}")
    ratio = {kind: (min(t["ref"]) / min(t["ours"]), float(np.median(t["ref"]) / np.median(t["ours"])))
             for kind, t in (("wall", wall), ("cpu", cpu))}
    print(f"  speed-up: wall {ratio['wall'][0]:.1f}x best, {ratio['wall'][1]:.1f}x median; "
          f"cpu {ratio['cpu'][0]:.1f}x best, {ratio['cpu'][1]:.1f}x median")
    print(f"  CR = {ours:.6f}; values equal on the parsed answers: {same}")
    passed = same

    consistency_rate_interval(groups[:20])  # the first call imports scipy.special
    t0 = time.perf_counter()
    interval = consistency_rate_interval(groups)
    print(f"  consistency_rate_interval (Korn-Graubard, no resampling): {(time.perf_counter() - t0) * 1e3:.1f} ms  "
          f"[{interval[0]:.4f}, {interval[1]:.4f}]")
    return passed


def bench_gpass(n_questions: int, n_reference: int, repeats: int) -> bool:
    from lighteval.metrics.metrics_sample import GPassAtK

    from scorekit.metrics import g_pass_at_k, mg_pass_at_k

    n, ks, taus = 48, (4, 8, 16), (0.0, 0.25, 0.5, 0.75, 1.0)
    rng = np.random.default_rng(1)
    c = rng.binomial(n, rng.beta(0.7, 0.7, n_questions))

    def ours():
        out = {}
        for k in ks:
            for t in taus:
                out[f"g-pass@{k}_{t}"] = g_pass_at_k(n, c, k, t)
            out[f"mg-pass@{k}"] = mg_pass_at_k(n, c, k)
        return out

    t_ours, values = best_time(ours, repeats)
    metric = GPassAtK(k=list(ks), n=n, thresholds=list(taus), sample_scoring_function=lambda doc, resp: 0)
    subset = rng.choice(n_questions, min(n_reference, n_questions), replace=False)
    score_lists = [[1] * int(c[i]) + [0] * (n - int(c[i])) for i in subset]
    t0 = time.perf_counter()
    ref = [metric.g_pass_at_k(s) for s in score_lists]
    t_ref_subset = time.perf_counter() - t0
    t_ref = t_ref_subset * n_questions / len(subset)
    max_diff = max(abs(values[key][i] - r[key]) for j, i in enumerate(subset) for key in [*values] for r in [ref[j]])
    print(f"G-Pass@k (k in {ks}, tau in {taus}) + mG-Pass@k, {n_questions:,} questions, n = {n}")
    print(f"  scorekit g_pass_at_k / mg_pass_at_k   {t_ours * 1e3:9.2f} ms   (18 metric columns)")
    print(f"  lighteval GPassAtK.g_pass_at_k        {t_ref:9.2f} s    "
          f"({'measured' if len(subset) == n_questions else f'{t_ref_subset:.2f} s on {len(subset):,} questions, extrapolated'})")
    print(f"  speed-up {t_ref / t_ours:8.1f}x (target >= 50x); max |difference| on the compared questions: {max_diff:.2e}")
    return guard("G-Pass@k vs lighteval GPassAtK", t_ref / t_ours, 50) and max_diff < 1e-9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (CR 2,000 questions, G-Pass 10,000)")
    parser.add_argument("--reference-questions", type=int, default=None,
                        help="questions lighteval is timed on (default 5,000; 500 with --quick)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    n_cr, n_gp = (2000, 10_000) if args.quick else (12_032, 100_000)
    n_ref = args.reference_questions or (500 if args.quick else 5000)
    repeats = 3 if args.quick else 7
    print(f"load average {os.getloadavg()[0]:.2f} (2-core machine shared with other work)")
    passed = bench_cr(n_cr, repeats)
    print()
    passed = bench_gpass(n_gp, n_ref, repeats) and passed
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
