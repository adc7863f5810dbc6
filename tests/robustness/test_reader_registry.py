"""Adding a reader to READERS keeps the built-in readers (it used to replace them)."""

from __future__ import annotations

import shutil
from pathlib import Path

from scorekit.robustness import readers as R
from scorekit.robustness.benchmarks import classify_task
from scorekit.robustness.records import Record

CORPUS = Path(__file__).resolve().parents[1] / "conformance" / "corpus"


class CsvAnswers:
    """A toy reader: ``<model>.answers.csv`` with lines ``question_id,variant,answer,correct``
    of the MMLU-Pro prompt family."""

    name = "csv answers"

    def claims(self, path: Path) -> bool:
        return path.name.endswith(".answers.csv")

    def read(self, paths, explicit):
        out = R.ReadResult()
        for p in paths:
            recs = []
            for line in p.read_text().splitlines():
                qid, variant, answer, correct = line.split(",")
                recs.append(Record(qid, "prompt", int(variant), 10, "math", int(answer), correct == "1"))
            task = classify_task("score_prompt_robustness_mmlu_pro")
            out.samples.append(R.SampleSet(p.name.split(".")[0], task, "csv", recs, [str(p)]))
        return out


def test_registered_reader_is_asked_first_and_builtins_still_read(tmp_path, monkeypatch):
    (upstream,) = sorted(CORPUS.glob("lm-eval-0.4.13/score-upstream/*/samples_score_prompt_robustness_mmlu_pro_*.jsonl"))
    shutil.copy(upstream, tmp_path / upstream.name)
    (tmp_path / "mine.answers.csv").write_text("".join(f"q{q},{v},{v % 2},{int(v % 2 == 0)}\n"
                                                      for q in range(2) for v in range(10)))
    monkeypatch.setattr(R, "READERS", [CsvAnswers()])
    result = R.read_paths([tmp_path])
    layouts = sorted({s.layout for s in result.samples})
    assert layouts == ["csv", "upstream"]  # the built-in lm-eval reader still read its log
    (mine,) = [s for s in result.samples if s.layout == "csv"]
    assert mine.model == "mine" and len(mine.records) == 20


def test_register_reader_adds_a_reader_once(tmp_path, monkeypatch):
    monkeypatch.setattr(R, "READERS", [])
    reader = CsvAnswers()
    R.register_reader(reader)
    R.register_reader(reader)
    assert R.READERS == [reader]
    (tmp_path / "mine.answers.csv").write_text("q0,0,0,1\nq0,1,1,0\n")
    (mine,) = R.read_paths([tmp_path]).samples
    assert mine.layout == "csv" and len(mine.records) == 2
