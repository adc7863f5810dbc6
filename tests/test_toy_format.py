"""A harness format registered from outside the package is read by every command: a toy "graded
log" (a JSON line naming the model and task, then one line per question with ``id`` and
``correct``) goes through compare, export, leaderboard-style results reading and robustness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekit.cli import main
from scorekit.harness_outputs.formats import Format
from scorekit.harness_outputs.registry import FORMATS, register_format
from scorekit.harness_outputs.values import ResultsFile, TaskFacts, per_question
from scorekit.robustness import readers
from scorekit.robustness.records import Record


class GradedLog:
    """One run of one task: ``.metrics`` per question, ``.notes``."""

    def __init__(self, path: Path):
        head, *rows = [json.loads(line) for line in path.read_text().splitlines()]
        self.model, self.task, self.rows = head["model"], head["task"], rows
        self.metrics = {"correct": per_question([r["id"] for r in rows], [r["correct"] for r in rows], {})}
        self.notes: list[str] = []


class GradedFormat(Format):
    name = "graded"
    library = "graded"

    def is_log(self, path: Path) -> bool:
        return path.name.endswith(".graded")

    def read_logs(self, paths, notes):
        return {(log.model, log.task): log for log in map(GradedLog, paths)}

    def read_results(self, path, data):
        log = GradedLog(Path(path))
        mean = sum(r["correct"] for r in log.rows) / len(log.rows)
        return ResultsFile(path, "graded", log.model, 0.0, "none", {log.task: {"correct": mean}})

    def log_facts(self, path):
        log = GradedLog(Path(path))
        return log.model, log.task, TaskFacts("graded", "graded", "1", 0.0, path, {})


class GradedScore:
    """The robustness side: a graded log of a SCORE prompt task, one line per (question, prompt)."""

    name = "graded SCORE log"

    def claims(self, path: Path) -> bool:
        return path.name.endswith(".graded") and "score_prompt" in path.read_text().splitlines()[0]

    def read(self, paths, explicit):
        out = readers.ReadResult()
        for path in paths:
            log = GradedLog(path)
            records = [Record(r["id"], "prompt", r["prompt"], 10, "law", int(not r["correct"]), bool(r["correct"]))
                       for r in log.rows]
            out.samples.append(readers.SampleSet(log.model, readers.classify_task(log.task), "graded", records,
                                                 [str(path)]))
        return out


def write_log(path: Path, model: str, task: str, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(x) for x in [{"model": model, "task": task}, *rows]) + "\n")
    return path


@pytest.fixture
def graded():
    fmt, reader = GradedFormat(), GradedScore()
    register_format(fmt)
    register_format(fmt)  # registering again changes nothing
    yield fmt, reader
    FORMATS.remove(fmt)
    if reader in readers.READERS:
        readers.READERS.remove(reader)
    assert fmt not in FORMATS


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_compare_reads_a_registered_format(graded, tmp_path, capsys):
    # a gets questions 0-29 right but 0, 5, 10, ...; b gets every third wrong
    a = write_log(tmp_path / "a" / "run.graded", "acme/a", "toy", [{"id": f"q{i}", "correct": int(i % 5 != 0)} for i in range(30)])
    b = write_log(tmp_path / "b" / "run.graded", "acme/b", "toy", [{"id": f"q{i}", "correct": int(i % 3 != 0)} for i in range(30)])
    (row,) = _json(capsys, ["compare", str(a.parent), str(b.parent), "--format", "json"])["comparisons"]
    assert (row["task"], row["metric"], row["n_paired"], row["test"]) == ("toy", "correct", 30, "mcnemar")
    assert row["a_value"] == pytest.approx(24 / 30) and row["b_value"] == pytest.approx(20 / 30)


def test_export_and_results_read_a_registered_format(graded, tmp_path, capsys):
    from scorekit.leaderboards.results_files import load_results

    a = write_log(tmp_path / "a" / "run.graded", "acme/a", "toy", [{"id": f"q{i}", "correct": int(i < 3)} for i in range(4)])
    loaded = load_results([a.parent])
    assert loaded.models["acme/a"].get("toy").metrics == {"correct": 0.75}
    doc = _json(capsys, ["export", str(a.parent), "--retrieved-timestamp", "0"])
    assert doc["model_info"]["id"].endswith("acme/a")
    assert [r["score_details"]["score"] for r in doc["evaluation_results"]] == [pytest.approx(0.75)]


def test_robustness_names_a_format_without_a_reader_then_reads_it_with_one(graded, tmp_path, capsys):
    fmt, reader = graded
    rows = [{"id": f"q{q}", "prompt": v, "correct": int(v < 5)} for q in range(12) for v in range(10)]
    log = write_log(tmp_path / "run" / "m.graded", "acme/m", "score_prompt_robustness_mmlu_pro", rows)
    assert main(["robustness", str(log)]) == 2
    assert "a graded log: scorekit robustness has no reader for graded logs" in capsys.readouterr().err
    readers.register_reader(reader)
    report = _json(capsys, ["robustness", str(log.parent), "--format", "json"])
    assert "acme/m" in json.dumps(report)
    assert 20 / 45 == pytest.approx(_cr(report))


def _cr(report) -> float:
    found = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "consistency_rate" and isinstance(v, (int, float)):
                    found.append(v)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(report)
    return found[0]
