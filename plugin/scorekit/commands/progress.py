"""A progress bar on stderr for commands that read many files (``scorekit leaderboard``)."""

from __future__ import annotations

import sys
import time

PROGRESS_AFTER_S = 2.0


class Progress:
    """A rich progress bar on stderr that appears only when useful.

    ``show=None``: appear once reading has taken more than PROGRESS_AFTER_S seconds and stderr
    is a terminal; ``True``: always (even when not a terminal); ``False``: never.
    """

    def __init__(self, show: bool | None):
        self.show = show
        self.start = time.perf_counter()
        self.bar = None
        self.task = None
        self.last_check = 0

    def __enter__(self) -> "Progress":
        if self.show:
            self._start_bar(None)
        return self

    def _start_bar(self, total: int | None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(stderr=True, force_terminal=True if self.show else None)
        self.bar = Progress(TextColumn("reading results"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                            console=console, transient=True)
        self.bar.start()
        self.task = self.bar.add_task("read", total=total)

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            if self.show is False or done - self.last_check < 32:
                return
            self.last_check = done
            if time.perf_counter() - self.start < PROGRESS_AFTER_S or not sys.stderr.isatty():
                return
            self._start_bar(total)
        self.bar.update(self.task, completed=done, total=total)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
