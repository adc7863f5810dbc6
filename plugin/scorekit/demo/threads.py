"""How many torch threads the demo uses: the processors idle now, measured, not the load average.

The one-minute load average lags: straight after ``pip install`` it still says ~0.8 on an idle
2-core machine, which cost the demo one of its two cores. Instead the processors'
busy time is sampled twice from ``/proc/stat``, a fraction of a second apart.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

PROC_STAT = "/proc/stat"
SAMPLE_SECONDS = 0.3


def cpu_times(stat_text: str) -> tuple[int, int, int]:
    """``(busy, total, processors)`` from the text of ``/proc/stat``, in clock ticks since boot.

    The aggregate ``cpu`` line's fields are user, nice, system, idle, iowait, irq, softirq,
    steal, guest, guest_nice; idle time is ``idle + iowait``; guest time is already counted in
    user/nice, so it is left out of the total. ``processors`` counts the ``cpuN`` lines.
    Raises ValueError when there is no ``cpu`` line.
    """
    fields: list[int] | None = None
    processors = 0
    for line in stat_text.splitlines():
        name, _, rest = line.partition(" ")
        if name == "cpu":
            fields = [int(v) for v in rest.split()]
        elif name.startswith("cpu") and name[3:].isdigit():
            processors += 1
    if fields is None or len(fields) < 4:
        raise ValueError("no aggregate 'cpu' line")
    total = sum(fields[:8])
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return total - idle, total, max(1, processors)


def idle_processors(before: str, after: str) -> float:
    """Processors idle between two ``/proc/stat`` readings: ``processors x idle share``, where
    the idle share is ``1 - busy ticks / all ticks`` over the interval (0 ticks: all idle).

    >>> idle_processors("cpu 100 0 0 100 0\\ncpu0 1\\ncpu1 1", "cpu 150 0 0 250 0\\ncpu0 1\\ncpu1 1")
    1.5
    """
    busy0, total0, processors = cpu_times(before)
    busy1, total1, _ = cpu_times(after)
    ticks = total1 - total0
    if ticks <= 0:
        return float(processors)
    return processors * (1.0 - (busy1 - busy0) / ticks)


def sample_idle(stat_path: str | Path = PROC_STAT, seconds: float = SAMPLE_SECONDS) -> float | None:
    """Processors idle over the next ``seconds`` (:func:`idle_processors` of two readings of
    ``stat_path``), or None where there is no ``/proc/stat`` (macOS, Windows)."""
    try:
        before = Path(stat_path).read_text(encoding="ascii", errors="replace")
        time.sleep(seconds)
        after = Path(stat_path).read_text(encoding="ascii", errors="replace")
        return idle_processors(before, after)
    except (OSError, ValueError):
        return None


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
