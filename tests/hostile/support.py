"""Inputs in the real harness shapes, and a runner that checks the one-line promise.

The base files are copies of what lm-eval 0.4.13 and lighteval 0.13.0 wrote in the
conformance corpus (tests/conformance/corpus); each test breaks one thing in a copy.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

from scorekit.cli import main

CORPUS = Path(__file__).resolve().parents[1] / "conformance" / "corpus"
LM_EVAL_RESULTS = next((CORPUS / "lm-eval-0.4.13" / "dummy").glob("*/results_*.json"))
SCORE_RUN = CORPUS / "lm-eval-0.4.13" / "score-scorekit" / "corpus-org__scripted-api"
PROMPT_SAMPLES = next(SCORE_RUN.glob("samples_score_prompt_robustness_mmlu_pro_*.jsonl"))
LIGHTEVAL_DETAILS = next((CORPUS / "lighteval-0.13.0").rglob("details_score_prompt_robustness_mmlu_pro*template_5*.parquet"))
LIGHTEVAL_RESULTS = next((CORPUS / "lighteval-0.13.0" / "score-scorekit" / "results").rglob("results_*.json"))

RANK_TEXT = "arena = {'org/a': 1, 'org/b': 2, 'known_totals': 10}\nhelm = {'org/a': 2, 'org/b': 1, 'known_totals': 5}\ncosts = {'org/a': 1.5}\n"
RANK_FORMATS = ("table", "markdown", "csv", "json", "html")


def results_body(model: str | None = None) -> dict:
    """lm-eval's results JSON (leaderboard GPQA tasks) with ``model_name`` replaced."""
    body = json.loads(LM_EVAL_RESULTS.read_text())
    if model is not None:
        body["model_name"] = model
    return body


def write_results(folder: Path, body: dict | str | bytes, name: str = "results_2026-11-23T12-12-41.985277.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if isinstance(body, bytes):
        path.write_bytes(body)
    else:
        path.write_text(body if isinstance(body, str) else json.dumps(body))
    return path


def score_run(folder: Path) -> Path:
    """A copy of a scorekit SCORE prompt-robustness run (results + one samples file)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(PROMPT_SAMPLES, folder / PROMPT_SAMPLES.name)
    return folder / PROMPT_SAMPLES.name


def run(argv: list, *, cwd: Path | None = None) -> tuple[int, str, str]:
    """``scorekit argv`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(a) for a in argv])
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def assert_one_line_error(result: tuple[int, str, str], *needles: str) -> str:
    """Exit 2, nothing on stdout, exactly one ``scorekit: error:`` line, no traceback, and
    every needle in that line. Returns the line."""
    code, out, err = result
    assert code == 2, (code, err)
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("scorekit: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def assert_ok_or_one_line(result: tuple[int, str, str]) -> None:
    """Either success (exit 0) or the one-line promise; never a traceback or another code."""
    code, out, err = result
    assert code in (0, 2), (code, err)
    assert "Traceback" not in err
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("scorekit: error: "), err
