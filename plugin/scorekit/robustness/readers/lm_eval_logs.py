"""lm-eval output folders -> SCORE sample sets and aggregate sets.

What lm-eval writes (``--output_path OUT --log_samples``, or ``EvaluationTracker`` in Python):
``OUT/<model_name_sanitized>/results_<time>.json`` and, per task,
``OUT/<model_name_sanitized>/samples_<task>_<time>.jsonl`` with the same ``<time>``
(``2024-06-16T10-22-33.123456``). When OUT ends in ``.json`` the files are
``<stem>_<time>.json`` and ``samples_<task>_<time>.jsonl`` next to it. A samples file belongs to
the results file with the same folder and time; its model is that file's ``model_name``.

Two document layouts are understood, detected from the first sample's ``doc``:

scorekit
    the expanded documents of scorekit's SCORE tasks (fields in
    :data:`scorekit.robustness.score_documents.DOC_FIELDS`); scored with
    :func:`scorekit.robustness.grading.record_for`. Non-greedy: one document, five outputs.
upstream
    lm-eval's own ``lm_eval/tasks/score`` tasks. Their documents keep the dataset fields plus
    ``prompt`` (the template) and ``prompt_id`` (prompt family) or ``always_same_option`` /
    ``original_answer_index`` (option order). They are converted to scorekit's fields and scored
    with the same extraction: question ids ``<id>`` (MMLU-Pro) or ``<subset>/<row>``; option
    order maps each displayed option back to the original list by undoing upstream's single
    swap of ``original_answer_index`` and ``answer_index``. Upstream writes one row per label
    A..J (A..D for AGIEval) even past a question's last option; those rows show the original
    order again and are left out (counted in a note). Non-greedy: upstream's five-run layout
    (``seed_1`` .. ``seed_5`` folders, one run each, as ``NON_GREEDY.md`` describes) is merged
    by question: run ``i`` (sorted by seed) is sample ``i``.

Also read: the file upstream's ``non_greedy_summarizer.py`` writes into its ``--log_dir``
(``<dataset>_results_<time>.json``: ``seed_N_accuracy`` and ``consistency_rate``), as aggregates.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorekit.errors import ScorekitError, listed, shown
from scorekit.harness_outputs.identity import model_identity
from scorekit.harness_outputs.kinds import LM_EVAL, SAMPLES_NAME, TIME_PATTERN, results_harness, samples_name
from scorekit.harness_outputs.runs import run_time
from scorekit.harness_outputs.samples import iter_samples
from scorekit.robustness.benchmarks import LETTERS
from scorekit.robustness.identical import samples_identical
from scorekit.robustness.readers import AggregateSet, ReadResult, SampleSet, TaskName, classify_task, is_robust
from scorekit.robustness.records import Record
from scorekit.robustness.task_variants import canonical_map, swap_order

__all__ = ["LmEvalLogsReader", "SAMPLES_NAME"]

_UNSET: Any = object()  # a samples file whose rows were not read yet (no design seen)
_RESULTS_TIME = re.compile(rf"_(?P<time>{TIME_PATTERN})\.json$")
_SEED_DIR = re.compile(r"^seed_(\d+)$")
_SCOREKIT_DOC = frozenset(("benchmark", "family", "variant", "n_variants", "option_map", "canonical_map", "gold_canonical"))
# Positions upstream's option-order tasks try: labels A..J (MMLU-Pro), A..D (AGIEval).
_UPSTREAM_POSITIONS = {"mmlu_pro": 10, "agieval": 4}
_UPSTREAM_PROMPTS = 10
_SKIP_RESULT_KEYS = ("alias", "name", "sample_len", "samples")


# --- results files ---------------------------------------------------------------------------


@dataclass
class _ResultsFile:
    path: Path
    model: str | None
    time: str  # the time stamp in the name: ties a samples file to its run
    seed: int | None
    data: dict[str, Any]
    when: float  # the run time (harness_outputs.run_time): orders runs


def _model_from_results(data: dict[str, Any], path: Path) -> str | None:
    """The model (:func:`scorekit.harness_outputs.model_identity`), or None for a file that
    names none (upstream's summarizer output: the model is then found from the folders)."""
    if "model_name" not in data and "config" not in data:
        return None
    return model_identity(data, path, LM_EVAL)


def _seed_from_results(data: dict[str, Any]) -> int | None:
    """The run's ``config.random_seed`` when it is an integer, else None."""
    seed = data["config"].get("random_seed") if isinstance(data.get("config"), dict) else None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def _seed_from_path(path: Path) -> int | None:
    for part in reversed(path.parts[:-1]):
        m = _SEED_DIR.match(part)
        if m:
            return int(m.group(1))
    return None


def _read_results(path: Path, explicit: bool) -> _ResultsFile | None:
    from scorekit.harness_outputs.values import results_mapping
    from scorekit.files import load_json

    data = load_json(path)
    if results_harness(data) != LM_EVAL:
        if explicit:
            raise ScorekitError("unknown layout: a JSON file but not an lm-eval results file (no 'results' with lm-eval's keys)", path=path)
        return None
    results_mapping(data, path)
    m = _RESULTS_TIME.search(path.name)
    time = m["time"] if m else ""
    return _ResultsFile(path, _model_from_results(data, path), time, _seed_from_results(data), data, run_time(path, data)[0])


def _metrics_of(entry: dict[str, Any], path: Path, task: str) -> dict[str, float]:
    """Metric values of one results entry, filter suffix dropped (``none`` preferred).

    Every SCORE metric is a fraction: a value outside [0, 1] or infinite, or a string under a
    ``"<metric>,<filter>"`` key, raises
    :class:`ScorekitError` naming the file and ``results["task"]["metric"]`` (as
    ``scorekit leaderboard`` does); NaN (an undefined rate, as scorekit's tasks write it) is kept.
    """
    by_filter: dict[str, dict[str, float]] = defaultdict(dict)
    for key, value in entry.items():
        if key in _SKIP_RESULT_KEYS or "_stderr" in key:
            continue
        metric, _, filt = key.partition(",")
        if isinstance(value, str) and _is_metric_key(key):  # "0.5" where lm-eval writes 0.5: not dropped silently
            raise ScorekitError(f"expected a number, got a string {shown(value)}", path=path,
                                where=f'results["{task}"]["{key}"]')
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        by_filter[filt or "none"][metric] = checked_rate(value, path, f'results["{task}"]["{key}"]')
    return by_filter.get("none") or next(iter(by_filter.values()), {})  # a filter's entry is never empty


def _is_metric_key(key: str) -> bool:
    """True for a metric key as lm-eval writes it, ``"<metric>,<filter>"`` (not ``alias`` or
    the group separator ``" "``)."""
    metric, sep, filt = key.partition(",")
    return bool(sep and metric.strip() and filt.strip())


def checked_rate(value: float, path: Path | str, where: str) -> float:
    """``value`` as a float when it is NaN or a fraction in [0, 1]; else ScorekitError (file, place)."""
    from scorekit.harness_outputs.values import check_fraction

    value = float(value)
    return value if math.isnan(value) else check_fraction(value, path=str(path), where=where)


def _task_fallbacks(rf: _ResultsFile | None, task: str) -> frozenset[str]:
    """:func:`scorekit.robustness.task_variants.filter_fallbacks` of the task's ``filter_list`` in its
    run's results file (lm-eval's default alone without one)."""
    from scorekit.robustness.task_variants import filter_fallbacks

    configs = rf.data.get("configs") if rf else None
    config = configs.get(task) if isinstance(configs, dict) else None
    return filter_fallbacks(config.get("filter_list") if isinstance(config, dict) else None)


# --- samples files ---------------------------------------------------------------------------


@dataclass
class _SamplesFile:
    path: Path
    task: TaskName
    time: str
    model: str
    seed: int | None
    when: float  # its run's time (harness_outputs.run_time of the run's results file, else of its name)
    layout: str = ""
    records: list[Record] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unmappable: str | None = None  # why the records could not be computed
    identical: dict[str, bool] = field(default_factory=dict)  # non-greedy, scorekit layout
    texts: dict[str, int] = field(default_factory=dict)  # non-greedy, upstream runs: question -> hash(raw text)
    samples_per_variant: int = 1  # variants layout, prompt family
    fallbacks: frozenset[str] = frozenset()  # variants layout: what the task's filters write for "no answer"
    n_fallbacks: int = 0  # variants layout: answers that were a filter fallback (scored as unparsed)
    shown_order: dict[str, bool] = field(default_factory=dict)  # variants option order: question -> options moved
    # what the notes are made of
    chosen_filter: str | None = None  # the first row's filter: only its rows are scored
    filters: Counter[str] = field(default_factory=Counter)
    skipped_positions: int = 0  # upstream option-order rows past the question's last option
    untested: set[str] = field(default_factory=set)  # questions with more options than upstream tries
    design: Any = _UNSET  # budgeted runs: the design its rows record (None: a full run)
    design_questions: int | None = None
    design_ids: dict[str, str] = field(default_factory=dict)  # budgeted SCORE runs: question id -> design_row


def _outputs(row: dict[str, Any], path: Path, lineno: int, *, raw: bool = False) -> list[str]:
    """All model outputs of one sample line: ``filtered_resps`` (else ``resps``) flattened;
    ``raw``: the generations as the model gave them, ``resps`` (else ``filtered_resps``)."""
    first, second = ("resps", "filtered_resps") if raw else ("filtered_resps", "resps")
    resps = row.get(first, row.get(second))
    if resps is None:
        raise ScorekitError("sample has neither 'filtered_resps' nor 'resps'", path=path, where=f"line {lineno}")
    out: list[str] = []
    stack = [resps]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, list):
            stack.extend(reversed(item))
        elif item is not None:
            out.append(str(item))
    return out


class _UpstreamConverter:
    """Turns one upstream SCORE document into scorekit's document fields (for record_for)."""

    def __init__(self, task: TaskName) -> None:
        self.task = task
        self.skipped_positions = 0
        self.untested: set[str] = set()  # questions with more options than upstream's positions

    def _qid(self, doc: dict[str, Any]) -> str:
        qid = doc.get("question_id")
        if qid is None:
            raise KeyError("question_id")
        return str(qid) if self.task.subset is None else f"{self.task.subset}/{qid}"

    def _math_gold(self, doc: dict[str, Any]) -> str:
        from scorekit.robustness.extract import math_gold_answer
        from scorekit.robustness.templates import math_answer_corrections  # read once (lru_cache)

        if isinstance(doc.get("solution"), str):
            gold = math_gold_answer(doc["solution"], str(doc.get("question", "")), math_answer_corrections())
            if gold is not None:
                return gold
        return str(doc["answer"])

    def convert(self, doc: dict[str, Any]) -> dict[str, Any] | None:
        """scorekit-style fields, or None for an option-order row past the last option."""
        t, prompt = self.task, self.task.family == "prompt"
        base = {"question_id": self._qid(doc), "benchmark": t.benchmark, "family": t.family,
                "category": str(doc["category"]) if t.benchmark == "mmlu_pro" else str(t.subset),
                "variant": int(doc["prompt_id"]) if prompt else 0, "n_variants": _UPSTREAM_PROMPTS if prompt else 1}
        if t.benchmark == "math":
            base.update(options=[], option_map=[], canonical_map=[], gold_canonical=-1, gold=self._math_gold(doc))
            return base
        shown = [str(o) for o in doc["options"]]
        n = len(shown)
        gold_shown = int(doc["answer_index"])
        if t.family == "option_order":
            position = LETTERS.index(str(doc["always_same_option"]))
            if position >= n:
                self.skipped_positions += 1
                return None
            original_gold = int(doc["original_answer_index"])
            if gold_shown != position or not 0 <= original_gold < n:
                raise ValueError(
                    f"answer_index {gold_shown} / original_answer_index {original_gold} do not fit "
                    f"always_same_option {doc['always_same_option']!r} with {n} options")
            if n > _UPSTREAM_POSITIONS[t.benchmark]:
                self.untested.add(base["question_id"])
            option_map = swap_order(n, original_gold, position)
            original = [""] * n
            for d, o in enumerate(option_map):
                original[o] = shown[d]
            canon = canonical_map(original)
            base.update(variant=position, n_variants=min(n, _UPSTREAM_POSITIONS[t.benchmark]),
                        gold_canonical=canon[original_gold])
        else:
            option_map = list(range(n))
            canon = canonical_map(shown)
            base["gold_canonical"] = canon[gold_shown]
        base.update(options=shown, option_map=option_map, canonical_map=canon)
        return base


def _detect_layout(doc: Any, task: TaskName) -> str | None:
    if not isinstance(doc, dict):
        return None
    if "_robust" in doc and is_robust(task.benchmark):
        return "variants"
    if _SCOREKIT_DOC <= doc.keys():
        return "scorekit"
    if "prompt" in doc and "question_id" in doc and (task.family != "prompt" or "prompt_id" in doc):
        return "upstream"  # upstream's prompt family numbers its templates in prompt_id
    return None


def _set_layout(sf: _SamplesFile, doc: Any, lineno: int) -> None:
    """Decide the file's layout from its first sample's ``doc`` (and whether upstream option
    order can be mapped back at all: ``sf.unmappable``)."""
    layout = _detect_layout(doc, sf.task)
    if layout is None:
        keys = sorted(doc)[:12] if isinstance(doc, dict) else type(doc).__name__
        raise ScorekitError(
            f"unknown layout: the doc is neither scorekit's nor upstream lm-eval's SCORE document (doc keys: {keys})",
            path=sf.path, where=f"line {lineno}")
    sf.layout = layout
    need = [k for k in ("options", "answer_index", "always_same_option", "original_answer_index") if k not in doc]
    if layout == "upstream" and sf.task.family == "option_order" and need:
        sf.unmappable = ("upstream option-order log without " + ", ".join(repr(k) for k in need)
                         + ": the displayed options cannot be mapped back to the original ones, so option CR and "
                         "per-position accuracy cannot be recomputed from it")


def _read_samples(sf: _SamplesFile) -> None:
    """Add the records of the file's samples to ``sf``; variant/n_variants of upstream
    non-greedy rows are set later. The notes are made by :func:`_finish`."""
    from scorekit.robustness.grading import record_for

    path = sf.path
    converter = _UpstreamConverter(sf.task)
    family, benchmark, name = sf.task.family, sf.task.benchmark, sf.task.name
    add, filters = sf.records.append, sf.filters
    for lineno, row in iter_samples(path):
        doc = row.get("doc")
        if not sf.layout:
            _set_layout(sf, doc, lineno)
        if sf.unmappable:
            return
        if not isinstance(doc, dict):
            raise ScorekitError("sample has no 'doc' object", path=path, where=f"line {lineno}")
        filt = str(row.get("filter", "none"))
        filters[filt] += 1
        if sf.chosen_filter is None:
            sf.chosen_filter = filt
        if filt != sf.chosen_filter:
            continue
        outputs = _outputs(row, path, lineno)
        layout = sf.layout
        if layout in ("variants", "scorekit"):
            _note_design(sf, doc.get("_robust") if layout == "variants" else doc, path, lineno)
            if layout == "scorekit" and sf.design is not None:
                _note_design_row(sf, doc, path, lineno)
        try:
            if layout == "scorekit":
                if doc["family"] != family or doc["benchmark"] != benchmark:
                    raise ValueError(f"document of {doc['benchmark']} {doc['family']} in a {name} log")
                if family == "non_greedy":
                    for i, out in enumerate(outputs):
                        add(record_for(doc, out, sample=i))
                    # raw resps: lm-eval pads a data-parallel rank with extra responses on its last request
                    raw = _outputs(row, path, lineno, raw=True)[: len(outputs)]
                    sf.identical[str(doc["question_id"])] = samples_identical(raw)
                else:
                    add(record_for(doc, outputs[0] if outputs else None))
            elif layout == "variants":
                _read_robust_row(sf, row, doc, path, lineno)
            else:
                converted = converter.convert(doc)
                if converted is not None:
                    add(record_for(converted, outputs[0] if outputs else None))
                    if family == "non_greedy":
                        sf.texts[converted["question_id"]] = hash(tuple(_outputs(row, path, lineno, raw=True)[:1]))
        except (KeyError, ValueError, TypeError, IndexError, OverflowError) as exc:  # overflow: a variant beyond 64 bits
            what = f"missing field {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
            raise ScorekitError(f"cannot score this {layout} SCORE sample: {what}", path=path, where=f"line {lineno}") from None
    sf.skipped_positions += converter.skipped_positions
    sf.untested |= converter.untested


def _finish(sf: _SamplesFile) -> None:
    """The notes of a file read."""
    if sf.unmappable:
        return
    if len(sf.filters) > 1:
        sf.notes.append(f"{sf.path.name}: filters {sorted(sf.filters)} logged; scored the '{sf.chosen_filter}' rows")
    if sf.shown_order:
        moved = sum(sf.shown_order.values())
        sf.notes.append(f"option order: {moved} of {len(sf.shown_order)} question(s) had their shown options permuted"
                        + ("" if moved == len(sf.shown_order) else
                           "; the others show the same prompt in every arrangement (their CR is 1 by construction)"))
    if sf.n_fallbacks:
        shown = ", ".join(repr(f) for f in sorted(sf.fallbacks))
        sf.notes.append(f"{sf.n_fallbacks} answer(s) were the fallback of the task's filters ({shown}: nothing "
                        "extracted); counted as unparsed")
    if sf.skipped_positions:
        sf.notes.append(
            f"{sf.skipped_positions} upstream option-order row(s) put the answer at a position past the "
            "question's last option (upstream repeats the original order there); left out")
    if sf.untested:
        k = _UPSTREAM_POSITIONS[sf.task.benchmark]
        sf.notes.append(
            f"{len(sf.untested)} question(s) have more options than the {k} positions upstream's "
            f"{sf.task.name} tries (A-{LETTERS[k - 1]}): the correct answer was never shown at their later positions")


def _read_robust_row(sf: _SamplesFile, row: dict[str, Any], doc: dict[str, Any], path: Path, lineno: int) -> None:
    """A row of a task written by ``scorekit variants``: its records are the metric items that
    lm-eval logged (every metric key holds the same item; ``unparsed_rate`` is always there)."""
    from scorekit.robustness.records import records_from_items

    meta = doc["_robust"]
    if meta["family"] != sf.task.family:
        raise ValueError(f"document of the {meta['family']} family in a {sf.task.name} log")
    if "unparsed_rate" not in row:
        raise KeyError("unparsed_rate")
    records = records_from_items([row["unparsed_rate"]], where=f"{path}: line {lineno}")
    outputs = _outputs(row, path, lineno)  # the filtered answers, in the order of the records
    for r, out in zip(records, outputs):
        if (r.answer is None or isinstance(r.answer, str)) and " ".join(str(out).split()) in sf.fallbacks:
            # nothing extracted: unparsed (logs of older scorekit versions kept the fallback as the answer)
            sf.n_fallbacks += 1
            r = r._replace(answer=None, correct=False)
        sf.records.append(r)
    sf.records.extend(records[len(outputs):])
    if meta["family"] == "option_order" and "permuted" in meta:
        sf.shown_order[str(meta["question_id"])] = bool(meta["permuted"])
    samples = int(meta.get("samples") or 1)
    sf.samples_per_variant = samples
    if samples > 1:
        raw = _outputs(row, path, lineno, raw=True)[:samples]
        key = str(meta["question_id"]) + (f"/{meta['template']}" if meta["family"] == "prompt" else "")
        sf.identical[key] = samples_identical(raw)


def _note_design_row(sf: _SamplesFile, doc: dict[str, Any], path: Path, lineno: int) -> None:
    """A budgeted SCORE document's ``design_row``: the id its question has in the design (the row
    number in its split; :mod:`scorekit.lm_eval.score_suite_design`)."""
    row = doc.get("design_row")
    if isinstance(row, bool) or not isinstance(row, int) or row < 0:
        raise ScorekitError(f"a budgeted SCORE document needs design_row, a row number; got {row!r}: the design was "
                            "edited", path=path, where=f"line {lineno}: design_row")
    qid = str(doc.get("question_id"))
    if sf.design_ids.setdefault(qid, str(row)) != str(row):
        raise ScorekitError(f"question {qid!r} records design_row {row} here and {sf.design_ids[qid]} earlier: the "
                            "design was edited", path=path, where=f"line {lineno}: design_row")


def _note_design(sf: _SamplesFile, meta: Any, path: Path, lineno: int) -> None:
    """Keep the design the row records (:mod:`scorekit.robustness.budget.runs`); rows of one
    log must all record the same one (or none)."""
    from scorekit.robustness.budget.runs import design_of_doc

    design, n = design_of_doc(meta, path=str(path), where=f"line {lineno}: _robust.design")
    if sf.design is _UNSET:
        sf.design, sf.design_questions = design, n
    elif (design, n) != (sf.design, sf.design_questions):
        said = lambda d: "no design" if d is None else f"design {d.to_json()}"  # noqa: E731
        raise ScorekitError(f"this row records {said(design)}, earlier rows {said(sf.design)}: rows of different runs "
                            "mixed in one log, or the design was edited", path=path, where=f"line {lineno}")


# --- the reader ------------------------------------------------------------------------------


class LmEvalLogsReader:
    """Reads lm-eval ``results_*.json`` and ``samples_*.jsonl`` files (see the module docstring)."""

    name = "lm-eval"

    def claims(self, path: Path) -> bool:
        return path.suffix == ".json" or SAMPLES_NAME.match(path.name) is not None

    def read(self, paths: Sequence[Path], explicit: set[Path]) -> ReadResult:
        out = ReadResult()
        read = [_read_results(p, p in explicit) for p in paths if p.suffix == ".json"]  # None: not lm-eval's
        results = [rf for rf in read if rf is not None]
        if len(results) < len(read):
            out.notes.append(f"{len(read) - len(results)} JSON file(s) in the given folders are not lm-eval results "
                             "files and were not read")

        by_run = {(rf.path.parent, rf.time): rf for rf in results if rf.time}
        models_in_dir: dict[Path, set[str]] = defaultdict(set)
        for rf in results:
            if rf.model:
                models_in_dir[rf.path.parent].add(rf.model)

        other_tasks = 0
        sample_files: list[_SamplesFile] = []
        for p in paths:
            if p.suffix == ".json":
                continue
            task_name, time = samples_name(p.name)  # type: ignore[misc]
            task = classify_task(task_name)
            if task is None or task.is_group:
                if p in explicit:
                    raise ScorekitError(f"not a SCORE robustness task log (task {task_name!r})", path=p)
                other_tasks += 1
                continue
            rf = by_run.get((p.parent, time))
            if rf is None:  # a samples file named on its own: its run's results file names the model
                sibling = p.parent / f"results_{time}.json"
                if sibling.is_file():
                    rf = _read_results(sibling, False)
                    by_run[(p.parent, time)] = rf  # type: ignore[assignment]
            model = rf.model if rf and rf.model else None
            if model is None:
                in_dir = models_in_dir.get(p.parent, set())
                model = next(iter(in_dir)) if len(in_dir) == 1 else p.parent.name
            seed = _seed_from_path(p)  # a seed_<N> folder, else the run's config.random_seed
            sample_files.append(_SamplesFile(p, task, time, model, seed if seed is not None else rf.seed if rf else None,
                                             rf.when if rf else run_time(p)[0], fallbacks=_task_fallbacks(rf, task_name)))
        if other_tasks:
            out.notes.append(f"{other_tasks} samples file(s) of non-SCORE tasks were not read")

        for sf in sample_files:
            _read_samples(sf)
            _finish(sf)
        out.samples.extend(_merge_sample_files(sample_files))
        out.aggregates.extend(_aggregates(results))
        return out


def _merge_sample_files(files: list[_SamplesFile]) -> list[SampleSet]:
    """One SampleSet per (model, task): newest run wins, except upstream non-greedy runs,
    which are merged by question (run i = sample i, runs ordered by seed, then time)."""
    groups: dict[tuple[str, str, str], list[_SamplesFile]] = defaultdict(list)
    for sf in files:
        groups[(sf.model, sf.task.name, sf.layout)].append(sf)
    out: list[SampleSet] = []
    for (model, _task, layout), members in groups.items():
        members.sort(key=lambda s: (s.when, str(s.path)))
        task = members[0].task
        _refuse_mixed_designs(task.name, members)
        if layout == "upstream" and task.family == "non_greedy":
            out.append(_merge_runs(model, task, members))
            continue
        newest = members[-1]
        set_notes = list(newest.notes)
        if len(members) > 1:
            set_notes.append(
                f"{task.name}: {len(members)} runs found; used the newest ({newest.path.name}), ignored "
                + listed(m.path for m in members[:-1]))
        if newest.unmappable:
            set_notes.append(f"{newest.path}: {newest.unmappable}")
        permuted = (sum(newest.shown_order.values()), len(newest.shown_order)) if newest.shown_order else None
        out.append(SampleSet(model, task, layout, newest.records if not newest.unmappable else [],
                             [str(newest.path)], newest.when, [newest.time], set_notes, dict(newest.identical),
                             newest.samples_per_variant, permuted, design=_design(newest),
                             design_questions=newest.design_questions, design_ids=newest.design_ids or None))
    return out


def _design(sf: _SamplesFile) -> Any:
    return None if sf.design is _UNSET else sf.design


def _refuse_mixed_designs(task: str, members: list[_SamplesFile]) -> None:
    """Runs of one task with different designs (a budgeted and a full run, or two budgets) are
    not combined: the newest-wins rule would silently swap an estimate for an exact value or
    back, and pooling them would weigh the questions of one run twice."""
    designs = {}
    for m in members:
        d = _design(m)
        designs.setdefault(None if d is None or d.full else (d.variants, d.per_question, d.seed), m)
    if len(designs) < 2:
        return
    (da, a), (db, b) = list(designs.items())[:2]
    said = lambda d: "a full run" if d is None else f"a budgeted run ({d[1]} of {d[0]} variants, seed {d[2]})"  # noqa: E731
    raise ScorekitError(f"task {task}: {said(da)} ({a.path}) and {said(db)} ({b.path}) given together; they are not "
                        "combined (a full run is exact, a budgeted one estimates it): give the runs of one design")


def _merge_runs(model: str, task: TaskName, members: list[_SamplesFile]) -> SampleSet:
    notes: list[str] = []
    by_seed: dict[object, _SamplesFile] = {}
    for sf in members:  # oldest first: a later run with the same seed replaces it
        key = sf.seed if sf.seed is not None else ("time", sf.time, str(sf.path))
        if key in by_seed:
            notes.append(f"{task.name}: two runs with seed {sf.seed}; used {sf.path}, ignored {by_seed[key].path}")
        by_seed[key] = sf
        notes.extend(sf.notes)
    runs = sorted(by_seed.values(), key=lambda s: (s.seed is None, s.seed if s.seed is not None else 0, s.when))
    k = len(runs)
    records = [r._replace(variant=i, n_variants=k) for i, sf in enumerate(runs) for r in sf.records]  # run i = sample i
    seeds = [str(sf.seed) if sf.seed is not None else "?" for sf in runs]
    by_question: dict[str, list[int]] = defaultdict(list)
    for sf in runs:
        for qid, text in sf.texts.items():
            by_question[qid].append(text)
    identical = {qid: samples_identical(texts) for qid, texts in by_question.items() if len(texts) >= 2}
    if k < 2:
        notes.append(f"{task.name}: only {k} non-greedy run found; CR needs several runs (SCORE: five, seeds 1..5)")
    elif k != 5:
        notes.append(f"{task.name}: {k} non-greedy runs found (seeds {', '.join(seeds)}); SCORE uses five")
    return SampleSet(model, task, "upstream", records, [str(sf.path) for sf in runs],
                     max(sf.when for sf in runs), [f"seed {s}" for s in seeds], notes, identical)


def _aggregates(results: list[_ResultsFile]) -> list[AggregateSet]:
    out: list[AggregateSet] = []
    models_below: dict[Path, set[str]] = defaultdict(set)
    for rf in results:
        if rf.model:
            for parent in rf.path.parents:
                models_below[parent].add(rf.model)
    for rf in results:
        model = rf.model
        summarizer = rf.model is None and rf.data.get("configs") is None and _is_summarizer(rf.data)
        if model is None:
            below = models_below.get(rf.path.parent, set())
            model = next(iter(below)) if len(below) == 1 else rf.path.parent.name
        n_samples = rf.data.get("n-samples") if isinstance(rf.data.get("n-samples"), dict) else {}
        groups = rf.data.get("groups") if isinstance(rf.data.get("groups"), dict) else {}
        for key, entry in {**rf.data["results"], **groups}.items():
            task = classify_task(key)
            if task is None:
                continue
            metrics = _metrics_of(entry, rf.path, key)
            if not metrics:
                continue
            ns = n_samples.get(key)
            n_docs = ns["effective"] if isinstance(ns, dict) and isinstance(ns.get("effective"), int) else None
            scorekit = any(k == "unparsed_rate" or k.endswith("_ci_low") for k in metrics)  # only scorekit logs these
            layout = ("variants" if is_robust(task.benchmark) else "upstream-summarizer" if summarizer
                      else "scorekit" if scorekit else "upstream")
            out.append(AggregateSet(model, task, layout, metrics, str(rf.path), rf.when, n_docs))
    return out


def _is_summarizer(data: dict[str, Any]) -> bool:
    results = data.get("results", {})
    return any(isinstance(v, dict) and any(str(k).startswith("seed_") for k in v) for v in results.values())
