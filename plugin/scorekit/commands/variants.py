"""``scorekit variants TASK...``: robustness variants of any lm-eval task (docs/variants.md)."""

from __future__ import annotations

import argparse
from functools import lru_cache
from pathlib import Path
from typing import Any

FAMILIES = ("option_order", "prompt", "non_greedy")  # scorekit.robustness.task_variants.ROBUST_FAMILIES


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "variants",
        help="write lm-eval tasks that ask any task's questions under other option orders, prompts or samples",
        description=(
            "Write lm-eval task YAMLs robust_<FAMILY>_<TASK> and a group robust_<TASK> into DIR; run them "
            "with lm_eval --include_path DIR --tasks robust_<FAMILY>_<TASK> --log_samples, then report "
            "with scorekit robustness. option_order: every arrangement of a multiple_choice task's "
            "choices; prompt: every doc_to_text template of --templates, or --formats N formats of the "
            "task's own; non_greedy: --samples samples."
        ),
    )
    p.add_argument("tasks", nargs="+", metavar="TASK", help="lm-eval task names (built-in or under --include-path)")
    p.add_argument("--family", required=True, action="append", choices=FAMILIES,
                   help="robustness family (repeat the option for several)")
    p.add_argument("--templates", metavar="FILE", help="YAML list of doc_to_text templates (jinja) for --family prompt")
    from scorekit.commands import variant_formats

    variant_formats.add_arguments(p)
    p.add_argument("--samples", type=int, default=None, metavar="N",
                   help="samples per question (non_greedy; default 5) or per template (prompt, generate_until; default 1)")
    p.add_argument("--temperature", type=float, default=0.7, help="sampling temperature (default 0.7, as SCORE)")
    p.add_argument("--permutations", choices=("cyclic", "swap"), default="cyclic",
                   help="option_order: all rotations (cyclic, CircularEval; default) or the gold swapped "
                   "into each position (swap, SCORE)")
    p.add_argument("--choice-score", choices=("acc", "acc_norm"), default="acc",
                   help="multiple choice: pick the highest log-likelihood (acc) or per character (acc_norm)")
    p.add_argument("--show-options", action="store_true",
                   help="option_order on a cloze task (options scored as continuations, never shown: arc_easy, "
                   "hellaswag, boolq): ask it as lettered options scored on the letters (docs/variants.md)")
    p.add_argument("--include-path", metavar="DIR", help="folder of your own lm-eval task YAMLs")
    p.add_argument("--harness", choices=("lm_eval", "lighteval"), default="lm_eval",
                   help="write lm-eval task YAMLs (default) or a lighteval custom-tasks module")
    p.add_argument("--custom-tasks", metavar="FILE", help="lighteval: your custom-tasks file holding TASK")
    p.add_argument("--output-dir", dest="output", required=True, metavar="DIR", help="folder to write the task YAMLs into")
    p.add_argument("--budget", metavar="B",
                   help="ask each question B of its V variants (prompt, option_order; at least 2), by a seeded, balanced "
                   "design written into the task files; scorekit robustness estimates the full run (docs/budget.md)")
    p.add_argument("--seed", metavar="S", help="the seed of --formats' draw and of --budget's design (default 0)")
    p.set_defaults(func=run)


def _with_earlier(out_dir: Path, task: str, families: list[str]) -> list[str]:
    """``families`` plus those an earlier ``scorekit variants`` call wrote for ``task`` into ``out_dir``
    (their task files are still there), so the group keeps every family written for the task."""
    from scorekit.lm_eval.task_variants_yaml import owner, task_name

    def wrote(family: str) -> bool:
        path = out_dir / f"{task_name(family, task)}.yaml"
        return path.is_file() and owner(path.read_text(encoding="utf-8", errors="replace")) == \
            f"the {family} family of task {task}"

    earlier = [f for f in FAMILIES if f not in families and wrote(f)]
    return [f for f in FAMILIES if f in families or f in earlier]


@lru_cache(maxsize=4)
def _task_index(include: str | None) -> dict:
    """lm-eval's task index (built-ins and ``include``); ~10 s to build, so kept per process."""
    from scorekit.lm_eval.compat import task_index

    return task_index(include)


def run(args: argparse.Namespace) -> int:
    from scorekit.commands import variants_score
    from scorekit.files import note
    from scorekit.lm_eval.task_variants_yaml import group_name, render_group, write

    families = list(dict.fromkeys(args.family))
    budget = _seed_and_budget(args, families)
    if budget is not None and variants_score.wants(args):  # the shipped SCORE tasks on a budget
        return variants_score.run(args, families, budget)
    templates = _check_options(args, families, budget)
    if args.harness == "lighteval":
        return _write_for_lighteval(args, families, templates, budget)
    include, out_dir = _lm_eval_places(args)
    index = _task_index(include)
    files: dict[str, str] = {}
    notes: list[str] = []
    costs: list[str] = []
    for name in dict.fromkeys(args.tasks):
        yaml_path, cfg = _task_config(index, name, include)
        written = _family_files(args, name, yaml_path, cfg, families, templates, include, budget, files, notes, costs)
        _add(files, f"{group_name(name)}.yaml", render_group(name, _with_earlier(out_dir, name, written)))
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = write(out_dir, files)
    for text in notes:
        note(text)
    for path in paths:
        print(path)
    if costs:
        note(*costs)
    return 0


def _seed_and_budget(args: argparse.Namespace, families: list[str]) -> Any:
    """``--seed`` (for --formats or --budget) as an int, and the checked ``--budget`` (None without)."""
    from scorekit.errors import ScorekitError
    from scorekit.robustness.budget.variants import check_budget_args

    if args.seed is not None:
        if args.budget is None and args.formats is None:
            raise ScorekitError("--seed is for --formats or --budget (the seed of their draw and design)")
        if not str(args.seed).isdigit():
            raise ScorekitError(f"--seed must be a non-negative integer, got {args.seed!r}")
        args.seed = int(args.seed)
    return check_budget_args(args.budget, args.seed if args.budget is not None else None, families, args.samples)


def _check_options(args: argparse.Namespace, families: list[str], budget: Any) -> list[str]:
    """The options that go with some families or harnesses only, checked before any work; the
    ``--templates`` read."""
    from scorekit.commands import variant_formats
    from scorekit.errors import ScorekitError

    if args.samples is not None and args.samples < 1:
        raise ScorekitError(f"--samples must be >= 1, got {args.samples}")
    if args.samples is not None and families == ["option_order"]:
        raise ScorekitError("--samples applies to the prompt and non_greedy families, not option_order")
    if not args.temperature > 0:
        raise ScorekitError(f"--temperature must be > 0, got {args.temperature}")
    templates: list[str] = []
    if args.templates:
        if "prompt" not in families:
            raise ScorekitError("--templates is for --family prompt")
        from scorekit.robustness.task_variants import read_templates

        templates = read_templates(args.templates)
    variant_formats.check_arguments(args, families)
    if args.show_options and "option_order" not in families:
        raise ScorekitError("--show-options is for --family option_order")
    if args.harness == "lighteval":
        if args.show_options:
            raise ScorekitError("--show-options is not available with --harness lighteval (see docs/variants.md, lighteval)")
    elif args.custom_tasks:
        raise ScorekitError("--custom-tasks is for --harness lighteval (lm-eval tasks: --include-path)")
    return templates


def _lm_eval_places(args: argparse.Namespace) -> tuple[str | None, Path]:
    """``--include-path`` (resolved; None without) and ``--output-dir``, each checked."""
    from scorekit.errors import ScorekitError

    include = str(Path(args.include_path).resolve()) if args.include_path else None
    if include and not Path(include).is_dir():
        raise ScorekitError("not a folder", path=args.include_path, where="--include-path")
    out_dir = Path(args.output)
    if out_dir.exists() and not out_dir.is_dir():
        raise ScorekitError("exists and is not a folder", path=out_dir, where="--output-dir")
    return include, out_dir


def _task_config(index: dict, name: str, include: str | None) -> tuple[str, dict]:
    """The YAML file and config (``!function`` unresolved) of lm-eval task ``name``; one line for
    an unknown task, an lm-eval 0.5 prompt format, a group or tag, a task without YAML, a broken YAML."""
    from scorekit.errors import ScorekitError
    from scorekit.lm_eval.compat import is_group_or_tag, task_yaml

    entry = index.get(name)
    base, at, form = name.partition("@")
    if entry is None and at and base in index:
        raise ScorekitError(f"@{form} selects an lm-eval 0.5 prompt format, which scorekit variants does not wrap; "
                            f"scorekit variants {base}", where=f"task {name}")
    if entry is None:
        raise ScorekitError("no such lm-eval task" + (f" (built-in or under {include})" if include else
                                                      " (give --include-path for your own tasks)"), where=f"task {name}")
    if is_group_or_tag(entry):
        raise ScorekitError(f"a {entry.kind.name.lower()}, not a task: write variants of its tasks one by one", where=f"task {name}")
    if entry.yaml_path is None:
        raise ScorekitError("defined without a YAML file; scorekit variants wraps YAML tasks only", where=f"task {name}")
    try:
        return entry.yaml_path, task_yaml(entry.yaml_path, resolve_functions=False)
    except Exception as exc:  # the task's own YAML is broken: say which
        raise ScorekitError(f"cannot read its YAML: {exc}", path=entry.yaml_path) from None


def _family_files(args: argparse.Namespace, name: str, yaml_path: str, cfg: dict, families: list[str],
                  templates: list[str], include: str | None, budget: Any, files: dict[str, str], notes: list[str],
                  costs: list[str]) -> list[str]:
    """Add the task file of each family of task ``name`` to ``files`` (with its notes and, on a
    budget, its cost line); the families written."""
    from scorekit.commands import variant_formats
    from scorekit.errors import ScorekitError
    from scorekit.lm_eval.task_variants_budget import render_budgeted
    from scorekit.lm_eval.task_variants_yaml import RobustSpec, check_task, task_name

    written = []
    task_templates = variant_formats.task_templates(args, name, cfg, templates) if "prompt" in families else templates
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
            unchecked = _probe(spec, cfg)
            if unchecked is not None:
                notes.append(_decide_unchecked(name, cfg, spec, output_type, unchecked))
        text = render_budgeted(spec, budget)
        _add(files, f"{task_name(family, name)}.yaml", variant_formats.annotate(text, args) if family == "prompt" else text)
        written.append(family)
        if budget is not None:
            from scorekit.robustness.budget.variants import cost_line

            costs.append(f"{task_name(family, name)}: " + cost_line(family, budget[0], len(task_templates) if family == "prompt" else None))
    return written


def _add(files: dict[str, str], rel: str, text: str) -> None:
    """``files[rel] = text``, refused when one call writes two different things under one name."""
    from scorekit.errors import ScorekitError
    from scorekit.lm_eval.task_variants_yaml import owner

    if rel in files and owner(files[rel]) != owner(text):
        raise ScorekitError(f"{owner(files[rel])} and {owner(text)} would both be written to {rel}; write their variants "
                            "into different --output-dir folders")
    files[rel] = text


def _option_order_shape(name: str, cfg: dict, show_options: bool) -> bool:
    """Whether option order may ask ``name`` as lettered options: ``--show-options`` on a task
    not scored on labels (the documents decide, when they are read, whether its prompt already
    lists its options). A task scored on labels shows its options already and is written as it
    is (a note says the flag is unused)."""
    from scorekit.files import note
    from scorekit.lm_eval.task_variants_yaml import scored_on_labels

    if show_options and scored_on_labels(cfg):
        note(f"task {name} already shows lettered options; --show-options leaves it as it is")
        return False
    return show_options


NOT_AT_HAND = "its data is on the Hugging Face hub, not in the cache, and offline mode is on"


def _decide_unchecked(name: str, cfg: dict, spec, output_type: str, why: str) -> str:
    """The task's documents could not be read (``why``): write it only when its config alone
    shows that it is a real test, else refuse in one line saying that it could not be checked.
    Returns the note that says so, printed once everything is written (a refusal stays one line)."""
    from scorekit.errors import ScorekitError
    from scorekit.lm_eval.task_variants_yaml import likely_cloze, scored_on_labels, template_shows

    where = f"task {name}"
    if spec.family == "prompt":
        labels = scored_on_labels(cfg)
        for t, template in enumerate(spec.templates if labels else ()):
            if template_shows(cfg, template) is None:
                raise ScorekitError(f"it is scored on the labels {', '.join(labels)}, but template {t} ({template[:60]!r}) "
                                    "does not show the options they name; write templates that list the options after "
                                    "their labels", where=where)
    elif output_type == "multiple_choice" and template_shows(cfg) is None:
        if likely_cloze(cfg) and not spec.show_options:
            hint = ("; its template does not show the choices and reads other fields than theirs, so it is likely a "
                    "cloze task (each option scored as a continuation): --show-options asks it as lettered options")
        else:
            hint = "; its template alone does not show the options (process_docs, Python or the data write them)"
        raise ScorekitError(f"could not check {'offline ' if _offline() else ''}whether its prompt shows its options: "
                            f"{why or NOT_AT_HAND}{hint}; run scorekit variants where the data can be read (online, in the "
                            "Hugging Face cache, or local data files under --include-path)", where=where)
    shows = " (its template shows the options)" if spec.family == "option_order" else ""
    return (f"task {name}: could not check its documents{' offline' if _offline() else ''}: {why or NOT_AT_HAND}; "
            f"written from its config{shows}; each document is checked when lm-eval runs the task")


def _offline() -> bool:
    import os

    return any(os.environ.get(k, "") in ("1", "true", "TRUE", "True") for k in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"))


def _documents_at_hand(cfg: dict) -> bool:
    """Whether scorekit variants can read the task's documents to check them: online (lm-eval
    would fetch them too), local data files or a local folder, or, offline, hub data that is in
    the Hugging Face cache."""
    if not _offline():
        return True
    files = (cfg.get("dataset_kwargs") or {}).get("data_files")
    if files:
        values = files.values() if isinstance(files, dict) else [files]
        paths = [p for v in values for p in (v if isinstance(v, list) else [v])]
        return all(Path(str(p)).is_file() for p in paths)
    path = str(cfg.get("dataset_path") or "")
    if not path:
        return False
    if Path(path).exists():
        return True
    import datasets.config
    from huggingface_hub import constants

    return (Path(constants.HF_HUB_CACHE) / f"datasets--{path.replace('/', '--')}").is_dir() or \
        (Path(datasets.config.HF_DATASETS_CACHE) / path.replace("/", "___")).is_dir()


class _Unloadable(Exception):
    """The wrapped task's data could not be loaded (the original exception is its cause)."""


def _probe(spec, cfg: dict) -> str | None:
    """Build the variant task as lm-eval will, so that every document is checked now
    (:class:`scorekit.lm_eval.task_variants.RobustTask` expands them all): a document whose
    options cannot be moved, or a task lm-eval cannot build from its documents, is refused
    here, nothing written. None when every document was checked, else why they could not be
    read ("" when they are not at hand: offline and not in the cache). lm-eval's, datasets'
    and the hub's log messages and warnings are silenced meanwhile, so an answer stays one line."""
    import logging
    import warnings

    from scorekit.errors import ScorekitError

    if not _documents_at_hand(cfg):
        return ""
    from scorekit.lm_eval.task_variants import RobustStop, RobustTask
    from scorekit.lm_eval.task_variants_yaml import task_name

    import datasets

    class Probe(RobustTask):
        def download(self, *args, **kwargs):
            try:
                return super().download(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - any loading failure: lm-eval will try again at run time
                raise _Unloadable(f"{type(exc).__name__}") from exc

    config = {"task": task_name(spec.family, spec.task), "metadata": {"version": 1.0, "robust": spec.params()}}
    loggers = [logging.getLogger(n) for n in ("lm_eval", "lm-eval", "datasets", "huggingface_hub", "fsspec", "urllib3")]
    levels = [lg.level for lg in loggers]
    RobustStop.quiet = True
    bars_on = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # the data is read to check it; a one-line answer stays one line
    try:
        for lg in loggers:
            lg.setLevel(logging.CRITICAL)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Probe(config=config)
        return None
    except RobustStop as stop:
        raise ScorekitError(stop.message) from None
    except _Unloadable as exc:
        return f"they could not be loaded ({exc})"
    except Exception as exc:  # noqa: BLE001 - the wrapped task itself fails on its documents: lm-eval would too
        from scorekit.errors import shown

        raise ScorekitError(f"lm-eval cannot build it: {type(exc).__name__}: {shown(str(exc), 200)}",
                            where=f"task {spec.task}") from None
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
        RobustStop.quiet = False
        if bars_on:
            datasets.enable_progress_bars()


def _write_for_lighteval(args: argparse.Namespace, families: list[str], templates: list[str], budget: Any = None) -> int:
    """``--harness lighteval``: one custom-tasks module (:mod:`scorekit.lighteval.task_variants`)."""
    from scorekit.errors import ScorekitError

    for flag, bad in (("--include-path", args.include_path), ("--choice-score acc_norm", args.choice_score == "acc_norm"),
                      ("--samples with --family prompt", args.samples is not None and "prompt" in families)):
        if bad:
            raise ScorekitError(f"{flag} is not available with --harness lighteval (see docs/variants.md, lighteval)")
    if args.custom_tasks and not Path(args.custom_tasks).is_file():
        raise ScorekitError("no such file", path=args.custom_tasks, where="--custom-tasks")
    if "prompt" in families and not templates:
        raise ScorekitError("--family prompt needs --templates FILE")
    out_dir = Path(args.output)
    if out_dir.exists() and not out_dir.is_dir():
        raise ScorekitError("exists and is not a folder", path=out_dir, where="--output-dir")
    from scorekit.files import note
    from scorekit.lighteval.task_variants import write_module

    costs: list[str] = []
    print(write_module(str(out_dir), args.tasks, families, custom_tasks=args.custom_tasks,
                       permutations=args.permutations, templates=templates, samples=args.samples or 5,
                       budget=None if budget is None else {"per_question": budget[0], "seed": budget[1]}, costs=costs))
    if costs:
        note(*costs)
    return 0
