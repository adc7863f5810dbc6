"""Paired bootstrap over questions: drawing row indices (plain) vs multinomial counts of the
distinct rows (scorekit.metrics.intervals), side by side in one run.

    python bench/bench_intervals.py   # the 10 per-prompt accuracies of two MMLU-Pro runs
                                      # (12,032 questions, 2000 draws): what compare does

Both give the same distribution of resampled means (drawing Q rows with replacement gives each
distinct row a Multinomial(Q, share) count). Prints seconds per comparison and the ratio.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin"))

from scorekit.metrics.intervals import paired_bootstrap  # noqa: E402


def plain_indices(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    q = len(a)
    d = a.astype(np.float64) - b
    draws = np.empty(n_boot)
    step = max(1, 4_000_000 // q)
    for start in range(0, n_boot, step):
        idx = rng.integers(0, q, size=(min(step, n_boot - start), q))
        draws[start:start + len(idx)] = d[idx].mean(axis=1)
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return float(lo), float(hi)


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(1)
    q, n_boot = 12_032, 2000
    pairs = []
    for _ in range(10):  # one pair of 0/1 vectors per prompt
        a = rng.random(q) < 0.45
        pairs.append((a, np.where(rng.random(q) < 0.85, a, rng.random(q) < 0.4)))
    t_plain = best_of(lambda: [plain_indices(a, b, n_boot) for a, b in pairs])
    t_ours = best_of(lambda: [paired_bootstrap(a, b, n_boot=n_boot) for a, b in pairs])
    print(f"questions={q} draws={n_boot} metrics={len(pairs)}")
    a, b = pairs[0]
    print(f"plain index resampling : {t_plain:.3f} s  (prompt 0: interval {plain_indices(a, b, n_boot)})")
    r = paired_bootstrap(a, b, n_boot=n_boot)
    print(f"distinct-row multinomial: {t_ours:.4f} s  (prompt 0: interval ({r.ci_low}, {r.ci_high}))")
    print(f"ratio: {t_plain / t_ours:.0f}x")


if __name__ == "__main__":
    main()
