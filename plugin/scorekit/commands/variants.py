"""``scorekit variants TASK...``: robustness variants of any lm-eval task (docs/variants.md)."""

from __future__ import annotations

import argparse
from functools import lru_cache
from pathlib import Path

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
    from scorekit.errors import ScorekitError
    from scorekit.io import note
    from scorekit.lm_eval.task_variants_yaml import RobustSpec, check_task, group_name, render_group, render_task, task_name, write

    families = list(dict.fromkeys(args.family))
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
    from scorekit.commands import variant_formats

    variant_formats.check_arguments(args, families)
    if args.show_options and "option_order" not in families:
        raise ScorekitError("--show-options is for --family option_order")
    if args.harness == "lighteval":
        if args.show_options:
            raise ScorekitError("--show-options is not available with --harness lighteval (see docs/variants.md, lighteval)")
        return _write_for_lighteval(args, families, templates)
    if args.custom_tasks:
        raise ScorekitError("--custom-tasks is for --harness lighteval (lm-eval tasks: --include-path)")
    include = str(Path(args.include_path).resolve()) if args.include_path else None
    if include and not Path(include).is_dir():
        raise ScorekitError("not a folder", path=args.include_path, where="--include-path")
    out_dir = Path(args.output)
    if out_dir.exists() and not out_dir.is_dir():
        raise ScorekitError("exists and is not a folder", path=out_dir, where="--output")

    from lm_eval.tasks._index import Kind
    from lm_eval.tasks._yaml_loader import load_yaml

    index = _task_index(include)
    files: dict[str, str] = {}
    for name in dict.fromkeys(args.tasks):
        entry = index.get(name)
        base, at, form = name.partition("@")
        if entry is None and at and base in index:
            raise ScorekitError(f"@{form} selects an lm-eval 0.5 prompt format, which scorekit variants does not wrap; "
                                f"scorekit variants {base}", where=f"task {name}")
        if entry is None:
            raise ScorekitError("no such lm-eval task" + (f" (built-in or under {include})" if include else
                                                          " (give --include-path for your own tasks)"), where=f"task {name}")
        if entry.kind in (Kind.GROUP, Kind.TAG):
            raise ScorekitError(f"a {entry.kind.name.lower()}, not a task: write variants of its tasks one by one", where=f"task {name}")
        if entry.yaml_path is None:
            raise ScorekitError("defined without a YAML file; scorekit variants wraps YAML tasks only", where=f"task {name}")
        try:
            cfg = load_yaml(entry.yaml_path, resolve_func=False)
        except Exception as exc:  # the task's own YAML is broken: say which
            raise ScorekitError(f"cannot read its YAML: {exc}", path=entry.yaml_path) from None
        written = []
        task_templates = variant_formats.task_templates(args, name, cfg, templates) if "prompt" in families else templates
        for family in families:
            # SCORE samples five times; a prompt template is asked once unless --samples says otherwise
            fam_samples = 1 if family == "option_order" else args.samples or (5 if family == "non_greedy" else 1)
            output_type = check_task(name, cfg, family, templates=bool(task_templates), samples=fam_samples)
            choices = family == "option_order" and output_type == "multiple_choice"
            if family == "option_order" and args.show_options and not choices:
                raise ScorekitError("--show-options is for multiple_choice tasks (this one generates its answer)",
                                    where=f"task {name}")
            show = choices and _option_order_shape(name, cfg, args.show_options)
            spec = RobustSpec(task=name, config=str(Path(entry.yaml_path).resolve()), include_path=include,
                              family=family, permutations=args.permutations, templates=tuple(task_templates),
                              samples=fam_samples, temperature=args.temperature, choice_score=args.choice_score,
                              show_options=show)
            if family == "option_order":
                unchecked = _probe(spec, cfg)
                if unchecked is not None and choices and not show:
                    _refuse_cloze(name, cfg)
                if unchecked:
                    note(f"task {name}: {unchecked}")
            text = render_task(spec)
            _add(files, f"{task_name(family, name)}.yaml", variant_formats.annotate(text, args) if family == "prompt" else text)
            written.append(family)
        _add(files, f"{group_name(name)}.yaml", render_group(name, _with_earlier(out_dir, name, written)))
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in write(out_dir, files):
        print(path)
    return 0


def _add(files: dict[str, str], rel: str, text: str) -> None:
    """``files[rel] = text``, refused when one call writes two different things under one name."""
    from scorekit.errors import ScorekitError
    from scorekit.lm_eval.task_variants_yaml import owner

    if rel in files and owner(files[rel]) != owner(text):
        raise ScorekitError(f"{owner(files[rel])} and {owner(text)} would both be written to {rel}; write their variants "
                            "into different --output folders")
    files[rel] = text


def _option_order_shape(name: str, cfg: dict, show_options: bool) -> bool:
    """Whether option order asks ``name`` as lettered options: ``--show-options`` on a task scored
    on option texts. A task scored on labels already shows its options and is written as it is
    (a note says the flag is unused)."""
    from scorekit.io import note
    from scorekit.lm_eval.task_variants_yaml import option_shape

    if option_shape(cfg) == "labels":
        if show_options:
            note(f"task {name} already shows lettered options; --show-options leaves it as it is")
        return False
    return show_options


def _refuse_cloze(name: str, cfg: dict) -> None:
    """ScorekitError for a task whose documents could not be read and whose config says it is a
    cloze task (:func:`scorekit.lm_eval.task_variants_yaml.option_shape`)."""
    from scorekit.errors import ScorekitError
    from scorekit.lm_eval.task_variants_yaml import option_shape

    if option_shape(cfg) == "cloze":
        raise ScorekitError("its prompt does not read the fields its choices come from, so it never shows the "
                            "options (a cloze task: each option is scored as a continuation and their order changes "
                            "nothing the model sees); --show-options asks it as lettered options scored on the "
                            "letters", where=f"task {name}")


def _can_read_documents(cfg: dict) -> bool:
    """Whether scorekit variants reads the task's documents to check them: always online (lm-eval would
    fetch them too); offline only local data files or a local folder."""
    import os

    if not any(os.environ.get(k, "") in ("1", "true", "TRUE", "True") for k in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE")):
        return True
    files = (cfg.get("dataset_kwargs") or {}).get("data_files")
    if files:
        values = files.values() if isinstance(files, dict) else [files]
        paths = [p for v in values for p in (v if isinstance(v, list) else [v])]
        return all(Path(str(p)).is_file() for p in paths)
    path = str(cfg.get("dataset_path") or "")
    return bool(path) and Path(path).exists()


def _probe(spec, cfg: dict) -> str | None:
    """Build the variant task as lm-eval will, so that every document is checked now
    (:class:`scorekit.lm_eval.task_variants.RobustTask` expands them all): a document whose
    options cannot be moved is refused here, nothing written. When the documents cannot be
    read (offline, hub data) or loaded, they are checked when lm-eval runs the task (a note
    says so when loading failed). None when every document was checked, else why not ("" when
    they were not to be read)."""
    from scorekit.errors import ScorekitError

    if not _can_read_documents(cfg):
        return ""
    from scorekit.lm_eval.task_variants import RobustStop, RobustTask
    from scorekit.lm_eval.task_variants_yaml import task_name

    import datasets

    config = {"task": task_name(spec.family, spec.task), "metadata": {"version": 1.0, "robust": spec.params()}}
    RobustStop.quiet = True
    bars_on = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # the data is read to check it; a one-line answer stays one line
    try:
        RobustTask(config=config)
        return None
    except RobustStop as stop:
        raise ScorekitError(stop.message) from None
    except Exception as exc:  # noqa: BLE001 - the data could not be loaded here; lm-eval will try again
        return (f"its documents could not be loaded to check them ({type(exc).__name__}); each is checked "
                "when lm-eval runs the task")
    finally:
        RobustStop.quiet = False
        if bars_on:
            datasets.enable_progress_bars()


def _write_for_lighteval(args: argparse.Namespace, families: list[str], templates: list[str]) -> int:
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
        raise ScorekitError("exists and is not a folder", path=out_dir, where="--output")
    from scorekit.lighteval.task_variants import write_module

    print(write_module(str(out_dir), args.tasks, families, custom_tasks=args.custom_tasks,
                       permutations=args.permutations, templates=templates, samples=args.samples or 5))
    return 0
