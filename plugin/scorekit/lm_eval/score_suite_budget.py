"""The shipped SCORE tasks on a budget: ``scorekit variants score_prompt_robustness_mmlu_pro --budget B``.

Thin over :mod:`scorekit.robustness.budget`:

- **Writing** (:func:`score_leaves`, :func:`render_budgeted_suite`): a SCORE task or group name
  (``score_robustness``, ``score_robustness_<benchmark>``, ``score_<family>_robustness_<benchmark>``
  or a leaf such as ``prompt_robustness_agieval_lsat_ar``) names SCORE leaf tasks; their YAMLs
  are the shipped ones (:func:`scorekit.lm_eval.score_suite_yaml.render_all`), under the same
  names, with ``metadata.budget: {per_question: B, seed: S}``, plus the base files they include
  and the groups named. Run them with ``--include_path DIR`` (instead of ``scorekit tasks-dir``).
  The non-greedy family has no budget (docs/budget.md): a group that holds it is written
  without it, and said.
- **Asking** is :mod:`scorekit.lm_eval.score_suite_design` (lm-eval imports it when it loads a
  budgeted task; this module, which writes, imports the suite's YAML writer).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scorekit.errors import ScorekitError
from scorekit.lm_eval.task_variants_yaml import VariantFiles
from scorekit.robustness.benchmarks import BENCHMARKS

__all__ = ["is_score_name", "score_leaves", "render_budgeted_suite", "wants", "budgeted_suite"]

Leaf = tuple[str, str, str]  # (benchmark, family, subset key)
# options of scorekit variants that shape a wrapped task; the SCORE tasks have their own
_NOT_FOR_SCORE = (("templates", None, "--templates"), ("formats", None, "--formats"), ("samples", None, "--samples"),
                  ("permutations", "cyclic", "--permutations"), ("show_options", False, "--show-options"),
                  ("choice_score", "acc", "--choice-score"), ("include_path", None, "--include-path"),
                  ("custom_tasks", None, "--custom-tasks"), ("temperature", 0.7, "--temperature"))



def _names() -> dict[str, list[Leaf]]:
    """Every SCORE task and group name -> the leaf tasks it runs."""
    out: dict[str, list[Leaf]] = {}
    for key, bench in BENCHMARKS.items():
        for family in bench.families:
            leaves = [(key, family, s) for s in (bench.subset_keys if bench.subsets else [""])]
            for leaf in leaves:
                out[bench.lm_eval_task(family, leaf[2])] = [leaf]
            out[bench.lm_eval_group(family)] = leaves  # the leaf itself for a benchmark without subsets
            out.setdefault(bench.lm_eval_benchmark_group, []).extend(leaves)
            out.setdefault("score_robustness", []).extend(leaves)
    return out


def is_score_name(name: str) -> bool:
    """Whether ``name`` is one of the shipped SCORE tasks or groups."""
    return name in _names()


def score_leaves(names: list[str], families: list[str] | None) -> tuple[list[Leaf], list[str]]:
    """The leaf tasks the SCORE ``names`` run, of ``families`` (None: all that have a budget), and
    the notes on what was left out. One line (:class:`ScorekitError`) for a family none of them has."""
    from scorekit.robustness.budget.variants import BUDGET_FAMILIES

    index = _names()
    leaves = list(dict.fromkeys(leaf for n in names for leaf in index[n]))
    have = {f for _, f, _ in leaves}
    if families:
        for f in families:
            if f not in have:
                raise ScorekitError(f"--family {f}: {', '.join(names)} has no {f} family (it has "
                                    f"{', '.join(sorted(have))})")
        leaves = [leaf for leaf in leaves if leaf[1] in families]
    notes = []
    dropped = sorted({BENCHMARKS[b].lm_eval_group(f) for b, f, _ in leaves if f not in BUDGET_FAMILIES})
    if dropped:
        if families:  # asked for by name: the one-line refusal of check_budget_args
            return leaves, notes
        notes.append(f"{', '.join(dropped)} not written: the non_greedy family has no budget (its samples are drawn "
                     "alike, so B of them is B samples; docs/budget.md)")
        leaves = [leaf for leaf in leaves if leaf[1] in BUDGET_FAMILIES]
    return leaves, notes


def _with_budget(text: str, budget: tuple[int, int], header: str) -> str:
    """A shipped leaf YAML with ``metadata.budget`` (its own metadata block replaced)."""
    from scorekit.lm_eval.score_suite_yaml import HEADER, VERSION

    body = text.removeprefix(HEADER)
    body = body.split("metadata:\n", 1)[0] if "\nmetadata:\n" in "\n" + body else body
    b, seed = budget
    return (header + body + f"metadata:\n  version: {VERSION}\n  budget:\n    per_question: {b}\n    seed: {seed}\n")


def render_budgeted_suite(names: list[str], leaves: list[Leaf], budget: tuple[int, int]) -> dict[str, str]:
    """``{path relative to the output folder: YAML}`` of the budgeted ``leaves``: the leaves, the
    base files they include, each family group of a benchmark with subsets whose subsets are all
    written, and the benchmark groups and ``score_robustness`` when named (over what is written)."""
    from scorekit.lm_eval.score_suite_yaml import HEADER, NOT_IN_GROUPS, _group, render_all
    from scorekit.lm_eval.score_suite import task_metric_names
    from scorekit.lm_eval.task_variants_yaml import HEADER as OURS

    shipped = render_all()
    files: dict[str, str] = {}

    def copy(rel: str) -> None:
        files[rel] = OURS + shipped[rel].removeprefix(HEADER)

    copy("score/_greedy_yaml")
    written: set[str] = set()
    for bench_key, family, subset in leaves:
        bench = BENCHMARKS[bench_key]
        name = bench.lm_eval_task(family, subset)
        rel = f"score/{bench_key}/{name}.yaml"
        files[rel] = _with_budget(shipped[rel], budget, OURS)
        written.add(name)
        if bench.subsets:
            copy(f"score/{bench_key}/_{family}_yaml")
    members_of: dict[str, list[str]] = {}
    for bench_key, bench in BENCHMARKS.items():
        fams = []
        for family in bench.families:
            if not bench.subsets:
                if bench.lm_eval_task(family) in written:
                    fams.append(bench.lm_eval_task(family))
                continue
            subs = [bench.lm_eval_task(family, s) for s in bench.subset_keys]
            if all(s in written for s in subs):
                group = bench.lm_eval_group(family)
                metrics = [m for m in task_metric_names(bench_key, family) if m not in NOT_IN_GROUPS]
                files[f"score/{bench_key}/{group}.yaml"] = OURS + _group(group, subs, metrics).removeprefix(HEADER)
                fams.append(group)
        members_of[bench.lm_eval_benchmark_group] = fams
        if bench.lm_eval_benchmark_group in names and fams:
            files[f"score/{bench_key}/{bench.lm_eval_benchmark_group}.yaml"] = (
                OURS + _group(bench.lm_eval_benchmark_group, fams, []).removeprefix(HEADER))
    if "score_robustness" in names:
        top = [g for g, fams in members_of.items() if fams]
        files["score/score_robustness.yaml"] = OURS + _group("score_robustness", top, []).removeprefix(HEADER)
    return files


def wants(args: argparse.Namespace) -> bool:
    """Whether this call writes SCORE tasks on a budget (a SCORE name and ``--budget``); the
    options that do not apply to them are refused."""
    if args.budget is None or not any(is_score_name(t) for t in args.tasks):
        return False
    others = [t for t in dict.fromkeys(args.tasks) if not is_score_name(t)]
    if others:
        raise ScorekitError(f"{others[0]} is not a SCORE task: write the SCORE tasks and other tasks in separate calls")
    if args.harness != "lm_eval":
        raise ScorekitError("the SCORE tasks on a budget are lm-eval tasks: scorekit's lighteval SCORE suite has no "
                            "budgeted form; leave out --harness lighteval (docs/budget.md, lighteval)")
    for attr, default, flag in _NOT_FOR_SCORE:
        if getattr(args, attr, default) != default:
            raise ScorekitError(f"{flag} does not apply to the SCORE tasks (they ask SCORE's own prompts, positions "
                                "and samples)")
    return True


def budgeted_suite(names: list[str], families: list[str], budget: tuple[int, int], out_dir: Path) -> VariantFiles:
    """The SCORE tasks and groups ``names`` of ``families`` on a budget, to write into ``out_dir``:
    their files, then the notes of :func:`score_leaves`, one cost line per family of a benchmark
    (its subsets share it) and how to run them."""
    from scorekit.robustness.budget.variants import cost_line
    from scorekit.robustness.templates import N_PROMPT_TEMPLATES

    names = list(dict.fromkeys(names))
    leaves, notes = score_leaves(names, families)
    costs = {BENCHMARKS[bench].lm_eval_group(family): cost_line(family, budget[0], N_PROMPT_TEMPLATES if family == "prompt" else None)
             for bench, family, _ in leaves}
    run = (f"run them with lm_eval --include_path {out_dir} (not scorekit tasks-dir) --tasks {','.join(names)} "
           "--log_samples; then scorekit robustness")
    return VariantFiles(render_budgeted_suite(names, leaves, budget), [],
                        [*notes, *(f"{n}: {line}" for n, line in costs.items()), run])
