"""The SCORE benchmarks: one table entry per benchmark, read by everything else.

Each :class:`SCOREBenchmark` holds every fact about one benchmark that more than one module needs:
its dataset (hub path and config, per subset), its subsets (subset key -> lm-eval task-name
suffix; the reverse mapping is derived), the dataset fields a row must have, the options per
question, whether accuracy is macro-averaged over categories, where its prompt templates come
from (a folder under the installed ``lm_eval/tasks/score``), its few-shot split, and its
families. The task-name rules of both harnesses are functions of this table, here and nowhere
else:

==========================  ==================================================================
lm-eval leaf task            ``score_<family>_robustness_mmlu_pro`` (no subsets) or
                             ``<family>_robustness_<benchmark>_<suffix>`` (one per subset)
lm-eval family group         ``score_<family>_robustness_<benchmark>`` (benchmarks with subsets)
lm-eval benchmark group      ``score_robustness_<benchmark>``; all: ``score_robustness``
lighteval variant task       ``score_<family>_robustness_<benchmark>[:<subset key>]``
                             ``[:template_<v>|:position_<letter>]`` (non-greedy: no variant)
==========================  ==================================================================

(these are upstream lm-eval's names, so scorekit's tasks replace upstream's one for one).
Metric names are :func:`scorekit.robustness.analysis.metric_names` with the benchmark's
``macro``. A benchmark is added with one call,
:func:`scorekit.robustness.score_documents.register_benchmark` (its :class:`SCOREBenchmark` and its
row rule), plus its templates (docs/extending.md).
A benchmark with ``options == 0`` has free-form answers, compared as MATH answers are.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import cast

from scorekit.harness_outputs.keys import ungrouped
from scorekit.robustness.records import FAMILIES, N_PROMPT_TEMPLATES, Family

__all__ = [
    "SCOREBenchmark", "Subset", "BENCHMARKS", "TaskName", "get", "classify_task", "lighteval_task", "parse_lighteval_task",
]

LETTERS = string.ascii_uppercase


@dataclass(frozen=True)
class Subset:
    """One subset: ``key`` as used in question ids, categories and dataset configs; ``suffix``
    the lm-eval task-name suffix; ``options`` its options per question (0: the benchmark's)."""

    key: str
    suffix: str
    options: int = 0


@dataclass(frozen=True)
class SCOREBenchmark:
    """Facts about one SCORE benchmark (see the module docstring).

    ``dataset_path`` / ``dataset_name`` are format strings with ``{subset}`` (the subset key) and
    ``{dashed}`` (the key with ``-`` for ``_``). ``options`` is the most options a question can
    have (0: free-form answers, no option-order family). ``template_dir`` is the folder of
    ``prompt_templates.json`` under the installed ``lm_eval/tasks/score``.
    """

    key: str
    label: str
    dataset_path: str
    dataset_name: str
    fields: tuple[str, ...]
    options: int
    macro: bool
    template_dir: str
    fewshot_split: str | None
    families: tuple[Family, ...] = FAMILIES
    subsets: tuple[Subset, ...] = ()

    # --- subsets and data ---------------------------------------------------------------

    @property
    def subset_keys(self) -> tuple[str, ...]:
        """Subset keys in table order; ``("",)`` for a benchmark without subsets."""
        return tuple(s.key for s in self.subsets) or ("",)

    def suffix(self, subset: str) -> str:
        """lm-eval task-name suffix of a subset key ("" for none)."""
        return next(s.suffix for s in self.subsets if s.key == subset) if subset else ""

    def subset_of_suffix(self, suffix: str) -> str | None:
        """Subset key of an lm-eval task-name suffix, None if unknown."""
        return next((s.key for s in self.subsets if s.suffix == suffix), None)

    def n_options(self, subset: str = "") -> int:
        """Options per question of a subset (the benchmark's maximum when the subset has no count)."""
        return next((s.options for s in self.subsets if s.key == subset and s.options), self.options)

    def dataset(self, subset: str = "") -> tuple[str, str]:
        """(hub dataset path, config name) of a subset."""
        values = {"subset": subset, "dashed": subset.replace("_", "-")}
        return self.dataset_path.format(**values), self.dataset_name.format(**values)

    def local_name(self, subset: str = "") -> str:
        """File or folder stem of a subset's local data: ``<benchmark>[_<subset key>]``."""
        return self.key + (f"_{subset}" if subset else "")

    # --- names --------------------------------------------------------------------------

    @property
    def accuracy_name(self) -> str:
        """:func:`scorekit.robustness.analysis.accuracy_name` of this benchmark."""
        from scorekit.robustness.analysis import accuracy_name

        return accuracy_name(self.macro)

    def metric_names(self, family: Family, n_variants: int | None = None) -> list[str]:
        """Every metric a task of ``family`` reports (option order: one per position up to
        ``n_variants``, default the benchmark's most options; prompt: 10 templates)."""
        from scorekit.robustness.analysis import metric_names

        if n_variants is None:
            n_variants = self.options if family == "option_order" else 10
        return metric_names(family, macro=self.macro, n_variants=n_variants)

    def lm_eval_task(self, family: Family, subset: str = "") -> str:
        """Upstream lm-eval leaf task name: ``score_prompt_robustness_mmlu_pro``,
        ``option_order_robustness_agieval_lsat_ar``, ``non_greedy_robustness_math_precalc``."""
        if not self.subsets:
            return f"score_{family}_robustness_{self.key}"
        return f"{family}_robustness_{self.key}_{self.suffix(subset)}"

    def lm_eval_group(self, family: Family) -> str:
        """lm-eval group of one family over the subsets: ``score_prompt_robustness_agieval``."""
        return f"score_{family}_robustness_{self.key}"

    @property
    def lm_eval_benchmark_group(self) -> str:
        return f"score_robustness_{self.key}"


BENCHMARKS: dict[str, SCOREBenchmark] = {b.key: b for b in (
    SCOREBenchmark(
        key="mmlu_pro", label="MMLU-Pro", dataset_path="TIGER-Lab/MMLU-Pro", dataset_name="default",
        fields=("question_id", "question", "options", "answer_index", "category"), options=10, macro=True,
        template_dir="mmlu_pro", fewshot_split="validation",
    ),
    SCOREBenchmark(
        key="agieval", label="AGIEval",
        dataset_path="hails/agieval-{dashed}", dataset_name="default",
        fields=("query", "choices", "gold"),
        options=5, macro=False, template_dir="agi_eval", fewshot_split=None,  # test questions only
        subsets=tuple(Subset(k, k, n) for k, n in (
            ("aqua_rat", 5), ("logiqa_en", 4), ("lsat_ar", 5), ("lsat_lr", 5), ("lsat_rc", 5),
            ("sat_en", 4), ("sat_math", 4))),
    ),
    SCOREBenchmark(
        key="math", label="MATH",
        dataset_path="EleutherAI/hendrycks_math", dataset_name="{subset}",
        fields=("problem", "solution"),
        options=0, macro=False, template_dir="math", fewshot_split="train",
        families=("prompt", "non_greedy"),  # free-form answers: no option order
        subsets=tuple(Subset(k, s) for k, s in (
            ("algebra", "algebra"), ("counting_and_probability", "counting_and_prob"), ("geometry", "geometry"),
            ("intermediate_algebra", "intermediate_algebra"), ("number_theory", "num_theory"),
            ("prealgebra", "prealgebra"), ("precalculus", "precalc"))),
    ),
)}


def get(key: str) -> SCOREBenchmark:
    """The table entry of ``key``; ValueError naming the known ones otherwise."""
    try:
        return BENCHMARKS[key]
    except KeyError:
        raise ValueError(f"unknown SCORE benchmark {key!r}; expected one of {sorted(BENCHMARKS)}") from None


# --- lm-eval task names -------------------------------------------------------------------


@dataclass(frozen=True)
class TaskName:
    """A SCORE lm-eval task or group name taken apart. ``subset`` is None for benchmarks
    without subsets and for the family group names (``score_prompt_robustness_agieval``);
    ``is_group`` marks those."""

    name: str
    benchmark: str
    family: Family
    subset: str | None
    is_group: bool


# Tasks written by ``scorekit variants``: family F of task T is ``robust_<F>_<T>``, in the group
# ``robust_<T>``, which the report treats as the benchmark.
ROBUST_PREFIX = "robust_"


def robust_task_name(family: Family, task: str) -> str:
    """``robust_<family>_<task>``: the task ``scorekit variants`` writes for one family."""
    return f"{ROBUST_PREFIX}{family}_{task}"


def robust_group_name(task: str) -> str:
    """``robust_<task>``: the group holding every family written for ``task``."""
    return f"{ROBUST_PREFIX}{task}"


def is_robust(benchmark: str) -> bool:
    """True for the benchmark of a task written by ``scorekit variants`` (``robust_<task>``)."""
    return benchmark.startswith(ROBUST_PREFIX)


def classify_task(name: str) -> TaskName | None:
    """Benchmark, family and subset of a SCORE lm-eval task or group name (upstream and scorekit
    use the same names; the ``score_`` prefix is optional), or None for any other task.
    Unknown suffixes are not SCORE tasks. A task ``robust_<family>_<T>`` written by
    ``scorekit variants`` has the benchmark ``robust_<T>`` (its group's name) and no subset.
    lm-eval 0.5 names a task run inside a group ``<group>::<task>``: the group part is dropped."""
    name = ungrouped(name)
    r = re.match(rf"^{ROBUST_PREFIX}(?P<family>{'|'.join(FAMILIES)})_(?P<task>.+)$", name)
    if r is not None:
        return TaskName(name, robust_group_name(r["task"]), cast(Family, r["family"]), None, False)
    m = re.match(rf"^(?:score_)?(?P<family>{'|'.join(FAMILIES)})_robustness_(?P<benchmark>{'|'.join(BENCHMARKS)})"
                 r"(?:_(?P<suffix>[a-z_]+))?$", name)
    if m is None:
        return None
    bench, family, suffix = BENCHMARKS[m["benchmark"]], cast(Family, m["family"]), m["suffix"]
    if family not in bench.families:
        return None
    if not bench.subsets:
        return None if suffix else TaskName(name, bench.key, family, None, False)
    if suffix is None:
        return TaskName(name, bench.key, family, None, True)
    subset = bench.subset_of_suffix(suffix)
    return None if subset is None else TaskName(name, bench.key, family, subset, False)


# --- lighteval task names -----------------------------------------------------------------


def lighteval_task(benchmark: str, family: Family, subset: str = "", variant: int = 0) -> str:
    """``score_<family>_robustness_<benchmark>[:<subset>][:template_<v>|:position_<L>]``."""
    parts = [f"score_{family}_robustness_{benchmark}"]
    if subset:
        parts.append(subset)
    if family == "prompt":
        parts.append(f"template_{variant}")
    elif family == "option_order":
        parts.append(f"position_{LETTERS[variant]}")
    return ":".join(parts)


def parse_lighteval_task(name: str) -> tuple[str, Family, str, int] | None:
    """(benchmark, family, subset key, variant) of a lighteval SCORE task name, the inverse of
    :func:`lighteval_task` (a trailing ``|<fewshots>`` is ignored); None if not one."""
    parts = name.split("|")[0].split(":")
    m = re.fullmatch(rf"score_({'|'.join(FAMILIES)})_robustness_({'|'.join(BENCHMARKS)})", parts[0])
    if m is None:
        return None
    family, bench = cast(Family, m[1]), BENCHMARKS[m[2]]
    if family not in bench.families:
        return None
    rest, subset = parts[1:], ""
    if bench.subsets:
        if not rest or rest[0] not in bench.subset_keys:
            return None
        subset, rest = rest[0], rest[1:]
    if family == "non_greedy":
        return (bench.key, family, subset, 0) if not rest else None
    if len(rest) != 1:
        return None
    label = rest[0]
    if family == "prompt" and re.fullmatch(r"template_\d+", label) and int(label[9:]) < N_PROMPT_TEMPLATES:
        return bench.key, family, subset, int(label[9:])
    if family == "option_order" and re.fullmatch(r"position_[A-Z]", label):
        return bench.key, family, subset, LETTERS.index(label[9])
    return None

