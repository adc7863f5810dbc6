"""lm-eval adapter: importing this package registers scorekit's metrics with lm-eval.

A task YAML opts in with one line, ``class: !function scorekit.lm_eval.ScorekitTask``: lm-eval
resolves ``!function`` while loading the YAML, so scorekit is imported (and its metric names
registered) before the task's ``metric_list`` is read. ``ScorekitTask`` is imported lazily.
"""

from __future__ import annotations

from typing import Any

from scorekit.lm_eval import registry  # noqa: F401  (registers on import)

__all__ = ["registry", "ScorekitTask"]


def __getattr__(name: str) -> Any:
    if name == "ScorekitTask":
        from scorekit.lm_eval.task import ScorekitTask

        return ScorekitTask
    raise AttributeError(f"module 'scorekit.lm_eval' has no attribute {name!r}")
