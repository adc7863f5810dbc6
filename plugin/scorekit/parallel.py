"""Work spread over processes, where a user waits on big inputs.

Used by ``scorekit robustness`` to read samples logs: one log of 1 GB takes seconds to parse,
and the parse splits by lines (``bench/bench_robustness_log.py --jobs``). Processes are forked
(Linux only): a worker starts in milliseconds with everything the parent imported, and returns
its results pickled. Elsewhere, or with ``jobs=1``, the same work runs in this process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

__all__ = ["JOBS_MAX", "default_jobs", "map_in_order"]

T = TypeVar("T")
R = TypeVar("R")

JOBS_MAX = 8  # the default's cap: a shared login node is not all ours


def default_jobs() -> int:
    """The processors this process may run on (``os.sched_getaffinity``), at most :data:`JOBS_MAX`."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(n, JOBS_MAX))


def map_in_order(fn: Callable[[T], R], items: Sequence[T], jobs: int) -> Iterator[R]:
    """``fn(item)`` for each item, in order, computed by up to ``jobs`` forked processes.

    ``fn`` must be a module-level function without side effects; items and results are
    pickled (sent in batches of about an eighth of a worker's share). An exception in a
    worker is raised here. A worker that dies (killed, out of memory) has every item not yet
    given computed again in this process. With ``jobs <= 1``, one item, or no ``fork`` (not
    Linux), nothing is forked.
    """
    jobs = min(jobs, len(items))
    if jobs <= 1 or not sys.platform.startswith("linux"):
        yield from map(fn, items)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    done = 0
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))
    try:
        for result in pool.map(fn, items, chunksize=max(1, len(items) // (8 * jobs))):
            yield result
            done += 1
    except BrokenProcessPool:
        pass
    finally:  # on an error, Ctrl-C or a consumer that stops, the items not started are dropped
        pool.shutdown(wait=True, cancel_futures=True)
    yield from map(fn, items[done:])
