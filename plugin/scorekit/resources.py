"""Locate the task definitions and configs that ship with scorekit.

In a wheel they are copied to ``scorekit/tasks`` and ``scorekit/configs``; in an editable
checkout they sit at the top of the repository (``<repo>/tasks``, ``<repo>/configs``).
"""

from __future__ import annotations

import os
from pathlib import Path

from scorekit.errors import ScorekitError

_PACKAGE_DIR = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    candidates = (_PACKAGE_DIR / name, _PACKAGE_DIR.parent.parent / name)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"scorekit's '{name}' folder was not found (looked in "
                            f"{', '.join(str(c) for c in candidates)}); reinstall scorekit")


def tasks_dir() -> Path:
    """Folder of shipped task definitions; pass it to ``lm_eval --include_path``."""
    return _find("tasks")


def configs_dir() -> Path:
    """Folder of shipped normalization and scoring configs."""
    return _find("configs")


def config_path(name: str) -> Path:
    """Path of a shipped config file by file name (e.g. ``"open_llm_leaderboard_v2.yaml"``)."""
    path = configs_dir() / name
    if not path.is_file():
        available = sorted(p.name for p in configs_dir().iterdir() if p.is_file())
        raise FileNotFoundError(f"no shipped config named {name!r}; available: {available}")
    return path


def find_config(spec: str) -> Path:
    """The config a user names with ``--config``: ``spec`` itself when that path exists, else
    the shipped config of that name (``.yaml`` may be left out; a name holds no path
    separator). Anything else raises :class:`ScorekitError` listing the shipped configs."""
    if os.path.exists(spec):
        return Path(spec)
    if os.path.lexists(spec):  # a broken symlink or a symlink loop: say which
        from scorekit.files import missing_reason

        raise ScorekitError(missing_reason(spec), path=spec)
    name = spec if spec.endswith((".yaml", ".yml")) else spec + ".yaml"
    if os.sep not in spec and (configs_dir() / name).is_file():
        return configs_dir() / name
    shipped = ", ".join(sorted(p.stem for p in configs_dir().glob("*.yaml")))
    raise ScorekitError(f"config file not found, and no shipped config of that name (shipped: {shipped})", path=spec)
