"""lm-eval's files (0.4.x, 0.5): results ``results_<time>.json`` and samples
``samples_<task>_<time>.jsonl``, read as the format :data:`LM_EVAL_FORMAT`.

- results: a JSON object with ``results`` and one of lm-eval's bookkeeping keys. Task keys are
  lm-eval task and group names without 0.5's ``group::`` (:func:`~scorekit.harness_outputs.keys.
  unqualified`); metric keys ``"<metric>,<filter>"``, values as written;
- samples: one row per document and filter; every metric the row lists (``metrics``; older
  versions: every key that is not bookkeeping) becomes ``<metric>,<filter>``, the question id
  is ``doc_id`` and ``doc_hash`` (when logged) its fingerprint. The model is the results
  file's of the same folder and time stamp (else the folder's name);
- task facts (export): ``results[task]`` values and ``<metric>_stderr,<filter>`` (``"N/A"`` and
  other non-numbers read as unknown), ``higher_is_better[task]``, ``configs[task].dataset_path`` /
  ``test_split`` (else ``validation_split``), ``lm_eval_version``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from scorekit.errors import ScorekitError
from scorekit.files import finite_number
from scorekit.harness_outputs.formats import Format, QuestionFile, RunFiles
from scorekit.harness_outputs.identity import model_identity
from scorekit.harness_outputs.keys import ungrouped, unqualified
from scorekit.harness_outputs.kinds import LM_EVAL, SAMPLES, file_kind, results_harness, samples_name
from scorekit.harness_outputs.runs import run_time
from scorekit.harness_outputs.samples import iter_samples
from scorekit.harness_outputs.values import MetricValues, QuestionTable, ResultsFile, TaskFacts, results_mapping

__all__ = ["LmEvalFormat", "LM_EVAL_FORMAT"]

_BOOKKEEPING = ("doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "doc_hash", "prompt_hash",
                "target_hash")


def _budgets(configs: Any) -> dict[str, dict]:
    """Task key -> the budget of each task written with ``scorekit variants --budget`` (each
    question asked under some of its variants only): ``metadata.budget`` of the SCORE suite,
    ``metadata.robust.budget`` of variants for any task."""
    if not isinstance(configs, dict):
        return {}
    out = {}
    for key, cfg in unqualified(configs).items():
        meta = cfg.get("metadata") if isinstance(cfg, dict) else None
        meta = meta if isinstance(meta, dict) else {}
        robust = meta.get("robust") if isinstance(meta.get("robust"), dict) else {}
        budget = meta.get("budget", robust.get("budget"))
        if isinstance(budget, dict):
            out[key] = budget
    return out


class LmEvalFormat(Format):
    name = LM_EVAL
    library = "lm_eval"

    def is_results(self, data: Any) -> bool:
        return results_harness(data) == LM_EVAL

    def read_results(self, path: str, data: Any) -> ResultsFile:
        """An lm-eval results file (``data`` its parsed JSON) as a :class:`ResultsFile`."""
        results = results_mapping(data, path, nonempty=True)
        ts, ts_source = run_time(path, data)
        model = model_identity(data, path, LM_EVAL)
        # n-shot, group_subtasks, n-samples by unqualified task key, values as written: the n-shot
        # values are checked on use (TaskResult), the group members by results_files._leaves
        by_task = {key: unqualified(v) if isinstance(v := data.get(key), dict) else {}
                   for key in ("n-shot", "group_subtasks", "n-samples")}
        return ResultsFile(path, LM_EVAL, model, ts, ts_source, unqualified(results), by_task["n-shot"],
                           by_task["group_subtasks"], by_task["n-samples"], _budgets(data.get("configs")))

    def holds_questions(self, path: Path) -> bool:
        return file_kind(path) == SAMPLES

    def question_file(self, path: Path, run: RunFiles) -> QuestionFile | None:
        named = samples_name(path.name)
        if named is None:
            return None
        task, time = named
        rf = run.results_at(path.parent, time)
        model = rf.model if rf is not None else path.parent.name
        when = rf.timestamp if rf is not None else run_time(path)[0]
        return QuestionFile(path, self, task, task, model, when)

    def read_questions(self, file: QuestionFile, notes: list[str]) -> dict[str, MetricValues]:
        table, path = QuestionTable(), file.path
        for lineno, row in iter_samples(path):
            if "doc_id" not in row:
                raise ScorekitError("samples row lacks doc_id", path=path, where=f"line {lineno}")
            qid = str(row["doc_id"])
            filt = row.get("filter", "none")
            names = row.get("metrics")
            if not isinstance(names, list):  # older lm-eval: every key that is not bookkeeping
                names = [k for k in row if k not in _BOOKKEEPING]
            if isinstance(row.get("doc_hash"), str):
                table.fingerprint[qid] = row["doc_hash"]
            for name in names:
                key = f"{name},{filt}"
                before = len(table.values.get(key, ()))
                if table.add(key, qid, row.get(name)) and len(table.values[key]) == before:
                    raise ScorekitError(f"doc_id {qid} appears twice for filter {filt!r}", path=path,
                                        where=f"line {lineno}")
        notes.extend(table.notes(file.key, " (a corpus-level or list metric)"))
        return table.metrics()

    def task_facts(self, path: str, data: Any, timestamp: float) -> dict[str, TaskFacts]:
        version = data.get("lm_eval_version")
        version = version if isinstance(version, str) and version else "unknown"
        hib_all = data.get("higher_is_better") if isinstance(data.get("higher_is_better"), dict) else {}
        configs = data.get("configs") if isinstance(data.get("configs"), dict) else {}
        out = {}
        for key, metrics in data["results"].items():
            if not isinstance(metrics, dict):
                continue
            reported, undefined = {}, []
            for name, value in metrics.items():
                base, sep, filt = name.partition(",")
                if base.endswith("_stderr") or name in ("alias", "name", "samples", "sample_len", "sample_count"):
                    continue
                v = finite_number(value)
                if v is not None:
                    reported[name] = (v, finite_number(metrics.get(f"{base}_stderr{sep}{filt}")))
                elif isinstance(value, float) and math.isnan(value):
                    undefined.append(name)
            hib = hib_all.get(key) if isinstance(hib_all.get(key), dict) else {}
            cfg = configs.get(key) if isinstance(configs.get(key), dict) else {}
            repo = cfg.get("dataset_path")
            split = cfg.get("test_split") or cfg.get("validation_split")
            out[ungrouped(key)] = TaskFacts(
                LM_EVAL, self.library, version, timestamp, path, reported,
                {k: v for k, v in hib.items() if isinstance(v, bool)},
                repo if isinstance(repo, str) and repo else None, split if isinstance(split, str) else None,
                cfg.get("task") if isinstance(cfg.get("task"), str) else None, undefined=undefined)
        return out


LM_EVAL_FORMAT = LmEvalFormat()
