"""Budgeted robustness (docs/budget.md): errors and interval coverage against known truth.

    python bench/sim_budget.py                       # 200 replicates per cell (about 1.5 s each)
    python bench/sim_budget.py --reps 20             # a quick look
    python bench/sim_budget.py --scenarios none,strong --variants 100 --budgets 2 --json out.json

Each replicate draws a full run with known truth, N questions x V variants:

- question easiness theta_q: 55% N(2.0, 1.2), 45% N(-0.8, 1.5) (logit): many near-sure questions
  and a hard group, as on real benchmarks;
- variant effect beta_v by scenario: ``none`` 0; ``moderate`` N(0, 0.3); ``strong`` N(0, 0.8);
  ``broken`` N(0, 0.8) with 8% of the variants at -3 (prompts that break the answer format);
  ``broken_far`` the same with 4% at -4 and ``broken_near`` with 12% at -2 (clusters placed
  elsewhere, to check that what holds for ``broken`` is not about its exact numbers; not run by
  default); ``position`` a weak model's option order: variant 0 (the answer at A) at 0, every
  other at -8, right on about 3 questions in 1,000 (not run by default; V = 10 is its shape);
  ``zero`` N(0, 0.8) with 5% of the variants never right (a format the answer parser never
  reads: accuracy exactly 0, whatever the question; not run by default);
- interaction u_q w_v, u_q ~ N(0, 1), w_v ~ N(0, s) with s = 0.3 / 0.4 / 0.5 / 0.5 (a prompt
  that helps some questions and hurts others; the model does not have it);
- y_qv ~ Bernoulli(logistic(theta_q + beta_v + u_q w_v)); a wrong answer is one of 3
  distractors with the question's own Dirichlet(0.7) preferences, or unparsed (5% of wrong
  answers; agrees with nothing).

The truth is the full run's report (exact: :func:`estimate_robustness` on the full matrix).
The budgeted run asks each question the B variants of :func:`scorekit.robustness.budget.assign`
(seed = the replicate), and is estimated with its intervals (95%). ``naive`` is the quantile of
the raw per-variant accuracies over the asked cells. Reported per cell: mean absolute error
(MAE), for the quantiles the naive MAE and the ratio, the share of intervals holding the
truth (coverage), and the shares that miss it from below and from above. Single-threaded BLAS
(set below): threads only fight on a shared machine.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin"))

from scorekit.robustness.budget import QUANTILES, Design, assign, estimate_robustness  # noqa: E402

SCENARIOS = {  # beta sd, interaction sd, share of broken variants, their beta
    "none": (0.0, 0.3, 0.0, 0.0),
    "moderate": (0.3, 0.4, 0.0, 0.0),
    "strong": (0.8, 0.5, 0.0, 0.0),
    "broken": (0.8, 0.5, 0.08, -3.0),
    "broken_far": (0.8, 0.5, 0.04, -4.0),
    "broken_near": (0.8, 0.5, 0.12, -2.0),
    "position": (0.0, 0.0, 0.0, 0.0),  # beta set in full_run
    "zero": (0.8, 0.5, 0.05, -np.inf),
}
DEFAULT_SCENARIOS = ("none", "moderate", "strong", "broken")
SCALARS = ("accuracy", "accuracy_min", "accuracy_max", "accuracy_range", "accuracy_std")
SHARES = ("question", "variant", "within")


def full_run(rng: np.random.Generator, n: int, v: int, scenario: str) -> tuple[np.ndarray, np.ndarray]:
    """(correct (n, v) 0/1, answers (n, v): 0 gold, 1-3 distractors, -1 unparsed)."""
    sd, interaction, broken, broken_at = SCENARIOS[scenario]
    group = rng.random(n) < 0.55
    theta = np.where(group, rng.normal(2.0, 1.2, n), rng.normal(-0.8, 1.5, n))
    beta = rng.normal(0.0, sd, v) if sd else np.zeros(v)
    if broken:
        beta[rng.random(v) < broken] = broken_at
    if scenario == "position":
        beta = np.r_[0.0, np.full(v - 1, -8.0)]
    logit = theta[:, None] + beta[None, :] + rng.normal(0, 1, n)[:, None] * rng.normal(0, interaction, v)[None, :]
    correct = rng.random((n, v)) < 1 / (1 + np.exp(-logit))
    prefs = rng.dirichlet(np.full(3, 0.7), size=n)
    wrong = 1 + (rng.random((n, v))[:, :, None] > np.cumsum(prefs, axis=1)[:, None, :]).sum(axis=2)
    wrong = np.where(rng.random((n, v)) < 0.05, -1, np.minimum(wrong, 3))
    return correct.astype(float), np.where(correct, 0, wrong)


def agreeing_pairs(answers: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """Per question, the agreeing pairs among its asked answers (unparsed agree with nothing)."""
    out = np.zeros(len(answers))
    for code in range(4):
        m = ((answers == code) & asked).sum(axis=1)
        out += m * (m - 1) / 2
    return out


def replicate(args: tuple[str, int, int, int, int]) -> dict[str, float]:
    scenario, n, v, b, rep = args
    rng = np.random.default_rng([rep, n, v, b, list(SCENARIOS).index(scenario)])
    correct, answers = full_run(rng, n, v, scenario)
    full = np.ones((n, v), dtype=bool)
    truth = estimate_robustness(correct, agree=agreeing_pairs(answers, full))
    plan = assign([f"q{i}" for i in range(n)], Design.make(v, b, rep))
    asked = np.zeros((n, v), dtype=bool)
    for i in range(n):
        asked[i, list(plan[f"q{i}"])] = True
    start = time.process_time()
    est = estimate_robustness(np.where(asked, correct, np.nan), agree=agreeing_pairs(answers, asked), seed=rep)
    cpu = time.process_time() - start
    naive = np.percentile(np.nanmean(np.where(asked, correct, np.nan), axis=0), QUANTILES)
    out: dict[str, float] = {"cpu": cpu}

    def record(name: str, t: float, e) -> None:
        out[f"{name}.err"] = abs(e.value - t)
        out[f"{name}.cov"] = float(e.ci_low - 1e-12 <= t <= e.ci_high + 1e-12)
        out[f"{name}.below"] = float(e.ci_high + 1e-12 < t)  # a miss with the interval below the truth
        out[f"{name}.above"] = float(t < e.ci_low - 1e-12)
        out[f"{name}.width"] = e.ci_high - e.ci_low

    for p, nv in zip(QUANTILES, naive):
        record(f"q{p}", truth.accuracy_quantiles[str(p)].value, est.accuracy_quantiles[str(p)])
        out[f"q{p}.naive"] = abs(nv - truth.accuracy_quantiles[str(p)].value)
    for name in SCALARS:
        record(name, getattr(truth, name).value, getattr(est, name))
    for name in SHARES:
        record(f"share_{name}", truth.variance_shares[name].value, est.variance_shares[name])
    record("consistency_rate", truth.consistency_rate.value, est.consistency_rate)
    errs = [abs(e.value - t.value) for e, t in zip(est.variant_accuracy, truth.variant_accuracy)]
    covs = [e.ci_low <= t.value <= e.ci_high for e, t in zip(est.variant_accuracy, truth.variant_accuracy)]
    out["variant.err"], out["variant.cov"] = float(np.mean(errs)), float(np.mean(covs))
    # PromptEval's distribution error: mean |sorted estimates - sorted truth| (Wasserstein-1)
    true_sorted = np.sort([t.value for t in truth.variant_accuracy])
    out["w1"] = float(np.mean(np.abs(np.sort([e.value for e in est.variant_accuracy]) - true_sorted)))
    out["w1.naive"] = float(np.mean(np.abs(np.sort(np.nanmean(np.where(asked, correct, np.nan), axis=0)) - true_sorted)))
    return out


def summarise(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = rows[0].keys()
    return {k: float(np.mean([r[k] for r in rows])) for k in keys}


def table(results: dict[str, dict[str, float]]) -> str:
    """The summary table of docs/budget.md: one row per cell."""
    head = ("| cell | MAE q25/50/75 (naive, ratio) | MAE q5/95 (naive, ratio) | coverage q5..q95 | "
            "MAE CR (coverage) | coverage min/max/range/std | coverage shares q/v/w | W1 (naive) |")
    lines = [head, "|" + "---|" * 8]
    for cell, s in results.items():
        mid, ext = np.mean([s[f"q{p}.err"] for p in (25, 50, 75)]), np.mean([s[f"q{p}.err"] for p in (5, 95)])
        nmid, next_ = np.mean([s[f"q{p}.naive"] for p in (25, 50, 75)]), np.mean([s[f"q{p}.naive"] for p in (5, 95)])
        cov = "/".join(f"{100 * s[f'q{p}.cov']:.0f}" for p in QUANTILES)
        spread = "/".join(f"{100 * s[f'{n}.cov']:.0f}" for n in SCALARS[1:])
        shares = "/".join(f"{100 * s[f'share_{n}.cov']:.0f}" for n in SHARES)
        lines.append(f"| {cell} | {mid:.4f} ({nmid:.4f}, {mid / nmid:.2f}) | {ext:.4f} ({next_:.4f}, {ext / next_:.2f}) | "
                     f"{cov} | {s['consistency_rate.err']:.4f} ({100 * s['consistency_rate.cov']:.0f}) | {spread} | "
                     f"{shares} | {s['w1']:.4f} ({s['w1.naive']:.4f}) |")
    return "\n".join(lines)


def timing(n: int, v: int, b: int) -> None:
    """CPU and wall time of one budgeted estimate (the design and the matrix are not timed)."""
    rng = np.random.default_rng(0)
    correct, answers = full_run(rng, n, v, "strong")
    plan = assign([f"q{i}" for i in range(n)], Design.make(v, b, 0))
    asked = np.zeros((n, v), dtype=bool)
    for i in range(n):
        asked[i, list(plan[f"q{i}"])] = True
    masked, agree = np.where(asked, correct, np.nan), agreeing_pairs(answers, asked)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    cpu, wall = time.process_time(), time.perf_counter()
    est = estimate_robustness(masked, agree=agree)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{n} questions x {v} variants, B={b} ({int(asked.sum())} answers): estimate {cpu:.1f} s CPU, "
          f"{wall:.1f} s wall (load average {load:.1f} before; {est.draws} draws, single-threaded BLAS)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--variants", default="10,100")
    ap.add_argument("--budgets", default="2,4")
    ap.add_argument("--scenarios", default=",".join(DEFAULT_SCENARIOS), help=f"of {', '.join(SCENARIOS)}")
    ap.add_argument("--jobs", type=int, default=1, help="processes (default 1: the machine is shared)")
    ap.add_argument("--json", help="write every cell's summary here")
    ap.add_argument("--table-from", help="print the summary table of --json files (comma-separated) and stop")
    ap.add_argument("--timing", action="store_true",
                    help="time one estimate of --questions x --variants at the first budget (strong spread) and stop")
    a = ap.parse_args(argv)
    if a.table_from:
        print(table({k: v for f in a.table_from.split(",") for k, v in json.loads(Path(f).read_text()).items()}))
        return
    if a.timing:
        timing(a.questions, int(a.variants.split(",")[-1]), int(a.budgets.split(",")[0]))
        return
    cells = [(s, int(v), int(b)) for v in a.variants.split(",") for b in a.budgets.split(",")
             for s in a.scenarios.split(",")]
    results = {}
    pool = None
    if a.jobs > 1:
        import multiprocessing

        pool = multiprocessing.Pool(a.jobs)
    for scenario, v, b in cells:
        if b >= v:
            continue
        t0 = time.perf_counter()
        jobs = [(scenario, a.questions, v, b, rep) for rep in range(a.reps)]
        rows = pool.map(replicate, jobs) if pool else [replicate(j) for j in jobs]
        s = summarise(rows)
        results[f"{scenario} V={v} B={b}"] = s
        mid = [s[f"q{p}.err"] for p in (25, 50, 75)]
        ext = [s[f"q{p}.err"] for p in (5, 95)]
        nmid = [s[f"q{p}.naive"] for p in (25, 50, 75)]
        next_ = [s[f"q{p}.naive"] for p in (5, 95)]
        print(f"\n## {scenario}, V={v}, B={b}, N={a.questions}: {a.reps} replicates, "
              f"{s['cpu']:.2f} s CPU each, {time.perf_counter() - t0:.0f} s wall")
        print(f"quantiles 25/50/75: MAE {np.mean(mid):.4f} (naive {np.mean(nmid):.4f}, ratio {np.mean(mid) / np.mean(nmid):.2f}); "
              f"5/95: MAE {np.mean(ext):.4f} (naive {np.mean(next_):.4f}, ratio {np.mean(ext) / np.mean(next_):.2f})")
        print("| quantity | MAE | naive MAE | coverage | interval below / above the truth | mean width |")
        print("|---|---|---|---|---|---|")
        for name in (*(f"q{p}" for p in QUANTILES), *SCALARS, *(f"share_{x}" for x in SHARES), "consistency_rate"):
            naive = f"{s[f'{name}.naive']:.4f}" if f"{name}.naive" in s else ""
            print(f"| {name} | {s[f'{name}.err']:.4f} | {naive} | {s[f'{name}.cov']:.3f} | "
                  f"{s[f'{name}.below']:.3f} / {s[f'{name}.above']:.3f} | {s[f'{name}.width']:.4f} |")
        print(f"| variant_accuracy (mean over variants) | {s['variant.err']:.4f} |  | {s['variant.cov']:.3f} |  |")
        print(f"| distribution (W1 of sorted variant accuracies) | {s['w1']:.4f} | {s['w1.naive']:.4f} |  |  |")
        sys.stdout.flush()
        if a.json:  # after every cell: a long run that is stopped keeps the cells it finished
            Path(a.json).write_text(json.dumps(results, indent=1))
    if pool:
        pool.close()
    print("\n" + table(results))


if __name__ == "__main__":
    main()
