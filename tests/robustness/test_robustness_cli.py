"""``scorekit robustness``: formats, --output, and one-line errors with exit code 2."""

from __future__ import annotations

import csv
import io
import json

import pytest

from scorekit.cli import main
from tests.robustness.report_fixtures import build_logs

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    return build_logs.upstream_logs(tmp_path_factory)


def test_table_is_default(upstream, capsys):
    assert main(["robustness", str(upstream["upstream"]), str(upstream["upstream_ng"])]) == 0
    out = capsys.readouterr().out
    assert "SCORE robustness" in out and "Accuracy per prompt" in out and "Accuracy per answer position" in out
    assert "scripted/sampler" in out and "non-greedy" in out
    assert "Notes:" in out and "no logs for family(ies)" in out


def test_json_and_output_file(upstream, tmp_path, capsys):
    target = tmp_path / "deep" / "report.json"
    assert main(["robustness", str(upstream["upstream_ng"]), "-f", "json", "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    data = json.loads(target.read_text())
    assert data["report"] == "scorekit-robustness"
    (model,) = data["models"]
    fam = model["benchmarks"][0]["families"][0]
    assert fam["family"] == "non_greedy" and fam["runs"] == [f"seed {s}" for s in range(1, 6)]
    assert fam["consistency_rate"] == pytest.approx(28 / 60)
    assert [p.name for p in target.parent.iterdir()] == ["report.json"]  # no temporary left behind


def test_csv_notes_go_to_stderr(upstream, capsys):
    assert main(["robustness", str(upstream["upstream_ng"]), "--format", "csv"]) == 0
    captured = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(captured.out)))
    assert {r["model"] for r in rows} == {"scripted/sampler"}
    assert "scorekit: note:" in captured.err and "no logs for family(ies)" in captured.err


def test_html_page(upstream, tmp_path, capsys):
    target = tmp_path / "report.html"
    assert main(["robustness", str(upstream["upstream"]), str(upstream["upstream_ng"]), "-f", "html", "-o", str(target)]) == 0
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<h1>SCORE robustness</h1>" in page
    assert "<caption>SCORE robustness</caption>" in page and "<caption>Accuracy per answer position</caption>" in page
    assert "<h2>Notes</h2>" in page and "no logs for family(ies)" in page
    assert "scripted/sampler" in page


def test_markdown(upstream, capsys):
    assert main(["robustness", str(upstream["upstream"]), "-f", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### SCORE robustness") and "### Notes" in out


@pytest.mark.parametrize("args, message", [
    (["robustness", "/nonexistent/path"], "no such file or directory"),
    (["robustness", "{empty}"], "no SCORE robustness results or samples found"),
    (["robustness", "{bad}"], "line 2: invalid JSON"),
    (["robustness", "{upstream}", "--confidence", "1.5"], "--confidence must be between 0 and 1"),
])
def test_errors_are_one_line_exit_2(args, message, upstream, tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = tmp_path / "samples_score_prompt_robustness_mmlu_pro_2024-01-01T00-00-00.000001.jsonl"
    (src,) = (upstream["upstream"] / "scripted__mixed").glob("samples_score_prompt_robustness_mmlu_pro_*.jsonl")
    first = src.read_text().splitlines()[0]
    bad.write_text(first + "\n" + first[: len(first) // 2] + "\n")
    args = [a.format(empty=empty, bad=bad, upstream=upstream["upstream"]) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("scorekit: error: ") and message in err
    assert err.count("\n") == 1


def test_failed_run_writes_no_output_file(tmp_path, capsys):
    target = tmp_path / "report.md"
    assert main(["robustness", str(tmp_path / "missing"), "-o", str(target)]) == 2
    assert not target.exists()
    capsys.readouterr()
