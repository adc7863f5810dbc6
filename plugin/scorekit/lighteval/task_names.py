"""The names of scorekit's lighteval tasks, and the check ``python -m scorekit.lighteval`` makes
of a command line's tasks before lighteval runs.

lighteval 0.13 answers both a mistyped task name and a forgotten ``--custom-tasks`` with the same
``ValueError: Cannot find task ... in task list or in custom task registry`` (after a traceback).
scorekit knows its own names, so its entry point says which mistake it is, in one line:

- a SCORE task (``score_...``) without ``--custom-tasks``: "scorekit's SCORE tasks need
  --custom-tasks scorekit.lighteval.score_suite";
- a variant task (``robust_...``, written by ``scorekit variants --harness lighteval``)
  without ``--custom-tasks``: the file scorekit variants wrote is needed;
- a ``score_...`` name that is not one of the tasks (nor a family prefix): the close matches;
- ``lighteval eval`` (the Inspect backend) with one of scorekit's tasks: lighteval 0.13 builds
  that backend's registry without custom tasks and scorekit's task configs have no Inspect
  ``sample_fields``, so the run cannot start; the line says what to run instead.

Names other than ``score_...`` / ``robust_...`` are lighteval's business and are left alone.
Imports nothing of lighteval; :func:`command_tasks` is given lighteval's click command.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator, Sequence
from typing import Any

from scorekit.robustness.benchmarks import BENCHMARKS, lighteval_task
from scorekit.robustness.records import Family
from scorekit.robustness.templates import N_PROMPT_TEMPLATES

__all__ = ["SCORE_MODULE", "score_task_keys", "command_tasks", "check_tasks"]

SCORE_MODULE = "scorekit.lighteval.score_suite"
SCORE_FILE = "score_suite.py"  # the file form, "$(scorekit tasks-dir)/lighteval/score_suite.py"
# the names before the rename, still loading the same tasks (scorekit.lighteval.tasks, tasks/lighteval/score_tasks.py)
SCORE_MODULES = (SCORE_MODULE, "scorekit.lighteval.tasks")
SCORE_FILES = (SCORE_FILE, "score_tasks.py")
RUN_INSTEAD = ("run them with the details backends, e.g. `python -m scorekit.lighteval accelerate \"model_name=...\" "
               "TASKS --custom-tasks {module} --output-dir OUT --save-details` (or `vllm`, `custom`), then "
               "`scorekit robustness OUT`")


def score_task_keys() -> Iterator[tuple[str, Family, str, int]]:
    """(benchmark, family, subset, variant) of every SCORE variant task, in a stable order: one
    per prompt template, one per answer position the subset can have, one non-greedy task."""
    for benchmark, bench in BENCHMARKS.items():
        for family in bench.families:
            for subset in bench.subset_keys:
                n = N_PROMPT_TEMPLATES if family == "prompt" else bench.n_options(subset) if family == "option_order" else 1
                for variant in range(n):
                    yield benchmark, family, subset, variant


def command_tasks(command: Any, argv: Sequence[str]) -> tuple[str, list[str], str | None] | None:
    """(subcommand, task names, ``--custom-tasks`` value) of a lighteval command line, parsed by
    lighteval's own click ``command`` (``typer.main.get_command(app)``) without running it; None
    when it has no tasks (``--help``, ``tasks list``) or does not parse (lighteval then says why).
    Task specs ``name|n`` and ``suite|name|n`` give ``name``."""
    cmd, args, parent, name = command, list(argv), None, "lighteval"
    try:
        while True:
            ctx = cmd.make_context(name, args, parent=parent, resilient_parsing=True)
            if not hasattr(cmd, "get_command"):
                break
            rest = list(getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", None) or []) + list(ctx.args)
            sub = cmd.get_command(ctx, rest[0]) if rest else None
            if sub is None:
                return None
            cmd, name, args, parent = sub, rest[0], rest[1:], ctx
    except Exception:  # a command line lighteval itself rejects: its own message is the right one
        return None
    tasks = ctx.params.get("tasks")
    if not isinstance(tasks, str) or not tasks.strip() or os.path.isfile(tasks):
        return None
    names = []
    for spec in tasks.split(","):
        parts = [p.strip() for p in spec.strip().split("|")]
        names.append(parts[1] if len(parts) == 3 else parts[0])
    return name, [n for n in names if n], ctx.params.get("custom_tasks")


def check_tasks(subcommand: str, tasks: Sequence[str], custom_tasks: str | None) -> str | None:
    """The one-line reason a lighteval run of ``tasks`` cannot work (module docstring), or None."""
    ours = [t for t in tasks if t.startswith(("score_", "robust_"))]
    if not ours:
        return None
    if subcommand == "eval":
        module = custom_tasks or SCORE_MODULE
        return (f"task {ours[0]}: `lighteval eval` (lighteval 0.13's Inspect backend) cannot run scorekit's tasks: "
                "it loads no --custom-tasks, and Inspect needs sample_fields scorekit's configs do not have; "
                + RUN_INSTEAD.format(module=module))
    full = [lighteval_task(*key) for key in score_task_keys()]
    known = set(full) | {n.split(":")[0] for n in full}  # each task, and each family prefix (runs all its tasks)
    for task in ours:
        if task.startswith("robust_"):
            if custom_tasks is None:
                return (f"task {task}: tasks written by `scorekit variants --harness lighteval` need --custom-tasks "
                        "<the robust_lighteval_tasks.py it wrote>")
            continue
        if custom_tasks is not None and custom_tasks not in SCORE_MODULES and os.path.basename(custom_tasks) not in SCORE_FILES:
            continue  # the user's own module may name tasks as it likes
        if task not in known:
            close = difflib.get_close_matches(task, sorted(known), n=3, cutoff=0.75)
            hint = (f"did you mean {', '.join(close)}?" if close else
                    "the families are " + ", ".join(sorted({n for n in known if ":" not in n})))
            need = "" if custom_tasks else f" (and add --custom-tasks {SCORE_MODULE})"
            return f"task {task}: no such scorekit SCORE task; {hint}{need}"
        if custom_tasks is None:
            return f"task {task}: scorekit's SCORE tasks need --custom-tasks {SCORE_MODULE}"
    return None
