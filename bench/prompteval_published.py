"""PromptEval's published errors, from the result files in its repository (docs/budget.md).

    git clone https://github.com/felipemaiapolo/prompteval && git -C prompteval checkout c238d647
    python bench/prompteval_published.py prompteval

PromptEval (Maia Polo et al., NeurIPS 2024) plots its errors; the numbers behind the plots are
in its repository's ``results/`` (written by its ``prompteval/dist_evaluation.py``), arrays
over (tasks, LLMs, seeds, methods, budgets): for MMLU, 57 subjects x 15 LLMs x 5 seeds x 8
methods x 4 budgets of 200, 400, 800 and 1,600 evaluated cells *per subject* (of 100
templates x the subject's questions). ``*_dist.npy`` is the Wasserstein-1 distance between the
estimated and the true per-template accuracies (mean absolute difference of the sorted
values), ``*_individual.npy`` the mean absolute error of the per-template accuracies,
``*_quantiles_[5, 25, 50, 75, 95].npy`` (BIG-bench Hard and LMentry; MMLU's is not in the
repository) the absolute error of each quantile. This prints their means over tasks, LLMs and
seeds, as the paper's plots do, for the five methods the plots show. The arrays are plain
float64 ``.npy`` files, read without pickle.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

METHODS = ("avg", "PE-Rasch", "PE-discrete", "PE-discrete-logreg", "PE-EmbPT", "PE-EmbPT-logreg", "PE-EmbFT",
           "PE-EmbFT-logreg")  # the order of dist_evaluation.py's methods
SHOWN = ("avg", "PE-Rasch", "PE-discrete", "PE-EmbPT", "PE-EmbFT")  # the plots' five
BUDGETS = (200, 400, 800, 1600)
QUANTILES = (5, 25, 50, 75, 95)


def _table(title: str, mean: np.ndarray, cell) -> None:
    """One markdown table: a row per shown method, a column per budget; ``mean`` is indexed
    (method, budget, ...) in dist_evaluation.py's method order, ``cell`` formats one entry."""
    print(f"\n{title}")
    print("| method | " + " | ".join(str(b) for b in BUDGETS) + " |")
    print("|---|" + "---|" * len(BUDGETS))
    for name in SHOWN:
        print(f"| {name} | " + " | ".join(cell(x) for x in mean[METHODS.index(name)]) + " |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path, help="a clone of github.com/felipemaiapolo/prompteval")
    results = ap.parse_args(argv).repo / "results"
    if not list(results.glob("processed_results_*.npy")):
        raise SystemExit(f"{results}: no processed_results_*.npy (clone PromptEval's repository and pass its folder)")
    for bench in ("MMLU", "BBH", "LMentry"):
        for kind, label in (("dist", "W1"), ("individual", "MAE of the per-template accuracies")):
            path = results / f"processed_results_{bench}_{kind}.npy"
            if path.is_file():
                a = np.load(path, allow_pickle=False)  # tasks x LLMs x seeds x methods x budgets
                _table(f"{bench} {label} ({a.shape[0]} tasks x {a.shape[1]} LLMs x {a.shape[2]} seeds), "
                       "by cells evaluated per task", a.mean(axis=(0, 1, 2)), lambda x: f"{x:.4f}")
        path = results / f"processed_results_{bench}_quantiles_{list(QUANTILES)}.npy"
        if path.is_file():
            a = np.load(path, allow_pickle=False)  # ... x quantiles
            _table(f"{bench} absolute error of the 5/25/50/75/95% quantiles, by cells evaluated per task",
                   a.mean(axis=(0, 1, 2)), lambda q: "/".join(f"{x:.3f}" for x in q))


if __name__ == "__main__":
    main()
