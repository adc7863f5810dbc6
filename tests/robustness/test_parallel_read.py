"""Samples logs read in parts by several processes (issue 12, item 9: a 1 GB log waits on its
parse; ``bench/bench_robustness_log.py`` measures it): the parts of a file, the process map, and
reading the committed corpus, errors included, exactly as a whole read does."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from scorekit.cli import main
from scorekit.errors import ScorekitError
from scorekit.harness_outputs import iter_samples, samples_chunks
from scorekit.parallel import default_jobs, map_in_order
from tests.robustness.parallel_check import CHUNK, assert_parts_read_the_same, read, samples_logs

CORPUS = Path(__file__).parents[1] / "conformance" / "corpus"
SCORE_RUNS = sorted(p for p in CORPUS.glob("lm-eval-*/score-*") if p.is_dir())


def _pid(_: object) -> int:
    return os.getpid()


def _fail(x: int) -> int:
    if x == 2:
        raise ValueError("two")
    return x


PARENT = os.getpid()


def _die_in_a_worker(x: int) -> int:
    if os.getpid() != PARENT:
        os._exit(9)  # as the kernel's out-of-memory killer would end it
    return x * 2


def test_a_dead_worker_has_the_items_computed_here():
    assert list(map_in_order(_die_in_a_worker, [1, 2, 3], 2)) == [2, 4, 6]


def test_map_in_order_forks_and_keeps_the_order():
    items = list(range(7))
    assert list(map_in_order(abs, items, 3)) == items
    pids = set(map_in_order(_pid, items, 2))
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert list(map_in_order(_pid, items, 1)) == [os.getpid()] * 7
    with pytest.raises(ValueError, match="two"):
        list(map_in_order(_fail, items, 2))
    assert 1 <= default_jobs() <= 8


def test_chunks_cover_the_file_and_start_at_lines(tmp_path):
    log = samples_logs([CORPUS / "lm-eval-0.4.13" / "score-scorekit"])[0]
    data = log.read_bytes()
    for parts in (2, 3, 7):
        ranges = samples_chunks(log, parts, CHUNK)
        assert len(ranges) == parts
        assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
        assert all(a < b for a, b in ranges) and all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:]))
        assert all(data[a - 1:a] == b"\n" for a, _ in ranges[1:])
        # the parts' lines are the file's lines, once each
        lines = [row for a, b in ranges for _, row in iter_samples(log, a, b)]
        assert lines == [row for _, row in iter_samples(log)]
    assert samples_chunks(log, 3, len(data)) == [(0, len(data))]  # smaller than two parts
    assert len(samples_chunks(log, 50, len(data) // 4)) == 4  # parts of at least min_bytes
    array = next(CORPUS.glob("lm-eval-0.4.2/extras/*_leaderboard_ifeval.jsonl"))  # 0.4.2: one JSON array
    assert array.read_bytes().lstrip().startswith(b"[")
    assert samples_chunks(array, 3, 10) == [(0, array.stat().st_size)]


@pytest.mark.parametrize("run", SCORE_RUNS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_runs_read_in_parts_as_whole(run):
    """Every SCORE run the real harnesses wrote (scorekit's tasks, lm-eval's own), 0.4.7-0.5."""
    assert_parts_read_the_same([run])


def test_whole_logs_read_by_workers_as_here():
    """Parts as big as the smallest log: that one (the non-greedy log) is read whole by a worker
    process, the others in two parts each, all in one map."""
    run = CORPUS / "lm-eval-0.4.13" / "score-scorekit"
    logs = samples_logs([run])
    chunk = min(log.stat().st_size for log in logs)
    total = sum(log.stat().st_size for log in logs)
    assert len(logs) >= 3 and total >= chunk
    parts = [len(samples_chunks(log, 3, chunk)) for log in logs]
    assert 1 in parts and max(parts) > 1
    assert_parts_read_the_same([run], chunk_bytes=chunk)


def _broken_copy(run: Path, dest: Path, line: int, text: bytes) -> tuple[Path, int]:
    """A copy of ``run`` whose biggest samples log has ``text`` as its line ``line`` (negative:
    from the end); returns that log and the line's number."""
    shutil.copytree(run, dest)
    log = max(samples_logs([dest]), key=lambda f: f.stat().st_size)
    lines = log.read_bytes().splitlines(keepends=True)
    lineno = line if line > 0 else len(lines) + 1 + line
    lines[lineno - 1] = text
    log.write_bytes(b"".join(lines))
    return log, lineno


@pytest.mark.parametrize("bad", [b"{not json\n", b"[1, 2]\n", b'{"doc_id": 0, "doc": 5}\n'])
def test_an_error_in_a_later_part_names_the_files_line(tmp_path, bad):
    log, lineno = _broken_copy(CORPUS / "lm-eval-0.4.13" / "score-scorekit", tmp_path / "run", -2, bad)
    assert len(samples_chunks(log, 3, CHUNK)) == 3
    with pytest.raises(ScorekitError) as whole:
        read([tmp_path / "run"], 1)
    with pytest.raises(ScorekitError) as parts:
        read([tmp_path / "run"], 3)
    assert str(parts.value) == str(whole.value)
    assert str(whole.value).startswith(f"{log}: line {lineno}: ")


def test_the_first_error_in_file_order_is_the_one_raised(tmp_path):
    """An error late in the first log and one on the first line of the second (found before the
    parts are read): the first log's, as a whole read says."""
    runs = tmp_path / "runs"
    src = CORPUS / "lm-eval-0.4.13" / "score-scorekit"
    first, lineno = _broken_copy(src, runs / "a", -2, b"{not json\n")
    second, _ = _broken_copy(src, runs / "b", 1, b'{"doc_id": 0, "doc": {"x": 1}}\n')
    with pytest.raises(ScorekitError) as whole:
        read([runs], 1)
    with pytest.raises(ScorekitError) as parts:
        read([runs], 3)
    assert str(parts.value) == str(whole.value)
    assert str(whole.value).startswith(f"{first}: line {lineno}: ")


def test_jobs_option(capsys):
    assert main(["robustness", str(CORPUS / "lm-eval-0.4.13" / "score-scorekit"), "--jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["scorekit: error: --jobs must be 1 or more, got 0"]
    run = str(CORPUS / "lm-eval-0.4.13" / "score-scorekit")
    assert main(["robustness", run, "--format", "json", "--jobs", "1"]) == 0
    one = capsys.readouterr().out
    assert main(["robustness", run, "--format", "json", "--jobs", "2"]) == 0
    assert capsys.readouterr().out == one
