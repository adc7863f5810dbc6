"""How many torch threads the demo uses: the processors idle now, measured, not the load average.

The one-minute load average lags: straight after ``pip install`` it still says ~0.8 on an idle
2-core machine, which cost the demo one of its two cores. Instead the processors' busy time is
sampled over a fraction of a second with psutil, on Linux, macOS and Windows alike. Its count is
``top``'s: idle and I/O-wait time are idle, guest time is already in user time, steal time is busy.
"""

from __future__ import annotations

import os

import psutil

SAMPLE_SECONDS = 0.3


def idle_processors(busy_percent: float, processors: int) -> float:
    """Processors idle: ``processors x (1 - busy_percent / 100)``, the busy share over all processors.

    >>> idle_processors(25.0, 2)
    1.5
    """
    return processors * (1.0 - busy_percent / 100.0)


def sample_idle(seconds: float = SAMPLE_SECONDS) -> float | None:
    """Processors idle over the next ``seconds``: :func:`idle_processors` of psutil's busy
    percentage over that interval (no clock tick in it: all idle), or None where psutil cannot
    read the processors' times."""
    try:
        busy = psutil.cpu_percent(interval=seconds)
        processors = psutil.cpu_count() or 1
    except (OSError, RuntimeError, NotImplementedError):
        return None
    return idle_processors(busy, processors)


def usable_processors() -> int:
    """Processors this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def torch_threads(usable: int, idle: float | None) -> int:
    """Threads for torch: the idle processors rounded to the nearest whole one, within
    ``1..usable``; ``idle`` None (not measured) gives ``usable``.

    torch uses every core by default; on a busy machine its threads wait for each other at
    every step: side by side on the 2-core machine at load ~12, 32 prompts x 24 tokens took
    16.6 s with one thread and 159.5 s with two (README, "The demo").

    >>> torch_threads(2, 1.97), torch_threads(2, 1.4), torch_threads(2, 0.1), torch_threads(8, None)
    (2, 1, 1, 8)
    """
    usable = max(1, usable)
    if idle is None:
        return usable
    return max(1, min(usable, int(idle + 0.5)))
