"""Budgeted robustness on a real full run: do the intervals cover the full report? (docs/budget.md)

    python bench/real_budget.py /work/data/realdata                            # B = 2, 200 designs
    python bench/real_budget.py RUN --budgets 2,4 --reps 200 --json out.json

RUN is an lm-eval ``--output_path`` of a *full* SCORE run (``--log_samples``): every
``samples_score_<family>_robustness_*.jsonl`` in it (searched recursively) is read, one family
per file. The data are not in the repository: docs/budget.md ("Real model, real questions")
gives the commands that make them (about an hour on 2 CPU cores).

For each family: the full matrix of N questions x V variants (correct 0/1, and the answers),
the questions' macro-accuracy weights (1 / (categories x category size), as the report's macro
accuracy), and the truth, the exact report of the full run (:func:`estimate_robustness` on the
full matrix). Then, for seeds 0 .. reps-1, the budgeted run that the design
``Design.make(V, B, seed)`` would have asked, cut out of the full log (only the asked answers
are kept, and the agreeing pairs are counted among them), is estimated with its 95% intervals;
reported are the mean absolute error, the mean interval width and the share of the designs
whose interval holds the full run's value (coverage).

Only the questions asked under all V variants enter (with option order, a question of k < V
options has only k arrangements: those questions are left out and counted). The designs share
one full run, so the replicates are not independent draws of a model's behaviour: the coverage
says how often a budgeted report of *this* run, under a random design, lands on its full
report; its spread over designs is smaller than over runs.

``--simulate N`` asks how that coverage depends on the number of questions, with the run's own
shape: the model is fitted to the full matrix, and each replicate draws a new full run of N
questions from it (Rasch: each question's easiness from the fitted distribution pi, the
variants' effects fixed at their posterior means, so the one family's spread and skew stay as
the run has them; the categories recycled from the run's in order; a wrong answer one of 9
wrong labels at random), then the design of seed r is cut out of replicate r as above. The
replicates differ in their questions and the truth is each replicate's own full report; what
stays fixed is the family, so this is coverage for *one* family (the simulation bench's
families are drawn anew in every replicate).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin"))

from scorekit.metrics import consistency_counts  # noqa: E402
from scipy.special import expit  # noqa: E402

from scorekit.robustness.budget import QUANTILES, Design, assign, estimate_robustness, model  # noqa: E402
from scorekit.robustness.records import Record, as_record  # noqa: E402

SCALARS = ("accuracy", "accuracy_min", "accuracy_max", "accuracy_range", "accuracy_std")
SHARES = ("question", "variant", "within")


def read_family(path: Path) -> list[Record]:
    """The SCORE records of one samples file (one per line: the first metric field that is a record)."""
    out = []
    with path.open() as fh:
        for lineno, line in enumerate(fh, 1):
            sample = json.loads(line)
            for name in sample.get("metrics", []):
                value = sample.get(name)
                if isinstance(value, list) and len(value) == len(Record._fields):
                    out.append(as_record(value, where=f"{path}:{lineno}"))
                    break
            else:
                raise SystemExit(f"{path}:{lineno}: no SCORE record in the sample's metrics")
    return out


def full_matrix(records: list[Record]) -> tuple[list[str], np.ndarray, list[list], np.ndarray, int]:
    """(question ids, correct (N, V), answers per question in variant order, macro weights, questions left out)."""
    v = max(r.n_variants for r in records)
    by_q: dict[str, dict[int, Record]] = {}
    for r in records:
        if r.variant in by_q.setdefault(r.question_id, {}):
            raise SystemExit(f"question {r.question_id} variant {r.variant} twice: not one full run")
        by_q[r.question_id][r.variant] = r
    ids = [q for q, rs in by_q.items() if sorted(rs) == list(range(v))]
    correct = np.array([[float(by_q[q][j].correct) for j in range(v)] for q in ids])
    answers = [[by_q[q][j].answer for j in range(v)] for q in ids]
    cats = [by_q[q][0].category for q in ids]
    size = Counter(cats)
    weights = np.array([1.0 / (len(size) * size[c]) for c in cats])
    return ids, correct, answers, weights, len(by_q) - len(ids)


def check(truth, est) -> dict[str, float]:
    out: dict[str, float] = {}

    def record(name: str, t: float, e) -> None:
        out[f"{name}.err"] = abs(e.value - t)
        out[f"{name}.bias"] = e.value - t
        out[f"{name}.cov"] = float(e.ci_low - 1e-12 <= t <= e.ci_high + 1e-12)
        out[f"{name}.width"] = e.ci_high - e.ci_low
        out[f"{name}.truth"] = t

    for p in QUANTILES:
        record(f"q{p}", truth.accuracy_quantiles[str(p)].value, est.accuracy_quantiles[str(p)])
    for name in SCALARS:
        record(name, getattr(truth, name).value, getattr(est, name))
    for name in SHARES:
        record(f"share_{name}", truth.variance_shares[name].value, est.variance_shares[name])
    record("consistency_rate", truth.consistency_rate.value, est.consistency_rate)
    covs = [e.ci_low - 1e-12 <= t.value <= e.ci_high + 1e-12 for e, t in zip(est.variant_accuracy, truth.variant_accuracy)]
    out["variant.err"] = float(np.mean([abs(e.value - t.value) for e, t in zip(est.variant_accuracy, truth.variant_accuracy)]))
    out["variant.cov"] = float(np.mean(covs))
    return out


def simulated(fitted: model.Fit, cats: list[str], n: int, rng: np.random.Generator
              ) -> tuple[np.ndarray, list[list], np.ndarray]:
    """A full run of n questions drawn from ``fitted``, the model fitted to a real full run
    (module docstring): (correct (n, V), answers, macro weights)."""
    theta = model.THETA[rng.choice(len(model.THETA), size=n, p=fitted.pi)]
    beta = fitted.likelihood @ model.BETA / fitted.likelihood.sum(axis=1)  # flat-likelihood means
    y = (rng.random((n, len(beta))) < expit(theta[:, None] + beta[None, :])).astype(float)
    answers = np.where(y == 1, -1, rng.integers(0, 9, size=y.shape)).tolist()
    c = [cats[i % len(cats)] for i in range(n)]
    size = Counter(c)
    return y, answers, np.array([1.0 / (len(size) * size[x]) for x in c])


def run_family(name: str, records: list[Record], budgets: list[int], reps: int,
               simulate: int | None = None) -> dict[str, dict[str, float]]:
    ids, correct, answers, weights, left_out = full_matrix(records)
    if simulate:
        category = {r.question_id: r.category for r in records}
        run_cats = [category[q] for q in ids]
        name = f"{name} simulated N={simulate}"
        fitted = model.fit(correct, np.ones(correct.shape, dtype=bool))  # once: every replicate draws from it
        ids = [str(i) for i in range(simulate)]
        correct, answers, weights = simulated(fitted, run_cats, simulate, np.random.default_rng(0))
    n, v = correct.shape
    truth = estimate_robustness(correct, agree=consistency_counts(answers)[0], weights=weights)
    print(f"\n# {name}: {n} questions x {v} variants ({left_out} questions without all {v} variants left out)")
    print(f"{'replicate 0' if simulate else 'full run'}: accuracy {truth.accuracy.value:.4f}, per-variant {truth.accuracy_min.value:.3f}-"
          f"{truth.accuracy_max.value:.3f}, quantiles 5/25/50/75/95 "
          + "/".join(f"{truth.accuracy_quantiles[str(p)].value:.4f}" for p in QUANTILES)
          + f", CR {truth.consistency_rate.value:.4f}, shares q/v/w "
          + "/".join(f"{truth.variance_shares[s].value:.3f}" for s in SHARES))
    results = {}
    for b in budgets:
        if b >= v:
            continue
        t0 = time.perf_counter()
        rows = []
        for seed in range(reps):
            if simulate:  # replicate `seed`: a new full run of the one family
                correct, answers, weights = simulated(fitted, run_cats, simulate, np.random.default_rng(seed))
                truth = estimate_robustness(correct, agree=consistency_counts(answers)[0], weights=weights)
            plan = assign(ids, Design.make(v, b, seed))
            asked = np.zeros((n, v), dtype=bool)
            for i, q in enumerate(ids):
                asked[i, list(plan[q])] = True
            agree = consistency_counts([[a for a, m in zip(ans, row) if m] for ans, row in zip(answers, asked)])[0]
            est = estimate_robustness(np.where(asked, correct, np.nan), agree=agree, weights=weights, seed=seed)
            rows.append(check(truth, est))
        s = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
        s["n_questions"], s["n_variants"], s["left_out"], s["reps"] = n, v, left_out, reps
        s["truth"] = {"accuracy": s["accuracy.truth"], "consistency_rate": s["consistency_rate.truth"],
                      **{f"q{p}": s[f"q{p}.truth"] for p in QUANTILES}}  # simulated: the mean over replicates
        results[f"{name} B={b}"] = s
        print(f"\n## {name}, B={b}: {reps} designs, {time.perf_counter() - t0:.0f} s wall")
        print("| quantity | full run | MAE | mean error | coverage | mean width |")
        print("|---|---|---|---|---|---|")
        for p in QUANTILES:
            print(f"| q{p} | {s[f'q{p}.truth']:.4f} | {s[f'q{p}.err']:.4f} | {s[f'q{p}.bias']:+.4f} | "
                  f"{s[f'q{p}.cov']:.3f} | {s[f'q{p}.width']:.4f} |")
        for key in (*SCALARS, *(f"share_{x}" for x in SHARES), "consistency_rate"):
            print(f"| {key} | {s[f'{key}.truth']:.4f} | {s[f'{key}.err']:.4f} | {s[f'{key}.bias']:+.4f} | {s[f'{key}.cov']:.3f} | "
                  f"{s[f'{key}.width']:.4f} |")
        print(f"| variant_accuracy (mean over variants) |  | {s['variant.err']:.4f} |  | {s['variant.cov']:.3f} |  |")
        sys.stdout.flush()
    return results


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="lm-eval output directory of a full SCORE run (--log_samples)")
    ap.add_argument("--budgets", default="2")
    ap.add_argument("--reps", type=int, default=200, help="designs (seeds 0..reps-1) per family and budget")
    ap.add_argument("--json", help="write every family's summary here")
    ap.add_argument("--simulate", type=int, metavar="N",
                    help="replicates of N questions drawn from the model fitted to each full run (docstring)")
    ap.add_argument("--families", help="only the files whose name holds one of these (comma-separated, e.g. option_order)")
    a = ap.parse_args(argv)
    files = sorted(Path(a.run).rglob("samples_score_*_robustness_*.jsonl"))
    if a.families:
        files = [f for f in files if any(x in f.name for x in a.families.split(","))]
    if not files:
        raise SystemExit(f"{a.run}: no samples_score_*_robustness_*.jsonl (run lm-eval with --log_samples)")
    budgets = [int(b) for b in a.budgets.split(",")]
    results = {}
    for path in files:
        name = re.match(r"samples_(score_.+?)_\d{4}-", path.name)
        results.update(run_family(name.group(1) if name else path.stem, read_family(path), budgets, a.reps,
                                  a.simulate))
        if a.json:
            Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
