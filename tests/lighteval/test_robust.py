"""Modules written by ``scorekit robustify --harness lighteval`` (now ``scorekit variants``) start
``from scorekit.lighteval.robust import robust_tasks``; that import still gives the function, so
they still load."""

from __future__ import annotations


def test_the_old_import_path_is_the_function():
    from scorekit.lighteval.robust import robust_tasks as old
    from scorekit.lighteval.task_variants import render_module, robust_tasks

    assert old is robust_tasks
    written = render_module(["t"], ["prompt"], custom_tasks=None, permutations="cyclic", templates=[], samples=5,
                            n_choices={})
    assert "from scorekit.lighteval.task_variants import robust_tasks" in written  # what is written today
