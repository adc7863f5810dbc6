"""Power of the exact McNemar test at the size `scorekit plan` gives, by simulation (docs/plan.md).

    python bench/sim_power.py               # 20,000 simulated evaluations per row (seconds)
    python bench/sim_power.py --runs 4000

Each row: the planned number of questions for (difference, discordance) at alpha 0.05 and power
0.8 (scorekit.compare.power.mcnemar_sample_size), then --runs evaluations of that many questions
drawn as Multinomial(N; p10, p01, 1 - p10 - p01), each tested with the exact two-sided McNemar
test (2 P(X <= min(n10, n01)) under Binomial(nd, 1/2), capped at 1). Prints a markdown table:
the simulated power must lie within 3 points of the target. Also the minimum detectable
difference at N questions, simulated the same way.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin"))

from scorekit.compare.power import mcnemar_mdd, mcnemar_sample_size  # noqa: E402

CASES = [(0.02, 0.05), (0.02, 0.1), (0.05, 0.1), (0.05, 0.2), (0.03, 0.3), (0.1, 0.15), (0.1, 0.3), (0.2, 0.25)]
MDD_CASES = [(100, 0.12), (500, 0.12), (1000, 0.2), (2000, 0.1)]


def simulated_power(n: int, delta: float, discordance: float, runs: int, rng: np.random.Generator,
                    alpha: float = 0.05) -> float:
    p10, p01 = (discordance + delta) / 2, (discordance - delta) / 2
    cells = rng.multinomial(n, [p10, p01, 1 - discordance], size=runs)
    n10, n01 = cells[:, 0], cells[:, 1]
    nd = n10 + n01
    p = np.where(nd > 0, np.minimum(1.0, 2 * binom.cdf(np.minimum(n10, n01), nd, 0.5)), 1.0)
    return float(np.mean(p <= alpha))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20_000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    start = time.process_time()
    print("| difference | discordance | Connor N | simulated power at Connor N | planned N (exact) | exact power | simulated power |")
    print("|---|---|---|---|---|---|---|")
    for delta, psi in CASES:
        n, exact, connor = mcnemar_sample_size(delta, psi)
        sim = simulated_power(n, delta, psi, args.runs, rng)
        flag = "" if abs(sim - 0.8) <= 0.03 else " (OUTSIDE ±3 points)"
        at_connor = simulated_power(int(np.ceil(connor)), delta, psi, args.runs, rng)
        print(f"| {delta} | {psi} | {np.ceil(connor):.0f} | {at_connor:.3f} | {n} | {exact:.3f} | {sim:.3f}{flag} |")
    print()
    print("| questions | discordance | min. detectable difference | simulated power there |")
    print("|---|---|---|---|")
    for n, psi in MDD_CASES:
        d = mcnemar_mdd(n, psi)
        print(f"| {n} | {psi} | {d:.4f} | {simulated_power(n, d, psi, args.runs, rng):.3f} |")
    print(f"\nCPU {time.process_time() - start:.1f} s ({args.runs} runs per row)")


if __name__ == "__main__":
    main()
