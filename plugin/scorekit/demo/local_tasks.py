"""Point scorekit's shipped SCORE tasks at local data files.

For each chosen leaf task a small YAML is written that ``include:``s the shipped one and
replaces only the dataset (``dataset_path: json`` + ``data_files``) and, optionally, the
generation length. Task names stay the shipped ones, so the logs read like a normal run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import yaml

from scorekit.errors import ScorekitError
from scorekit.resources import tasks_dir


def shipped_leaf_tasks() -> dict[str, Path]:
    """Map every shipped SCORE leaf task name to its YAML file (groups are left out)."""
    found: dict[str, Path] = {}
    for path in sorted((tasks_dir() / "score").rglob("*.yaml")):
        # Only the task/group names are needed: read the YAML without resolving !function.
        cfg = yaml.safe_load(path.read_text(encoding="utf-8").replace("!function", ""))
        if isinstance(cfg, dict) and "task" in cfg and "group" not in cfg and isinstance(cfg["task"], str):
            found[cfg["task"]] = path
    return found


def write_local_tasks(
    out_dir: str | Path,
    data_files: Mapping[str, str | Path],
    *,
    max_gen_toks: int | None = None,
) -> Path:
    """Write override YAMLs for ``{task_name: jsonl file}`` into ``out_dir``; return it."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    shipped = shipped_leaf_tasks()
    for task, data in data_files.items():
        if task not in shipped:
            raise ScorekitError(f"no shipped SCORE task named {task!r}", where="local tasks")
        data = Path(data).resolve()
        if not data.is_file():
            raise ScorekitError("data file not found", path=data)
        override: dict = {
            "include": str(shipped[task]),
            "task": task,
            "dataset_path": "json",
            "dataset_name": None,
            "dataset_kwargs": {"data_files": {"test": str(data)}},
        }
        if max_gen_toks is not None:
            shipped_cfg = yaml.safe_load(shipped[task].read_text(encoding="utf-8").replace("!function", ""))
            gen = dict(_resolved_generation_kwargs(shipped[task], shipped_cfg))
            gen["max_gen_toks"] = int(max_gen_toks)
            override["generation_kwargs"] = gen
        (out / f"{task}.yaml").write_text(yaml.safe_dump(override, sort_keys=False), encoding="utf-8")
    return out


def _resolved_generation_kwargs(path: Path, cfg: dict) -> dict:
    """generation_kwargs of a shipped YAML, following its ``include:`` chain."""
    if "generation_kwargs" in cfg:
        return cfg["generation_kwargs"] or {}
    include = cfg.get("include")
    if include:
        parent = (path.parent / include).resolve()
        parent_cfg = yaml.safe_load(parent.read_text(encoding="utf-8").replace("!function", ""))
        return _resolved_generation_kwargs(parent, parent_cfg)
    return {}
