"""lighteval output folders -> SCORE sample sets and aggregate sets.

What lighteval 0.13 writes for ``--output-dir OUT --save-details``:
``OUT/details/<model_name>/<time>/details_<task>|<fewshots>_<time>.parquet`` (columns ``doc``,
``metric``, ``model_response``) and ``OUT/results/<model_name>/results_<time>.json``
(``config_general``, ``results``, ...). ``<model_name>`` may contain ``/``.

Details of scorekit's SCORE tasks (:mod:`scorekit.lighteval.score_suite`) are read: each document
carries its expanded SCORE fields in ``doc.specific["score"]``, and the answers are scored again
from ``model_response.text`` with :func:`scorekit.robustness.grading.record_for` (the same
extraction as every other reader). lighteval runs each prompt template / answer position as
its own task (``score_prompt_robustness_mmlu_pro:template_3``); the variant tasks of one
family and subset are merged into one :class:`~scorekit.robustness.readers.SampleSet` under the
lm-eval task name (``score_prompt_robustness_mmlu_pro``, ``..._agieval_aqua_rat``). When a
variant task was run several times for a model, the newest run is used (with a note).

Details of tasks written for lighteval by ``scorekit variants`` (:mod:`scorekit.lighteval.task_variants`,
``robust_<family>_<T>[:position_<L>|:template_<t>]``) are read too: their documents carry
``doc.specific["robust"]`` and the run logged each answer's records in the ``metric`` column.
Log-likelihood answers are scored again from ``model_response.logprobs`` (the choice with the
highest one, by content); a generated answer's text is taken again from ``model_response.text``
and its correctness from the logged record (it needs the wrapped task's own metric); a generated
option-order answer is the logged one (the option its label names). The
variant tasks of a family merge into the sample set of task ``robust_<family>_<T>``. A budgeted
run (``scorekit variants --harness lighteval --budget B``) records its design in every document
(``doc.specific["robust"]["design"]`` and ``["design_questions"]``): every row of every variant
task of a family must record the same one (or none), and the sample set carries it, for the
report's estimates (:mod:`scorekit.robustness.report_budget`).

Results JSON files (recognised by ``config_general`` and ``summary_general``) give
:class:`~scorekit.robustness.readers.AggregateSet` items under the upstream metric names: a variant
task's accuracy becomes ``<v>_macro_accuracy`` / ``per_option_accuracy_<L>``; the non-greedy
task already reports SCORE's names. They are used only where no details exist.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from scorekit.errors import ScorekitError, listed, one_line
from scorekit.harness_outputs.identity import details_model, model_identity
from scorekit.harness_outputs.kinds import LIGHTEVAL, TIME_PATTERN
from scorekit.harness_outputs.lighteval import DETAILS_NAME, parse_details_name, read_details_table
from scorekit.harness_outputs.runs import run_time
from scorekit.files import load_json
from scorekit.robustness.identical import samples_identical
from scorekit.robustness.benchmarks import LETTERS, get, parse_lighteval_task, robust_task_name
from scorekit.robustness.readers import AggregateSet, ReadResult, SampleSet, TaskName, classify_task
from scorekit.robustness.readers.lm_eval_logs import checked_rate
from scorekit.robustness.records import Family, Record

__all__ = ["LightevalDetailsReader", "DETAILS_NAME", "parse_details_name", "parse_robust", "lm_eval_task_name",
           "read_details_table"]

RESULTS_NAME = re.compile(rf"^results_(?P<time>{TIME_PATTERN})\.json$")
SCORE_DOC_KEY = "score"  # as in scorekit.lighteval.score_suite (not imported: that module imports lighteval)
ROBUST_DOC_KEY = "robust"  # as in scorekit.lighteval.task_variants
_ROBUST = re.compile(r"^robust_(?P<family>option_order|prompt|non_greedy)_(?P<task>[^:|]+)"
                     r"(?::(?:position_(?P<pos>[A-Z])|template_(?P<tpl>\d+)))?$")


def parse_robust(name: str) -> tuple[Family, str] | None:
    """(family, task ``robust_<family>_<T>``) of a lighteval task written by ``scorekit variants``
    (:func:`scorekit.lighteval.task_variants.robust_name`), else None.

    >>> parse_robust("robust_option_order_arc_easy:position_C|0"), parse_robust("robust_prompt_x")
    (('option_order', 'robust_option_order_arc_easy'), None)
    """
    m = _ROBUST.match(name.split("|")[0])
    if m is None:
        return None
    family = cast(Family, m["family"])
    if (family == "option_order") != (m["pos"] is not None) or (family == "prompt") != (m["tpl"] is not None):
        return None
    return family, robust_task_name(family, m["task"])


_NO_ROWS = object()  # a details file without robustness rows records no design either way


def _robust_records(path: Path) -> tuple[list[Record], int, dict[str, bool], object]:
    """Records of one details file of a variant task (module docstring), the number of rows
    without robustness fields, (non-greedy) whether each question's raw samples were the same,
    and the (design, design_questions) its rows record ((None, None): a full run; every row the
    same, else one line)."""
    from scorekit.robustness.budget.runs import design_of_doc
    from scorekit.robustness.records import as_record
    from scorekit.robustness.task_variants import choice_answer, text_answer

    table = read_details_table(path, ["doc", "metric", "model_response"])
    records: list[Record] = []
    identical: dict[str, bool] = {}
    foreign = 0
    design: object = _NO_ROWS
    for i, row in enumerate(table.to_pylist()):
        doc = row.get("doc") or {}
        meta = (doc.get("specific") or {}).get(ROBUST_DOC_KEY)
        logged = next((v for v in (row.get("metric") or {}).values() if isinstance(v, dict) and "records" in v), None)
        if not meta or logged is None:
            foreign += 1
            continue
        where = f"row {i}"
        mine = design_of_doc(meta, path=str(path), where=f"{where}: doc.specific.robust.design")
        if design is _NO_ROWS:
            design = mine
        elif mine != design:
            raise ScorekitError(f"this row records {_said(mine)}, earlier rows {_said(design)}: rows of different runs "
                                "mixed in one file, or the design was edited", path=path, where=where)
        recs = [as_record(r, where=f"{path}: {where}") for r in logged["records"]]
        response = row.get("model_response") or {}
        try:
            logprobs = response.get("logprobs") or []
            if logprobs and int(meta["gold_canonical"]) >= 0:
                answer = choice_answer(logprobs[: len(doc.get("choices") or [])], meta["order"], meta["canonical"])
                recs = [recs[0]._replace(answer=answer, correct=answer == int(meta["gold_canonical"]))]
            elif meta["family"] != "option_order":  # generated option order: the logged label -> option mapping
                texts = response.get("text_post_processed") or response.get("text") or []
                if len(texts) < len(recs):
                    raise ScorekitError(f"{len(texts)} generations for {len(recs)} logged records", path=path, where=where)
                recs = [r._replace(answer=text_answer(t)) for r, t in zip(recs, texts)]
        except KeyError as exc:
            raise ScorekitError(f"variant task's document lacks field {exc.args[0]!r}", path=path, where=where) from None
        records.extend(recs)
        if logged.get("identical") is not None:
            identical[str(meta["question_id"])] = bool(logged["identical"])
    return records, foreign, identical, design


def _said(design: object) -> str:
    d, n = design  # type: ignore[misc]
    return "no design" if d is None else f"design {d.to_json()} over {n} questions"


def _same_design(s: SampleSet, design: object, seen: dict[tuple[str, str], object], key: tuple[str, str],
                 path: Path) -> None:
    """Keep the design of a variant task's details file on its family's sample set: the
    variant tasks of one budgeted run record one design; another (or none beside one) is
    refused in one line."""
    if design is _NO_ROWS:
        return
    first = seen.setdefault(key, design)
    if first != design:
        raise ScorekitError(f"{s.task.name}: this file records {_said(design)}, {s.sources[0]} {_said(first)}: runs of "
                            "different designs (or a full and a budgeted run) mixed in one family, or the design was "
                            "edited; give the details of one run", path=path)
    s.design, s.design_questions = design  # type: ignore[misc]


def _refuse_other_designs(task: str, newest: Path, design: object, older: list[Path]) -> None:
    """Runs of one variant task with different designs (a budgeted and a full run, or two
    budgets) are not combined, as for lm-eval logs: the newest-wins rule would swap an estimate
    for an exact value, or mix the variant tasks of two designs in one family."""
    def said(d: Any) -> str:
        return "a full run" if d[0] is None else f"a budgeted run ({d[0].per_question} of {d[0].variants} variants, " \
            f"seed {d[0].seed})"

    for path in older:
        other = _robust_records(path)[3]
        if other is not _NO_ROWS and design is not _NO_ROWS and other != design:
            raise ScorekitError(f"task {task}: {said(design)} ({newest}) and {said(other)} ({path}) given together; they "
                                "are not combined (a full run is exact, a budgeted one estimates it): give the runs of one "
                                "design")


def lm_eval_task_name(benchmark: str, family: Family, subset: str) -> TaskName:
    """The lm-eval task a lighteval variant task belongs to (``score_prompt_robustness_agieval_aqua_rat``)."""
    return TaskName(get(benchmark).lm_eval_task(family, subset), benchmark, family, subset or None, False)


def _records_from_table(path: Path) -> tuple[list[Record], int, dict[str, bool]]:
    """Records of one details file (scored again from the texts), the number of rows that
    are not scorekit SCORE documents, and (non-greedy) whether each question's raw samples
    were all the same text."""
    from scorekit.robustness.grading import record_for

    table = read_details_table(path, ["doc", "model_response"])
    records: list[Record] = []
    identical: dict[str, bool] = {}
    foreign = 0
    for i, row in enumerate(table.to_pylist()):
        where = f"row {i}"
        doc = row.get("doc")
        specific = doc.get("specific") if isinstance(doc, dict) else None
        fields = specific.get(SCORE_DOC_KEY) if isinstance(specific, dict) else None
        if not fields:
            foreign += 1
            continue
        if not isinstance(fields, dict):
            raise ScorekitError(f"SCORE document is {type(fields).__name__}, expected a mapping", path=path, where=where)
        response = row.get("model_response") or {}
        if not isinstance(response, dict):
            raise ScorekitError(f"model_response is {type(response).__name__}, expected a mapping", path=path, where=where)
        texts = response.get("text_post_processed") or response.get("text") or []
        if isinstance(texts, str):
            texts = [texts]
        try:
            if fields["family"] == "non_greedy":
                if len(texts) < int(fields["n_variants"]):
                    raise ScorekitError(f"{len(texts)} samples, the non-greedy family needs {fields['n_variants']}",
                                        path=path, where=where)
                records.extend(record_for(fields, t, sample=s) for s, t in enumerate(texts[: int(fields["n_variants"])]))
                raw = response.get("text") or texts
                identical[str(fields["question_id"])] = samples_identical(raw[: int(fields["n_variants"])])
            else:
                records.append(record_for(fields, texts[0] if texts else None))
        except KeyError as exc:
            raise ScorekitError(f"SCORE document lacks field {exc.args[0]!r}", path=path, where=where) from None
        except (ValueError, TypeError, IndexError, AttributeError) as exc:
            raise ScorekitError(f"cannot score this SCORE row: {one_line(str(exc))}", path=path, where=where) from None
    return records, foreign, identical


def _read_results(path: Path, explicit: bool) -> list[AggregateSet]:
    from scorekit.robustness.analysis import variant_metric_name

    data = load_json(path)
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, dict):
        raise ScorekitError("lighteval results file without a 'results' object", path=path)
    model = model_identity(data, path, LIGHTEVAL)
    time = run_time(path, data)[0]
    merged: dict[tuple[str, Family, str], dict[str, float]] = defaultdict(dict)
    robust: dict[str, dict[str, float]] = defaultdict(dict)
    for key, values in results.items():
        parsed = parse_lighteval_task(key)
        r = parse_robust(key)
        if r is not None and isinstance(values, dict):  # variant task: accuracy under its per-variant name
            numbers = {k: float(v) for k, v in values.items() if isinstance(v, (int, float)) and not k.endswith("_stderr")}
            family, task = r
            label = key.split("|")[0].split(":")[1] if ":" in key.split("|")[0] else ""
            if family == "non_greedy":
                robust[task].update({k: v for k, v in numbers.items() if k != "non_greedy_accuracy"},
                                    accuracy=numbers.get("non_greedy_accuracy", float("nan")))
            elif "accuracy" in numbers:
                variant = LETTERS.index(label[-1]) if family == "option_order" else int(label.split("_")[1])
                robust[task][variant_metric_name(family, variant, macro=False)] = numbers["accuracy"]
            continue
        if parsed is None or not isinstance(values, dict):
            continue
        benchmark, family, subset, variant = parsed
        numbers = {
            k: checked_rate(v, path, f'results["{key}"]["{k}"]')
            for k, v in values.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and not k.endswith("_stderr")
        }
        if family == "non_greedy":
            merged[(benchmark, family, subset)].update(numbers)
            continue
        for acc in ("macro_accuracy", "accuracy"):
            if acc in numbers:
                merged[(benchmark, family, subset)][variant_metric_name(family, variant, macro=acc == "macro_accuracy")] = numbers[acc]
    if not merged and not robust and explicit:
        raise ScorekitError("no scorekit SCORE or variant task in this lighteval results file", path=path)
    return [AggregateSet(model, lm_eval_task_name(b, f, s), "lighteval", metrics, str(path), time)
            for (b, f, s), metrics in merged.items()] + [
        AggregateSet(model, classify_task(task), "lighteval", metrics, str(path), time)  # type: ignore[arg-type]
        for task, metrics in robust.items()]


class LightevalDetailsReader:
    """Reads lighteval ``details_*.parquet`` and ``results_*.json`` files (module docstring)."""

    name = "lighteval"

    def claims(self, path: Path) -> bool:
        if path.suffix == ".parquet":
            return DETAILS_NAME.match(path.name) is not None
        if path.suffix != ".json" or RESULTS_NAME.match(path.name) is None:
            return False
        with open(path, "rb") as fh:  # lighteval writes config_general first
            return b'"config_general"' in fh.read(4096)

    def read(self, paths: Sequence[Path], explicit: set[Path]) -> ReadResult:
        out = ReadResult()
        newest: dict[tuple[str, str], tuple[float, Path, str]] = {}  # (run time, file, time stamp)
        superseded: dict[tuple[str, str], list[Path]] = defaultdict(list)
        other = 0
        for p in paths:
            if p.suffix == ".json":
                out.aggregates.extend(_read_results(p, p in explicit))
                continue
            task, _fewshot, time = parse_details_name(p.name)  # type: ignore[misc]
            if parse_lighteval_task(task) is None and parse_robust(task) is None:
                if p in explicit:
                    raise ScorekitError(f"not a scorekit SCORE or variant task (task {task!r})", path=p)
                other += 1
                continue
            key = (details_model(p), task)
            run = (run_time(p)[0], p, time)
            if key in newest:  # the newer run stays, the older is noted as ignored
                older, run = sorted([newest[key], run])
                superseded[key].append(older[1])
            newest[key] = run
        if other:
            out.notes.append(f"{other} lighteval details file(s) of non-SCORE tasks were not read")

        sets: dict[tuple[str, str], SampleSet] = {}
        designs: dict[tuple[str, str], object] = {}
        for (model, task), (when, p, time) in sorted(newest.items()):
            robust = parse_robust(task)
            design: object = _NO_ROWS
            if robust is not None:
                tname = classify_task(robust[1])
                assert tname is not None, robust
                records, foreign, identical, design = _robust_records(p)
            else:
                benchmark, family, subset, _variant = parse_lighteval_task(task)  # type: ignore[misc]
                tname = lm_eval_task_name(benchmark, family, subset)
                records, foreign, identical = _records_from_table(p)
            s = sets.setdefault((model, tname.name), SampleSet(model, tname, "lighteval", [], [], when, []))
            _same_design(s, design, designs, (model, tname.name), p)
            s.records.extend(records)
            s.identical.update(identical)
            s.sources.append(str(p))
            s.timestamp = max(s.timestamp, when)
            if time not in s.runs:
                s.runs.append(time)
            if foreign:
                s.notes.append(f"{p}: {foreign} row(s) without {'robustness' if robust else 'SCORE'} fields were not read")
            if superseded.get((model, task)):
                if robust is not None:
                    _refuse_other_designs(task, p, design, superseded[(model, task)])
                s.notes.append(f"{task}: {len(superseded[(model, task)]) + 1} runs found; used the newest "
                               f"({p.name}), ignored " + listed(superseded[(model, task)]))
        out.samples.extend(sets.values())
        return out
