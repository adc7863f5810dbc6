"""Non-greedy SCORE through an OpenAI-compatible API backend (lm-eval's ``local-completions``).

A small completions server on 127.0.0.1 (stdlib ``http.server`` in a thread) answers with a
deterministic function of (prompt, seed), as vLLM's and SGLang's servers do for a request with
a seed. lm-eval sends one seed (its model argument, 1234) with every request, the five repeats of
a question included, so such a server returns five identical samples: the CR is inflated. With
``--gen_kwargs seed=N`` scorekit's task sends each sample with its own seed; the
``identical_sample_rate`` metric (results and ``scorekit robustness``) flags identical samples
whatever their cause.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import threading
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from scorekit.cli import main
from tests.robustness.fixture_tasks import build_fixture_tasks

pytestmark = pytest.mark.slow

N = "score_non_greedy_robustness_mmlu_pro"


class CompletionsServer:
    """``POST /v1/completions``: text = f(prompt, seed) when ``honour_seed``, else f(prompt)."""

    def __init__(self, honour_seed: bool = True) -> None:
        self.honour_seed = honour_seed
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
                choices = [{"index": i, "text": server.answer(p, body.get("seed")), "finish_reason": "stop",
                            "logprobs": None} for i, p in enumerate(prompts)]
                data = json.dumps({"id": "cmpl-1", "object": "text_completion", "model": body.get("model"),
                                   "choices": choices}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def answer(self, prompt: str, seed: int | None) -> str:
        h = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
        if not self.honour_seed:
            return f"I pick one. The best answer is {'ABCD'[h % 4]}."
        return f"Sample drawn with seed {seed}. The best answer is {'ABCD'[(h + int(seed)) % 4]}."

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/completions"

    def __enter__(self) -> CompletionsServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def fixture_tasks(tmp_path_factory) -> Path:
    return build_fixture_tasks(tmp_path_factory.mktemp("score_suite"))


def lm_eval_cli(server: CompletionsServer, tasks: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "lm_eval", "--model", "local-completions",
           "--model_args", f"model=fake,base_url={server.url},tokenizer_backend=None,max_retries=1",
           "--tasks", N, "--include_path", str(tasks), "--output_path", str(out), "--log_samples", *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc


def logged(out: Path) -> tuple[dict, list[dict]]:
    results = json.loads(next(out.rglob("results_*.json")).read_text())["results"][N]
    samples = [json.loads(line) for line in next(out.rglob(f"samples_{N}_*.jsonl")).read_text().splitlines()]
    return results, samples


def report(out: Path, capsys) -> dict:
    assert main(["robustness", str(out), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (model,) = data["models"]
    (bench,) = model["benchmarks"]
    (fam,) = bench["families"]
    return fam


def test_seeded_samples_are_independent_on_a_server_that_honours_seeds(fixture_tasks, tmp_path, capsys):
    with CompletionsServer() as server:
        proc = lm_eval_cli(server, fixture_tasks, tmp_path / "out", "--gen_kwargs", "seed=7")
    seeds_by_prompt = defaultdict(list)
    for body in server.requests:
        seeds_by_prompt[tuple(body["prompt"]) if isinstance(body["prompt"], list) else body["prompt"]].append(body["seed"])
    assert len(server.requests) == 4 * 5 and len(seeds_by_prompt) == 4
    assert all(sorted(seeds) == [35, 36, 37, 38, 39] for seeds in seeds_by_prompt.values())  # 7 * 5 + i
    results, samples = logged(tmp_path / "out")
    assert len(samples) == 4
    for s in samples:
        texts = s["resps"][0]
        assert len(texts) == 5 and len(set(texts)) == 5
        assert s["arguments"]["gen_args_0"]["arg_1"]["sample_seeds"] == [35, 36, 37, 38, 39]
        assert [r[2] for r in s["non_greedy_consistency_rate"]] == [0, 1, 2, 3, 4]
        assert s["identical_sample_rate"] == 0.0
    assert results["identical_sample_rate,none"] == 0.0
    # letters cycle through A-D over five consecutive seeds: one agreeing pair of ten per question
    assert results["non_greedy_consistency_rate,none"] == pytest.approx(0.1)
    assert "identical samples" not in proc.stderr
    fam = report(tmp_path / "out", capsys)
    assert fam["identical_sample_rate"] == 0.0 and fam["consistency_rate"] == pytest.approx(0.1)
    assert not any("identical samples" in n for n in fam["notes"])


@pytest.fixture(scope="module")
def one_seed_run(fixture_tasks, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess, list[dict]]:
    """lm-eval's default run: no --gen_kwargs seed."""
    out = tmp_path_factory.mktemp("one_seed") / "out"
    with CompletionsServer() as server:
        proc = lm_eval_cli(server, fixture_tasks, out)
    return out, proc, server.requests


def test_one_seed_for_every_repeat_gives_identical_samples_and_says_so(one_seed_run, capsys):
    """lm-eval's default: the same seed in every request. The samples are identical, the CR is
    1.0 on every question, and the identical-sample rate says why, in the results and the report."""
    out, proc, requests = one_seed_run
    assert {body["seed"] for body in requests} == {1234}
    results, samples = logged(out)
    assert all(len(set(s["resps"][0])) == 1 for s in samples)
    assert results["non_greedy_consistency_rate,none"] == 1.0
    assert results["identical_sample_rate,none"] == 1.0
    assert "identical samples: 100% of 4 questions" in proc.stderr
    fam = report(out, capsys)
    assert fam["identical_sample_rate"] == 1.0 and fam["consistency_rate"] == 1.0
    assert any(n.startswith("identical samples: 100% of 4 questions") for n in fam["notes"])


def test_a_server_that_ignores_seeds_is_flagged_too(fixture_tasks, tmp_path, capsys):
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    with CompletionsServer(honour_seed=False) as server:
        tracker = EvaluationTracker(output_path=str(tmp_path / "out"))
        with pytest.warns(RuntimeWarning, match="identical samples: 100% of 4 questions"):
            out = lm_eval.simple_evaluate(
                model="local-completions", model_args=f"model=fake,base_url={server.url},tokenizer_backend=None",
                tasks=[N], task_manager=TaskManager(include_path=[str(fixture_tasks)], include_defaults=False),
                gen_kwargs="seed=7", log_samples=True, evaluation_tracker=tracker, bootstrap_iters=0)
        tracker.save_results_aggregated(results=out["results"], samples=out["samples"])
        tracker.save_results_samples(task_name=N, samples=out["samples"][N])
    assert sorted({body["seed"] for body in server.requests}) == [35, 36, 37, 38, 39]
    assert out["results"][N]["identical_sample_rate,none"] == 1.0
    fam = report(tmp_path / "out", capsys)
    assert fam["identical_sample_rate"] == 1.0


def test_older_logs_without_the_metric_are_read_from_their_generations(one_seed_run, tmp_path, capsys):
    """A samples log written before the metric existed: no ``identical_sample_rate`` key, only
    the generations; the report recomputes the rate from them."""
    path = next(one_seed_run[0].rglob(f"samples_{N}_*.jsonl"))
    path = Path(shutil.copy(path, tmp_path / path.name))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        row.pop("identical_sample_rate")
        row["metrics"].remove("identical_sample_rate")
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fam = report(path, capsys)
    assert fam["identical_sample_rate"] == 1.0 and fam["source"] == "samples"
