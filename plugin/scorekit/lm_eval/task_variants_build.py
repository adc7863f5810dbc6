"""``scorekit variants``' lm-eval task files, built: for each task and family its task file
(:mod:`scorekit.lm_eval.task_variants_yaml`, on a budget with ``metadata.robust.budget``)
and the task's group, with the notes and cost lines to say (a
:class:`~scorekit.lm_eval.task_variants_yaml.VariantFiles`). Nothing is
written here: :func:`scorekit.lm_eval.task_variants_yaml.write` writes the files."""

from __future__ import annotations

import argparse
from functools import lru_cache
from pathlib import Path
from typing import Any

from scorekit.errors import ScorekitError
from scorekit.files import note
from scorekit.lm_eval import compat
from scorekit.lm_eval import task_variants_formats as formats
from scorekit.lm_eval.task_variants_probe import decide_unchecked, probe
from scorekit.lm_eval.task_variants_yaml import (RobustSpec, VariantFiles, check_task, group_name, owner, render_group,
                                                 render_task, scored_on_labels, task_name)
from scorekit.robustness.budget.variants import cost_line
from scorekit.robustness.task_variants_options import FAMILIES


@lru_cache(maxsize=4)
def task_index(include: str | None) -> dict:
    """lm-eval's task index (built-ins and ``include``); ~10 s to build, so kept per process."""
    return compat.task_index(include)


def build(args: argparse.Namespace, families: list[str], templates: list[str], budget: Any, include: str | None,
          out_dir: Path) -> VariantFiles:
    """The files of every task of ``args.tasks`` (their options checked by
    :mod:`scorekit.robustness.task_variants_options`); a group keeps the families an earlier call
    wrote into ``out_dir``."""
    index = task_index(include)
    out = VariantFiles()
    for name in dict.fromkeys(args.tasks):
        yaml_path, cfg = _task_config(index, name, include)
        written = _family_files(args, name, yaml_path, cfg, families, templates, include, budget, out)
        _add(out.files, f"{group_name(name)}.yaml", render_group(name, _with_earlier(out_dir, name, written)))
    return out


def _with_earlier(out_dir: Path, task: str, families: list[str]) -> list[str]:
    """``families`` plus those an earlier ``scorekit variants`` call wrote for ``task`` into ``out_dir``
    (their task files are still there), so the group keeps every family written for the task."""

    def wrote(family: str) -> bool:
        path = out_dir / f"{task_name(family, task)}.yaml"
        return path.is_file() and owner(path.read_text(encoding="utf-8", errors="replace")) == \
            f"the {family} family of task {task}"

    earlier = [f for f in FAMILIES if f not in families and wrote(f)]
    return [f for f in FAMILIES if f in families or f in earlier]


def _task_config(index: dict, name: str, include: str | None) -> tuple[str, dict]:
    """The YAML file and config (``!function`` unresolved) of lm-eval task ``name``; one line for
    an unknown task, an lm-eval 0.5 prompt format, a group or tag, a task without YAML, a broken YAML."""
    entry = index.get(name)
    base, at, form = name.partition("@")
    if entry is None and at and base in index:
        raise ScorekitError(f"@{form} selects an lm-eval 0.5 prompt format, which scorekit variants does not wrap; "
                            f"scorekit variants {base}", where=f"task {name}")
    if entry is None:
        raise ScorekitError("no such lm-eval task" + (f" (built-in or under {include})" if include else
                                                      " (give --include-path for your own tasks)"), where=f"task {name}")
    if compat.is_group_or_tag(entry):
        raise ScorekitError(f"a {entry.kind.name.lower()}, not a task: write variants of its tasks one by one", where=f"task {name}")
    if entry.yaml_path is None:
        raise ScorekitError("defined without a YAML file; scorekit variants wraps YAML tasks only", where=f"task {name}")
    try:
        return entry.yaml_path, compat.task_yaml(entry.yaml_path, resolve_functions=False)
    except Exception as exc:  # the task's own YAML is broken: say which
        raise ScorekitError(f"cannot read its YAML: {exc}", path=entry.yaml_path) from None


def _family_files(args: argparse.Namespace, name: str, yaml_path: str, cfg: dict, families: list[str],
                  templates: list[str], include: str | None, budget: Any, out: VariantFiles) -> list[str]:
    """Add the task file of each family of task ``name`` to ``out`` (with its notes and, on a
    budget, its cost line); the families written."""
    written = []
    task_templates = formats.task_templates(args, name, cfg, templates) if "prompt" in families else templates
    for family in families:
        # SCORE samples five times; a prompt template is asked once unless --samples says otherwise
        fam_samples = 1 if family == "option_order" else args.samples or (5 if family == "non_greedy" else 1)
        output_type = check_task(name, cfg, family, templates=bool(task_templates), samples=fam_samples,
                                 show_options=args.show_options)
        choices = family == "option_order" and output_type == "multiple_choice"
        if family == "option_order" and args.show_options and not choices:
            raise ScorekitError("--show-options is for multiple_choice tasks (this one generates its answer)",
                                where=f"task {name}")
        show = choices and _option_order_shape(name, cfg, args.show_options)
        spec = RobustSpec(task=name, config=str(Path(yaml_path).resolve()), include_path=include,
                          family=family, permutations=args.permutations, templates=tuple(task_templates),
                          samples=fam_samples, temperature=args.temperature, choice_score=args.choice_score,
                          show_options=show)
        if family == "option_order" or (family == "prompt" and output_type == "multiple_choice"):
            unchecked = probe(spec, cfg)
            if unchecked is not None:
                out.notes.append(decide_unchecked(name, cfg, spec, output_type, unchecked))
        text = render_task(spec, budget)
        _add(out.files, f"{task_name(family, name)}.yaml", formats.annotate(text, args) if family == "prompt" else text)
        written.append(family)
        if budget is not None:
            out.after.append(f"{task_name(family, name)}: " + cost_line(family, budget[0], len(task_templates) if family == "prompt" else None))
    return written


def _add(files: dict[str, str], rel: str, text: str) -> None:
    """``files[rel] = text``, refused when one call writes two different things under one name."""
    if rel in files and owner(files[rel]) != owner(text):
        raise ScorekitError(f"{owner(files[rel])} and {owner(text)} would both be written to {rel}; write their variants "
                            "into different --output-dir folders")
    files[rel] = text


def _option_order_shape(name: str, cfg: dict, show_options: bool) -> bool:
    """Whether option order may ask ``name`` as lettered options: ``--show-options`` on a task
    not scored on labels (the documents decide, when they are read, whether its prompt already
    lists its options). A task scored on labels shows its options already and is written as it
    is (a note says the flag is unused)."""
    if show_options and scored_on_labels(cfg):
        note(f"task {name} already shows lettered options; --show-options leaves it as it is")
        return False
    return show_options
