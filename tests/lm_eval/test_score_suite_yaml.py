"""The shipped SCORE YAMLs: generated, complete, and replacing every upstream SCORE entry."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from scorekit.lm_eval.score_suite_yaml import render_all
from scorekit.resources import tasks_dir

UPSTREAM_ROOTS = ["score_robustness", "score_robustness_mmlu_pro", "score_robustness_agieval", "score_robustness_math"]


def test_committed_yamls_match_the_generator():
    root = tasks_dir()
    rendered = render_all()
    on_disk = {p.relative_to(root).as_posix(): p.read_text() for p in (root / "score").rglob("*") if p.is_file()}
    assert on_disk == rendered


def test_subset_files_stay_tiny():
    for rel, text in render_all().items():
        if "_robustness_agieval_" in rel or "_robustness_math_" in rel:
            assert len(text.splitlines()) <= 7, rel


def _index(tm):
    """lm-eval's task index: ``task_index`` in 0.4.13, ``_task_index`` in 0.5 (same entries)."""
    return tm.task_index if hasattr(tm, "task_index") else tm._task_index


def _leaves(tm, name, seen=None):
    """(leaf task name, yaml path) reachable from an index entry, through groups and tags."""
    from lm_eval.tasks._index import Kind

    seen = set() if seen is None else seen
    entry = _index(tm)[name]
    if entry.kind == Kind.TAG:
        members = sorted(entry.tags)
    elif entry.kind == Kind.GROUP:
        cfg = yaml.safe_load(Path(entry.yaml_path).read_text().replace("!function", ""))
        members = cfg["task"]
    else:
        return [(name, entry.yaml_path)]
    out = [(name, entry.yaml_path)]
    for m in members:
        if m not in seen:
            seen.add(m)
            out += _leaves(tm, m, seen)
    return out


@pytest.mark.slow
def test_no_upstream_member_survives_in_any_score_group():
    """Index lm-eval's built-in tasks AND scorekit's: every SCORE name (group, tag, leaf)
    resolves to a scorekit file, and every upstream SCORE task name is overridden."""
    from lm_eval.tasks import TaskManager

    ours = tasks_dir().resolve()
    upstream_only = TaskManager()
    upstream_names = {n for n in upstream_only.all_tasks if "robustness" in n and (
        str(_index(upstream_only)[n].yaml_path or "").find("/tasks/score/") >= 0 or n.startswith("score_"))}
    assert "option_order_robustness_agieval_aqua_rat" in upstream_names

    tm = TaskManager(include_path=str(ours))
    reached = []
    for root in UPSTREAM_ROOTS:
        for name, path in _leaves(tm, root):
            assert path is not None and Path(path).resolve().is_relative_to(ours), (root, name, path)
            reached.append(name)
    assert upstream_names <= set(reached), sorted(upstream_names - set(reached))
    for name in upstream_names:
        assert Path(_index(tm)[name].yaml_path).resolve().is_relative_to(ours), name
    # upstream's MMLU-Pro tag became a group of scorekit's three tasks
    assert set(reached) >= {"score_prompt_robustness_mmlu_pro", "score_option_order_robustness_mmlu_pro",
                            "score_non_greedy_robustness_mmlu_pro"}
