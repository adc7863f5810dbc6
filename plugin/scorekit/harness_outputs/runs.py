"""Run time: which run is the newest (rules in :mod:`scorekit.harness_outputs`)."""

from __future__ import annotations

import os
import re
import time
from datetime import datetime
from typing import Any

_TIME_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}(?:\.\d+)?)")


def time_in_name(name: str) -> str | None:
    """The harness time stamp in a file or folder name (``2024-06-16T10-22-33.123456``), or None."""
    m = _TIME_IN_NAME.search(os.path.basename(name))
    return m.group(0) if m else None


def run_time(path: str | os.PathLike[str], data: Any = None) -> tuple[float, str]:
    """``(Unix seconds, source)`` of a run (rule in the module docstring): lm-eval's ``date`` in
    ``data``, else the file name's time stamp (local time), else the modification time.
    ``source`` is ``"date field"``, ``"file name"`` or ``"modification time"``."""
    if isinstance(data, dict) and "config_general" not in data:
        date = data.get("date")
        if isinstance(date, (int, float)) and not isinstance(date, bool) and date == date:
            return float(date), "date field"
    m = _TIME_IN_NAME.search(os.path.basename(os.fspath(path)))
    if m:
        try:
            dt = datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}:{m.group(3)}:{m.group(4)}")
            return dt.timestamp(), "file name"
        except ValueError:
            pass
    try:
        return os.path.getmtime(path), "modification time"
    except OSError:
        return time.time(), "modification time"
