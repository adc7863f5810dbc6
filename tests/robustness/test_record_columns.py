"""Records held column-wise (RecordColumns): the same records as a list, compactly, and the
same summaries (issue 12, item 9: memory that does not grow with a samples log's size)."""

from __future__ import annotations

import math
import tracemalloc
import warnings

import pytest

from scorekit.robustness.analysis import summarize
from scorekit.robustness.records import Record, RecordColumns, record_columns


def _records() -> list[Record]:
    out = []
    # q0 is incomplete (variant 1 missing) and is the only question of "art", seen first
    out.append(Record("q0", "prompt", 0, 2, "art", 1, True))
    for i in range(1, 40):
        cat = ("law", "math", "physics")[i % 3]
        for v in range(2):
            answer = None if (i + v) % 7 == 0 else (i * (v + 1)) % 4
            out.append(Record(f"q{i}", "prompt", v, 2, cat, answer, answer == 1))
    return out


def test_columns_hold_the_same_records():
    recs = _records()
    cols = RecordColumns(recs)
    assert len(cols) == len(recs) and list(cols) == recs and cols == recs and recs == cols
    assert cols[0] == recs[0] and cols[-1] == recs[-1] and cols[3:7] == recs[3:7]
    assert cols.questions[:2] == ["q0", "q1"] and cols.categories == ["art", "math", "physics", "law"]
    with pytest.raises(IndexError):
        cols[len(recs)]
    assert cols != recs[:-1] and cols != [*recs[:-1], recs[-1]._replace(correct=not recs[-1].correct)]
    # codes renumbered when columns are joined: first appearance order over the whole sequence
    joined = record_columns([RecordColumns(recs[40:]), recs[:40]])
    assert list(joined) == recs[40:] + recs[:40]
    assert joined.questions == list(dict.fromkeys(r.question_id for r in recs[40:] + recs[:40]))
    assert record_columns([cols]) is cols


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("macro", [False, True])
def test_summary_of_columns_equals_summary_of_the_list(macro):
    """Same numbers, same bootstrap draws, same warnings -- also when the first category seen
    belongs only to an incomplete question (categories are numbered among the kept records)."""
    recs = _records()
    with warnings.catch_warnings(record=True) as w_list:
        warnings.simplefilter("always")
        from_list = summarize(recs, macro=macro, intervals=True)
    with warnings.catch_warnings(record=True) as w_cols:
        warnings.simplefilter("always")
        from_cols = summarize(RecordColumns(recs), macro=macro, intervals=True)
    assert [str(w.message) for w in w_list] == [str(w.message) for w in w_cols] and w_list
    assert from_list.n_incomplete == 1 and from_list.incomplete_questions == ("q0",)
    for field in from_list.__dataclass_fields__:
        assert _same(getattr(from_list, field), getattr(from_cols, field)), field


def test_columns_take_few_bytes_a_record():
    """~35 bytes an answer (codes, flags, a reference to a shared small int) and each question's
    id once: ~47 in all here, where a Record per answer takes ~167."""
    n_q, n_v = 5000, 10
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        cols = RecordColumns()
        for q in range(n_q):
            qid, cat = str(70000 + q), ("law", "math")[q % 2]
            for v in range(n_v):
                cols.append(qid, "prompt", v, n_v, cat, (q + v) % 10, v == 0)
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    per_record = used / len(cols)
    assert per_record < 80, per_record


def test_a_variant_beyond_64_bits_is_one_line_naming_the_line(tmp_path):
    """A doc whose variant and n_variants do not fit the columns' 64-bit integers: exit 2 and
    one line naming the file and line, no traceback (as for any other unscorable sample)."""
    import json
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    src = Path(__file__).parents[1] / "conformance/corpus/lm-eval-0.4.13/score-scorekit/corpus-org__scripted-api"
    (log,) = src.glob("samples_score_prompt_robustness_mmlu_pro_*.jsonl")
    shutil.copy(next(src.glob("results_*.json")), tmp_path)
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    rows[1]["doc"].update(variant=10**20, n_variants=10**21)
    bad = tmp_path / log.name
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "scorekit", "robustness", str(bad)], capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and bad.name in lines[0] and "line 2" in lines[0] and "Traceback" not in proc.stderr
