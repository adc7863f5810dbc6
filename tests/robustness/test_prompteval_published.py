"""bench/prompteval_published.py: PromptEval's result arrays are averaged over the right axes.

The arrays are (tasks, LLMs, seeds, methods, budgets[, quantiles]); an array whose value names
its method and budget (and varies over the other axes by a known, mean-zero amount) shows any
mix-up of axes in the printed table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "prompteval_published.py"


def _rows(out: str, title: str) -> dict[str, list[str]]:
    block = out.split(title, 1)[1].split("\n\n", 1)[0]
    return {line.split(" | ")[0].strip("| "): [c.strip(" |") for c in line.split(" | ")[1:]]
            for line in block.splitlines() if line.startswith("| ") and not line.startswith("| method")}


def test_means_are_over_tasks_llms_and_seeds(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    shape = (3, 4, 5, 8, 4)
    method, budget = np.meshgrid(np.arange(8), np.arange(4), indexing="ij")
    value = 0.1 * (method + 1) + 0.001 * (budget + 1)  # method j, budget k -> 0.1 (j+1) + 0.001 (k+1)
    noise = np.random.default_rng(0).normal(0, 0.01, shape[:3])
    noise -= noise.mean()
    np.save(results / "processed_results_MMLU_dist.npy", value[None, None, None] + noise[..., None, None])
    q = np.broadcast_to((value[..., None] + 0.01 * np.arange(1, 6))[None, None, None], (*shape, 5))
    np.save(results / "processed_results_BBH_quantiles_[5, 25, 50, 75, 95].npy", np.ascontiguousarray(q))
    proc = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    w1 = _rows(proc.stdout, "MMLU W1 (3 tasks x 4 LLMs x 5 seeds)")
    # the plots' five methods, in dist_evaluation.py's order: avg 0, PE-Rasch 1, PE-discrete 2, PE-EmbPT 4, PE-EmbFT 6
    for name, j in (("avg", 0), ("PE-Rasch", 1), ("PE-discrete", 2), ("PE-EmbPT", 4), ("PE-EmbFT", 6)):
        assert w1[name] == [f"{0.1 * (j + 1) + 0.001 * (k + 1):.4f}" for k in range(4)], name
    quant = _rows(proc.stdout, "BBH absolute error of the 5/25/50/75/95% quantiles")
    assert quant["PE-EmbFT"][3] == "0.714/0.724/0.734/0.744/0.754"  # method 6, budget 3, quantiles 1-5
    assert "LMentry" not in proc.stdout  # files that are not there are not printed


def test_a_folder_without_results_is_one_line(tmp_path):
    (tmp_path / "empty" / "results").mkdir(parents=True)
    for folder in (tmp_path / "nowhere", tmp_path / "empty"):
        proc = subprocess.run([sys.executable, str(SCRIPT), str(folder)], capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and "no processed_results_*.npy" in proc.stderr, proc.stderr
