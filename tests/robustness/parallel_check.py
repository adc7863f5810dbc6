"""A samples log read in parts by several processes must read exactly as it does whole, in this
process (``LmEvalLogsReader(jobs=...)``, issue 12 item 9): used by the tests of every layout."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from scorekit.harness_outputs import SAMPLES_NAME, samples_chunks
from scorekit.robustness.readers import ReadResult, read_paths
from scorekit.robustness.readers.lighteval_details import LightevalDetailsReader
from scorekit.robustness.readers.lm_eval_logs import LmEvalLogsReader

CHUNK = 300  # bytes: the real logs of the tests (10-30 KB) then split into three parts each


def read(paths, jobs: int, chunk_bytes: int = CHUNK) -> ReadResult:
    return read_paths(paths, readers=[LightevalDetailsReader(), LmEvalLogsReader(jobs=jobs, chunk_bytes=chunk_bytes)])


def samples_logs(paths) -> list[Path]:
    out = []
    for p in map(Path, paths):
        files = [p] if p.is_file() else [Path(d) / f for d, _, fs in os.walk(p) for f in fs]
        out.extend(f for f in files if SAMPLES_NAME.match(f.name))
    return out


def _fields(obj) -> dict:
    out = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if f.name == "records":
            value = list(value)
        elif f.name in ("identical", "metrics"):
            value = list(value.items())  # the order too
        out[f.name] = repr(value)  # NaN equals NaN
    return out


def assert_parts_read_the_same(paths, jobs: int = 3, chunk_bytes: int = CHUNK) -> ReadResult:
    """Read ``paths`` in this process (jobs=1) and by ``jobs`` processes (with the default
    ``chunk_bytes`` every samples log split); assert the two results are the same; return the
    first."""
    logs = samples_logs(paths)
    assert logs, paths
    if chunk_bytes == CHUNK:
        split = [log for log in logs if len(samples_chunks(log, jobs, CHUNK)) > 1]
        assert split, "no log was split: the test would not test reading in parts"
    whole, parts = read(paths, 1), read(paths, jobs, chunk_bytes)
    assert [_fields(s) for s in parts.samples] == [_fields(s) for s in whole.samples]
    assert [_fields(a) for a in parts.aggregates] == [_fields(a) for a in whole.aggregates]
    assert parts.notes == whole.notes
    return whole
