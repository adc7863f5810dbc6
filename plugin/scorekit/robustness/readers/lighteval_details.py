"""lighteval output folders -> SCORE sample sets and aggregate sets.

What lighteval 0.13 writes for ``--output-dir OUT --save-details``:
``OUT/details/<model_name>/<time>/details_<task>|<fewshots>_<time>.parquet`` (columns ``doc``,
``metric``, ``model_response``) and ``OUT/results/<model_name>/results_<time>.json``
(``config_general``, ``results``, ...). ``<model_name>`` may contain ``/``.

Details of scorekit's SCORE tasks (:mod:`scorekit.lighteval.tasks`) are read: each document
carries its expanded SCORE fields in ``doc.specific["score"]``, and the answers are scored again
from ``model_response.text`` with :func:`scorekit.robustness.grading.record_for` (the same
extraction as every other reader). lighteval runs each prompt template / answer position as
its own task (``score_prompt_robustness_mmlu_pro:template_3``); the variant tasks of one
family and subset are merged into one :class:`~scorekit.robustness.readers.SampleSet` under the
lm-eval task name (``score_prompt_robustness_mmlu_pro``, ``..._agieval_aqua_rat``). When a
variant task was run several times for a model, the newest run is used (with a note).

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

from scorekit.errors import ScorekitError, one_line
from scorekit.harness_outputs import LIGHTEVAL, TIME_PATTERN, details_model, model_identity
from scorekit.io import load_json
from scorekit.robustness.identical import samples_identical
from scorekit.robustness.benchmarks import get, parse_lighteval_task
from scorekit.robustness.readers import AggregateSet, ReadResult, SampleSet, TaskName
from scorekit.robustness.readers.lm_eval_logs import checked_rate
from scorekit.robustness.records import Record

__all__ = ["LightevalDetailsReader", "DETAILS_NAME", "parse_details_name", "lm_eval_task_name"]

_TIME = TIME_PATTERN
DETAILS_NAME = re.compile(rf"^details_(?P<task>.+)\|(?P<fewshot>\d+)_(?P<time>{_TIME})\.parquet$")
RESULTS_NAME = re.compile(rf"^results_(?P<time>{_TIME})\.json$")
SCORE_DOC_KEY = "score"  # as in scorekit.lighteval.tasks (not imported: that module imports lighteval)


def parse_details_name(name: str) -> tuple[str, int, str] | None:
    """(task, fewshots, time) of a ``details_<task>|<n>_<time>.parquet`` file name."""
    m = DETAILS_NAME.match(name)
    return None if m is None else (m["task"], int(m["fewshot"]), m["time"])


def lm_eval_task_name(benchmark: str, family: str, subset: str) -> TaskName:
    """The lm-eval task a lighteval variant task belongs to (``score_prompt_robustness_agieval_aqua_rat``)."""
    return TaskName(get(benchmark).lm_eval_task(family, subset), benchmark, family, subset or None, False)


def _records_from_table(path: Path) -> tuple[list[Record], int, dict[str, bool]]:
    """Records of one details file (scored again from the texts), the number of rows that
    are not scorekit SCORE documents, and (non-greedy) whether each question's raw samples
    were all the same text."""
    import pyarrow.parquet as pq

    from scorekit.robustness.grading import record_for

    try:
        table = pq.read_table(path, columns=["doc", "model_response"])
    except Exception as exc:  # pyarrow raises several types for damaged files; its messages span lines
        raise ScorekitError(f"cannot read lighteval details parquet: {one_line(str(exc).strip())}", path=path) from None
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
    m = RESULTS_NAME.match(path.name)
    time = m["time"] if m else ""
    merged: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
    for key, values in results.items():
        parsed = parse_lighteval_task(key)
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
    if not merged and explicit:
        raise ScorekitError("no scorekit SCORE task in this lighteval results file", path=path)
    return [AggregateSet(model, lm_eval_task_name(b, f, s), "lighteval", metrics, str(path), time)
            for (b, f, s), metrics in merged.items()]


def _is_lighteval_results(path: Path) -> bool:
    if RESULTS_NAME.match(path.name) is None:
        return False
    with open(path, "rb") as fh:
        head = fh.read(4096)
    return b'"config_general"' in head


class LightevalDetailsReader:
    """Reads lighteval ``details_*.parquet`` and ``results_*.json`` files (module docstring)."""

    name = "lighteval"

    def claims(self, path: Path) -> bool:
        if path.suffix == ".parquet":
            return DETAILS_NAME.match(path.name) is not None
        return path.suffix == ".json" and _is_lighteval_results(path)

    def read(self, paths: Sequence[Path], explicit: set[Path]) -> ReadResult:
        out = ReadResult()
        newest: dict[tuple[str, str], tuple[str, Path]] = {}
        superseded: dict[tuple[str, str], list[Path]] = defaultdict(list)
        other = 0
        for p in paths:
            if p.suffix == ".json":
                out.aggregates.extend(_read_results(p, p in explicit))
                continue
            task, _fewshot, time = parse_details_name(p.name)  # type: ignore[misc]
            if parse_lighteval_task(task) is None:
                if p in explicit:
                    raise ScorekitError(f"not a scorekit SCORE task (task {task!r})", path=p)
                other += 1
                continue
            model = details_model(p)
            key = (model, task)
            if key in newest:
                older, newer = sorted([newest[key], (time, p)])
                superseded[key].append(older[1])
                newest[key] = newer
            else:
                newest[key] = (time, p)
        if other:
            out.notes.append(f"{other} lighteval details file(s) of non-SCORE tasks were not read")

        sets: dict[tuple[str, str], SampleSet] = {}
        for (model, task), (time, p) in sorted(newest.items()):
            benchmark, family, subset, _variant = parse_lighteval_task(task)  # type: ignore[misc]
            tname = lm_eval_task_name(benchmark, family, subset)
            records, foreign, identical = _records_from_table(p)
            s = sets.get((model, tname.name))
            if s is None:
                s = sets[(model, tname.name)] = SampleSet(model, tname, "lighteval", [], [], time, [])
            s.records.extend(records)
            s.identical.update(identical)
            s.sources.append(str(p))
            s.timestamp = max(s.timestamp, time)
            if time not in s.runs:
                s.runs.append(time)
            if foreign:
                s.notes.append(f"{p}: {foreign} row(s) without SCORE fields were not read")
            if superseded.get((model, task)):
                s.notes.append(f"{task}: {len(superseded[(model, task)]) + 1} runs found; used the newest "
                               f"({p.name}), ignored " + ", ".join(map(str, superseded[(model, task)])))
        out.samples.extend(sets.values())
        return out
