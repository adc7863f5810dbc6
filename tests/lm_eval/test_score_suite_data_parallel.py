"""A data-parallel lm-eval run gives the same SCORE numbers as a single-process run.

Two processes (``torch.distributed.run``, gloo) run lm-eval's real data-parallel path: documents
sharded over the ranks, ranks padded, per-document metrics and samples gathered to rank 0, then
scorekit's aggregations. The model is ``hf`` with lm-eval's CUDA-only condition for data
parallelism lifted (tests/support/cpu_data_parallel.py): ``accelerate launch --num_processes 2
--cpu -m lm_eval --model hf`` starts a single process on a CPU machine, and lm-eval 0.4.13's ``hf``
shards documents only over several CUDA devices. The tiny Llama answers one letter chosen by the
prompt (tests/support/tiny_model.py), so the numbers are not all 0.

Guaranteed and checked: the greedy families (prompt, option order) give identical results, every
key: per-prompt and per-position accuracies, spread, CR and its interval. The sampled family gets
the same questions and five samples each, but not the same samples: ``hf`` draws them from torch's
global generator, which every rank seeds alike and spends on its own share of the documents
(docs/score-suite.md, "Data-parallel runs").
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.cli import main
from tests.robustness.fixture_tasks import build_fixture_tasks

pytestmark = [pytest.mark.slow, pytest.mark.hf]

REPO = Path(__file__).resolve().parents[2]
P, O, N = "score_prompt_robustness_mmlu_pro", "score_option_order_robustness_mmlu_pro", "score_non_greedy_robustness_mmlu_pro"
ARGS = ["--device", "cpu", "--batch_size", "1", "--tasks", f"{P},{O},{N}", "--log_samples", "--seed", "1234"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    from tests.support.tiny_model import build_letter_llama

    root = tmp_path_factory.mktemp("data_parallel")
    model = build_letter_llama(root / "model")
    tasks = build_fixture_tasks(root / "tasks", max_gen_toks=1)
    common = [*ARGS, "--include_path", str(tasks)]
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    single = subprocess.run([sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args", f"pretrained={model}",
                             "--output_path", str(root / "single"), *common], capture_output=True, text=True,
                            env=env, timeout=900)
    assert single.returncode == 0, single.stderr[-3000:]
    parallel = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(_free_port()),
         str(REPO / "tests" / "support" / "cpu_data_parallel.py"), "--model", "hf-cpu-dp",
         "--model_args", f"pretrained={model},device_map=cpu", "--output_path", str(root / "parallel"), *common],
        capture_output=True, text=True, env={**env, "ACCELERATE_USE_CPU": "true"}, timeout=900)
    assert parallel.returncode == 0, parallel.stderr[-3000:]
    assert "cpu-data-parallel: rank 1 of 2" in parallel.stderr  # really two ranks
    return {"single": root / "single", "parallel": root / "parallel"}


def _results(out: Path) -> dict:
    (path,) = out.rglob("results_*.json")
    return json.loads(path.read_text())


def _samples(out: Path, task: str) -> dict[int, dict]:
    (path,) = out.rglob(f"samples_*{task}_*.jsonl")  # lm-eval 0.5: samples_<group>::<task>_<T>.jsonl
    return {row["doc_id"]: row for row in map(json.loads, path.read_text().splitlines())}


def test_greedy_families_give_identical_numbers(runs):
    single, parallel = _results(runs["single"]), _results(runs["parallel"])
    assert single["n-samples"] == parallel["n-samples"]
    for task in (P, O):
        assert single["results"][task] == parallel["results"][task], task
    r = single["results"]
    assert 0.0 < r[P]["consistency_rate,none"] < 1.0 and 0.0 < r[O]["options_consistency_rate,none"] < 1.0
    # 4 questions: fewer than the interval needs (10), so lm-eval logs no interval (nan) on both sides
    assert math.isnan(r[O]["options_consistency_rate_ci_low,none"]) and math.isnan(r[O]["options_consistency_rate_ci_high,none"])
    assert max(v for k, v in r[O].items() if k.startswith("per_option_macro_accuracy_") and "stderr" not in k) > 0.0
    for task in (P, O):  # every document answered the same way
        a, b = _samples(runs["single"], task), _samples(runs["parallel"], task)
        assert a.keys() == b.keys()
        assert all(a[d]["filtered_resps"] == b[d]["filtered_resps"] for d in a), task


def test_sampled_family_same_questions_and_samples_counted_once(runs, capsys):
    single, parallel = _results(runs["single"]), _results(runs["parallel"])
    assert single["n-samples"][N] == parallel["n-samples"][N] == {"original": 4, "effective": 4}
    rows = _samples(runs["parallel"], N)
    assert sorted(rows) == [0, 1, 2, 3]
    assert all(len(row["filtered_resps"][0]) == 5 for row in rows.values())  # rank padding is cut off
    # the report recomputed from the gathered samples logs says what the run aggregated
    assert main(["robustness", str(runs["parallel"]), "--format", "json"]) == 0
    (model,) = json.loads(capsys.readouterr().out)["models"]
    fams = {f["family"]: f for f in model["benchmarks"][0]["families"]}
    r = parallel["results"]
    assert _same(fams["non_greedy"]["consistency_rate"], r[N]["non_greedy_consistency_rate,none"])
    assert _same(fams["non_greedy"]["identical_sample_rate"], r[N]["identical_sample_rate,none"])
    low, high = fams["option_order"]["consistency_rate_ci"] or (None, None)
    assert _same(low, r[O]["options_consistency_rate_ci_low,none"])
    assert _same(high, r[O]["options_consistency_rate_ci_high,none"])


def _same(reported, logged) -> bool:
    """The report writes an undefined value as null where lm-eval's results hold nan."""
    if reported is None:
        return isinstance(logged, float) and math.isnan(logged)
    return reported == logged
