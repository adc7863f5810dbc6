"""How many torch threads the demo uses: the processors idle now, measured, not the load average.

The one-minute load average lags: straight after ``pip install`` it still says ~0.8 on an idle
2-core machine, which cost the demo one of its two cores. Instead the processors' busy time is
sampled over a fraction of a second with psutil, on Linux, macOS and Windows alike. Its count is
``top``'s: idle and I/O-wait time are idle, guest time is already in user time, steal time is busy.

One sample at the start decided the whole run: a blip of another program in those 0.3 s (or a
busy moment that passed) kept the demo on one thread of two for all its ~100 s of generation.
:class:`ThreadFollower` sets the count again before each wave of prompts the engine reads,
from what *other* programs used since the last wave (this process's own time left out).
"""

from __future__ import annotations

import os
import time

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


def idle_for_us(busy_seconds: float, own_seconds: float, elapsed: float, processors: int) -> float:
    """Processors left idle by other programs over ``elapsed`` seconds: ``processors`` minus the
    busy time of all processors less this process's own CPU time, per second, within
    ``0..processors``.

    >>> idle_for_us(busy_seconds=3.0, own_seconds=2.0, elapsed=2.0, processors=2)  # others: half of one
    1.5
    """
    if elapsed <= 0:
        return float(processors)
    others = max(0.0, busy_seconds - own_seconds) / elapsed
    return max(0.0, min(float(processors), processors - others))


def _busy_seconds(times) -> float:
    """All processors' busy seconds from ``psutil.cpu_times()``: the total (guest time is already
    in user time) less idle and I/O wait."""
    fields = times._asdict()
    total = sum(v for k, v in fields.items() if k not in ("guest", "guest_nice"))
    return total - fields.get("idle", 0.0) - fields.get("iowait", 0.0)


class ThreadFollower:
    """Called before each wave of generation: sets torch's thread count to the processors other
    programs left idle since the previous call (:func:`idle_for_us`, rounded as
    :func:`torch_threads` rounds), once at least ``min_seconds`` have passed. ``used`` lists the
    counts set, in order."""

    def __init__(self, usable: int, first: int, min_seconds: float = 2.0) -> None:
        self.usable, self.min_seconds, self.used = usable, min_seconds, [first]
        self._last = self._read()

    def _read(self) -> tuple[float, float, float] | None:
        try:
            own = psutil.Process().cpu_times()
            return _busy_seconds(psutil.cpu_times()), own.user + own.system, time.monotonic()
        except (OSError, RuntimeError, NotImplementedError, psutil.Error):
            return None

    def __call__(self) -> None:
        now = self._read()
        if now is None or self._last is None or now[2] - self._last[2] < self.min_seconds:
            return
        busy, own, elapsed = (a - b for a, b in zip(now, self._last))
        self._last = now
        processors = psutil.cpu_count() or 1
        threads = torch_threads(self.usable, idle_for_us(busy, own, elapsed, processors))
        if threads != self.used[-1]:
            import torch

            torch.set_num_threads(threads)
            self.used.append(threads)
