"""lighteval's files (0.11-0.13; results of 0.8-0.13): results ``results_<time>.json`` and
details ``details_<task>|<n>_<time>.parquet``, read as the format :data:`LIGHTEVAL_FORMAT`.

- results: a JSON object with ``config_general`` and ``results``. Task keys are kept as
  written, ``"task|fewshots"`` (older versions: ``"suite|task|fewshots"``); the ``"all"`` entry
  (lighteval's mean of every metric, stderr included) is dropped;
- details: one row per document; metrics from the ``metric`` column, task key ``<task>|<n>``
  as in lighteval's results; question id the document's ``id`` (the row number when ids are
  missing or repeated, with a note) and the SHA-256 of the ``query`` text its fingerprint. The
  model is :func:`~scorekit.harness_outputs.identity.details_model`;
- task facts (export): ``results["<suite>|task|n"]`` values and ``<metric>_stderr``,
  ``config_tasks[key].metrics[*].higher_is_better`` and ``hf_repo``; lighteval 0.13 writes no
  version (``lighteval_sha`` is ``"?"``), so the version is ``unknown``.
"""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path
from typing import Any

from scorekit.errors import ScorekitError, one_line
from scorekit.files import finite_number
from scorekit.harness_outputs.formats import Format, QuestionFile, RunFiles
from scorekit.harness_outputs.identity import details_model, model_identity
from scorekit.harness_outputs.keys import split_task_key
from scorekit.harness_outputs.kinds import DETAILS, LIGHTEVAL, TIME_PATTERN, file_kind, results_harness
from scorekit.harness_outputs.runs import run_time
from scorekit.harness_outputs.values import MetricValues, QuestionTable, ResultsFile, TaskFacts, results_mapping

__all__ = ["LightevalFormat", "LIGHTEVAL_FORMAT", "DETAILS_NAME", "parse_details_name", "read_details_table"]

DETAILS_NAME = re.compile(rf"^details_(?P<task>.+)\|(?P<fewshot>\d+)_(?P<time>{TIME_PATTERN})\.parquet$")


def parse_details_name(name: str) -> tuple[str, int, str] | None:
    """(task, fewshots, time) of a ``details_<task>|<n>_<time>.parquet`` file name."""
    m = DETAILS_NAME.match(name)
    return None if m is None else (m["task"], int(m["fewshot"]), m["time"])


# What each column of a details file holds in lighteval 0.11-0.13 (asdict of its Detail, written by
# datasets): a struct each. 0.8-0.10 wrote flat columns (example, metrics, predictions, specifics).
_DETAILS_COLUMNS = {"doc": "document (Doc)", "metric": "metric values", "model_response": "model response (ModelResponse)"}


def read_details_table(path: Path, columns: list[str]) -> Any:
    """``columns`` (of ``doc``, ``metric``, ``model_response``) of a details parquet file, checked
    against what lighteval 0.11-0.13 write: each column a struct, ``doc.specific`` a struct or
    null (``Doc.specific: dict | None``). No version writes another shape, so anything else (a
    damaged file, 0.8-0.10's flat layout, a ``doc`` stored as JSON text, ``specific`` a list) is a
    one-line :class:`ScorekitError` naming the file and the column, never rows read as empty."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except Exception as exc:  # pyarrow raises several types for damaged files; its messages span lines
        raise ScorekitError(f"cannot read lighteval details parquet: {one_line(str(exc).strip())}", path=path) from None
    for column in columns:
        if column not in schema.names:
            flat = "metrics" in schema.names and "doc" not in schema.names
            raise ScorekitError(f"no column {column!r}" + (
                ": this is lighteval 0.8-0.10's details layout (example, metrics, predictions); scorekit reads the "
                "details of lighteval 0.11-0.13 (doc, metric, model_response)" if flat else ""), path=path)
        kind = schema.field(column).type
        if not pa.types.is_struct(kind):
            raise ScorekitError(f"holds {_arrow_kind(kind)}, expected lighteval's {_DETAILS_COLUMNS[column]} as a "
                                "struct (what lighteval 0.11-0.13 write)", path=path, where=f"column {column!r}")
        if column == "doc" and kind.get_field_index("specific") >= 0:
            specific = kind.field(kind.get_field_index("specific")).type
            if not (pa.types.is_struct(specific) or pa.types.is_null(specific)):
                raise ScorekitError(f"field 'specific' holds {_arrow_kind(specific)}, expected a mapping or null "
                                    "(lighteval's Doc.specific)", path=path, where="column 'doc'")
    try:
        return pq.read_table(path, columns=columns)
    except Exception as exc:
        raise ScorekitError(f"cannot read lighteval details parquet: {one_line(str(exc).strip())}", path=path) from None


def _arrow_kind(kind: Any) -> str:
    """A parquet column type in words: ``text (string)``, ``a list``, ``numbers (int64)``."""
    import pyarrow as pa

    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return f"text ({kind})"
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return "a list"
    if pa.types.is_null(kind):
        return "only nulls"
    return f"{kind}"


class LightevalFormat(Format):
    name = LIGHTEVAL
    library = "lighteval"

    def is_results(self, data: Any) -> bool:
        return results_harness(data) == LIGHTEVAL

    def read_results(self, path: str, data: Any) -> ResultsFile:
        """A lighteval results file (``data`` its parsed JSON) as a :class:`ResultsFile`."""
        results = results_mapping(data, path, nonempty=True)
        ts, ts_source = run_time(path, data)
        model = model_identity(data, path, LIGHTEVAL)
        tasks = {k: v for k, v in results.items() if k != "all"}
        n_shot = {k: n for k in tasks if (n := split_task_key(k)[2]) is not None}
        if not tasks:
            raise ScorekitError("results file holds no task results (only \"all\")", path=path, where='"results"')
        return ResultsFile(path, LIGHTEVAL, model, ts, ts_source, tasks, n_shot)

    def holds_questions(self, path: Path) -> bool:
        return file_kind(path) == DETAILS

    def question_file(self, path: Path, run: RunFiles) -> QuestionFile | None:
        named = parse_details_name(path.name)
        if named is None:
            return None
        task, fewshot, _ = named
        return QuestionFile(path, self, task, f"{task}|{fewshot}", details_model(path), run_time(path)[0])

    def read_questions(self, file: QuestionFile, notes: list[str]) -> dict[str, MetricValues]:
        table = QuestionTable()
        rows = read_details_table(file.path, ["doc", "metric"]).to_pylist()
        ids = [str((r.get("doc") or {}).get("id") or "") for r in rows]
        if any(not q for q in ids) or len(set(ids)) != len(ids):
            notes.append(f"{file.key}: documents without unique ids; questions paired by row number")
            ids = [str(i) for i in range(len(rows))]
        for qid, r in zip(ids, rows):
            query = (r.get("doc") or {}).get("query")
            if isinstance(query, str):
                table.fingerprint[qid] = hashlib.sha256(query.encode()).hexdigest()
            for key, raw in (r.get("metric") or {}).items():
                table.add(key, qid, raw)
        notes.extend(table.notes(file.key, ""))
        return table.metrics()

    def task_facts(self, path: str, data: Any, timestamp: float) -> dict[str, TaskFacts]:
        configs = data.get("config_tasks") if isinstance(data.get("config_tasks"), dict) else {}
        out = {}
        for key, metrics in data["results"].items():
            if key == "all" or not isinstance(metrics, dict):
                continue
            reported = {name: (v, finite_number(metrics.get(f"{name}_stderr"))) for name, value in metrics.items()
                        if not name.endswith("_stderr") and (v := finite_number(value)) is not None}
            undefined = [name for name, value in metrics.items()
                         if not name.endswith("_stderr") and isinstance(value, float) and math.isnan(value)]
            cfg = configs.get(key) if isinstance(configs.get(key), dict) else {}
            hib = {m["metric_name"]: m["higher_is_better"] for m in cfg.get("metrics") or []
                   if isinstance(m, dict) and isinstance(m.get("metric_name"), str)
                   and isinstance(m.get("higher_is_better"), bool)}
            repo = cfg.get("hf_repo")
            splits = cfg.get("evaluation_splits")
            out[key] = TaskFacts(LIGHTEVAL, self.library, "unknown", timestamp, path, reported, hib,
                                 repo if isinstance(repo, str) and repo and not repo.startswith("/") else None,
                                 splits[0] if isinstance(splits, list) and splits and isinstance(splits[0], str) else None,
                                 cfg.get("name") if isinstance(cfg.get("name"), str) else None, undefined=undefined)
        return out


LIGHTEVAL_FORMAT = LightevalFormat()
