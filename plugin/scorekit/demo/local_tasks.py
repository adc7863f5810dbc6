"""Point scorekit's shipped SCORE tasks at local data files.

For each chosen leaf task a small YAML is written that ``include:``s the shipped one and
replaces only the dataset (``dataset_path: json`` + ``data_files``) and, optionally, the
generation length. Task names stay the shipped ones, so the logs read like a normal run.

Few-shot examples: a shipped task that takes them from a split of other questions
(``fewshot_split``: MMLU-Pro's validation, MATH's train) gets that split from
``fewshot_files``; without such a file the local dataset lacks the split, and the task refuses
``--num_fewshot`` > 0 (as AGIEval's tasks do) instead of drawing examples from the test file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import yaml

from scorekit.errors import ScorekitError
from scorekit.resources import tasks_dir


def _load(path: Path) -> dict:
    # Only plain keys are needed: read the YAML without resolving !function.
    cfg = yaml.safe_load(path.read_text(encoding="utf-8").replace("!function", ""))
    return cfg if isinstance(cfg, dict) else {}


def shipped_leaf_tasks() -> dict[str, Path]:
    """Map every shipped SCORE leaf task name to its YAML file (groups are left out)."""
    found: dict[str, Path] = {}
    for path in sorted((tasks_dir() / "score").rglob("*.yaml")):
        cfg = _load(path)
        if "task" in cfg and "group" not in cfg and isinstance(cfg["task"], str):
            found[cfg["task"]] = path
    return found


def write_local_tasks(
    out_dir: str | Path,
    data_files: Mapping[str, str | Path],
    *,
    max_gen_toks: int | None = None,
    fewshot_files: Mapping[str, str | Path] | None = None,
    budgets: Mapping[str, tuple[int, int]] | None = None,
) -> Path:
    """Write override YAMLs for ``{task_name: jsonl file}`` into ``out_dir``; return it.

    ``budgets`` (``{task_name: (B, seed)}``) runs a task on a budget: each question under B of its
    variants, the seeded design of ``scorekit variants --budget`` (docs/budget.md), written as the
    shipped task's ``metadata`` plus ``budget: {per_question: B, seed: S}``.

    ``fewshot_files`` (``{task_name: jsonl file}``) gives a task's few-shot split (questions
    other than the test file's, in the same format); a task listed there whose shipped YAML has
    no few-shot split is an error.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    shipped = shipped_leaf_tasks()
    fewshot_files = dict(fewshot_files or {})
    unknown = sorted(set(fewshot_files) - set(data_files))
    if unknown:
        raise ScorekitError(f"few-shot file for task(s) without test data: {', '.join(unknown)}", where="local tasks")
    for task, data in data_files.items():
        if task not in shipped:
            raise ScorekitError(f"no shipped SCORE task named {task!r}", where="local tasks")
        files = {"test": _existing(data)}
        override: dict[str, Any] = {
            "include": str(shipped[task]),
            "task": task,
            "dataset_path": "json",
            "dataset_name": None,
            "dataset_kwargs": {"data_files": files},
        }
        if task in fewshot_files:
            split = _resolved(shipped[task], "fewshot_split")
            if not split:
                raise ScorekitError(f"task {task!r} takes no few-shot examples (its dataset has no few-shot split)",
                                    where="local tasks")
            files[split] = _existing(fewshot_files[task])
        elif _resolved(shipped[task], "fewshot_split"):
            # no few-shot data: the task has no few-shot split (lm-eval 0.5 loads every split a
            # task names and fails on a missing one; SCORETask then refuses --num_fewshot > 0)
            override["fewshot_split"] = None
        if task in (budgets or {}):
            b, seed = budgets[task]
            override["metadata"] = {**(_resolved(shipped[task], "metadata") or {}),
                                    "budget": {"per_question": int(b), "seed": int(seed)}}
        if max_gen_toks is not None:
            gen = dict(_resolved(shipped[task], "generation_kwargs") or {})
            gen["max_gen_toks"] = int(max_gen_toks)
            override["generation_kwargs"] = gen
        (out / f"{task}.yaml").write_text(yaml.safe_dump(override, sort_keys=False), encoding="utf-8")
    return out


def _existing(path: str | Path) -> str:
    p = Path(path).resolve()
    if not p.is_file():
        raise ScorekitError("data file not found", path=p)
    return str(p)


def _resolved(path: Path, key: str) -> Any:
    """The value of ``key`` in a shipped YAML, following its ``include:`` chain (None if unset)."""
    cfg = _load(path)
    if key in cfg:
        return cfg[key]
    include = cfg.get("include")
    return _resolved((path.parent / include).resolve(), key) if include else None
