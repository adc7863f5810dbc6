"""Coverage of the variance-share intervals of `scorekit robustness` (docs/uncertainty.md).

    python bench/sim_variance.py               # 500 simulated families per cell
    python bench/sim_variance.py --runs 200    # quicker

A population of 20,000 questions with ability a_q ~ N(0.3, 1.5) meets V variants with logit
effects b_v (and, in the replicated scenario, a question x template interaction
c_qv ~ N(0, 0.6)): p_qv = logistic(a_q + b_v + c_qv), y ~ Bernoulli(p_qv), n samples per cell.
True components from the population (scorekit.robustness.variance's definitions):
question = Var_q(m_q), variant = (1/V) sum_v (m_v - m)^2, within = E[p(1 - p)] + E[interaction^2];
true shares = each / their sum. Each run draws Q questions, computes the shares with their 95%
intervals (2000 bootstrap draws) and checks whether each interval holds the true share.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin"))

from scorekit.robustness.variance import COMPONENTS, variance_shares  # noqa: E402

SCENARIOS = {
    "10 prompts, logit effects -0.5..+0.5, 1 sample": (np.linspace(-0.5, 0.5, 10), 1, 0.0),
    "4 answer positions, position bias (+0.4, 0, -0.2, -0.2), 1 sample": (np.array([0.4, 0.0, -0.2, -0.2]), 1, 0.0),
    "5 runs, no run effect (non-greedy), 1 sample": (np.zeros(5), 1, 0.0),
    "5 templates x 4 samples, interaction sd 0.6": (np.linspace(-0.4, 0.4, 5), 4, 0.6),
    "10 prompts, interaction sd 0.6, 1 sample (interaction and sampling confounded)": (np.linspace(-0.5, 0.5, 10), 1, 0.6),
}


def population(effects: np.ndarray, interaction: float, rng: np.random.Generator, size: int = 20_000):
    ability = rng.normal(0.3, 1.5, size)
    logit = ability[:, None] + effects[None, :] + rng.normal(0, interaction, (size, len(effects)))
    return 1 / (1 + np.exp(-logit))


def true_shares(p: np.ndarray) -> np.ndarray:
    m_q, m_v, m = p.mean(axis=1), p.mean(axis=0), p.mean()
    question = m_q.var()
    variant = ((m_v - m) ** 2).mean()
    interaction = ((p - m_q[:, None] - m_v[None, :] + m) ** 2).mean()
    within = (p * (1 - p)).mean() + interaction
    c = np.array([question, variant, within])
    return c / c.sum()


def coverage(runs: int, nq: int, effects: np.ndarray, samples: int, interaction: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = population(effects, interaction, rng)
    truth = true_shares(p)
    hits, est = np.zeros(3), np.zeros((runs, 3))
    for run in range(runs):
        q = rng.integers(0, len(p), nq)
        y = (rng.random((nq, len(effects), samples)) < p[q][:, :, None]).astype(float)
        s = variance_shares(y, seed=run)
        for i, k in enumerate(COMPONENTS):
            hits[i] += s[k]["ci_low"] - 1e-12 <= truth[i] <= s[k]["ci_high"] + 1e-12
            est[run, i] = s[k]["value"]
    return truth, hits / runs, est.mean(axis=0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000])
    args = ap.parse_args()
    start = time.process_time()
    print("| scenario | Q | true shares (question / variant / within) | mean estimate | coverage question | variant | within |")
    print("|---|---|---|---|---|---|---|")
    for i, (name, (effects, samples, interaction)) in enumerate(SCENARIOS.items()):
        for nq in args.sizes:
            truth, cov, mean = coverage(args.runs, nq, effects, samples, interaction, seed=100 * i + nq)
            print(f"| {name} | {nq} | {' / '.join(f'{t:.3f}' for t in truth)} | {' / '.join(f'{m:.3f}' for m in mean)} | "
                  + " | ".join(f"{c:.1%}" for c in cov) + " |", flush=True)
    print(f"\nCPU {time.process_time() - start:.0f} s ({args.runs} runs per row)")


if __name__ == "__main__":
    main()
