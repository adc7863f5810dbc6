"""The old `scorekit leaderboard` config layout (a list of columns), rewritten in the one layout
(``scorekit leaderboard --config OLD --convert``).

The old layout::

    name: ...                        # optional
    description: ...                 # optional
    harness: lm-eval                 # optional: lm-eval, lighteval or any
    average: Average                 # optional: the plain mean's column, or null for none
    benchmarks:
      - column: GPQA
        description: ...
        results_key: leaderboard_gpqa                    # one task, or
        subtasks: [key, ...] or {key: {num_choices | lower, metric | metrics}}   # several
        metric: "acc_norm,none"                          # or metrics: [...]; a subtask's own wins
        num_choices: 4                                   # or lower: l; a subtask's own wins
        aggregation: normalize_each                      # or mean_raw
        subtask_sizes: {subtask: documents}              # with results_key only

A column's parts are its keys times its metrics. Its score was the mean over the parts of
``max(0, (v - lower) / (1 - lower)) * 100`` (``normalize_each``), or that of the parts' mean value
(``mean_raw``, one lower shared); the Average the plain mean of the columns. In the one layout
(docs/scorecard.md) that is ``scale: 100``, one category, a benchmark per column, a metric per
part with ``good: 1.0`` and its ``num_choices`` (or ``bad: lower``), ``aggregation: mean_value``
for ``mean_raw``; the overall score is the Average. ``average: null`` or another name has no
equivalent (the overall column is always Average): the output says so in a comment.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from scorekit.leaderboards.scorecard_config import LEADERBOARD_OVERALL, Checker, is_old_layout
from scorekit.yaml_config import read_yaml
from scorekit.errors import ScorekitError

CATEGORY = "leaderboard"
_TOP = {"name", "description", "harness", "average", "benchmarks"}
_COLUMN = {"column", "description", "results_key", "subtasks", "metric", "metrics", "num_choices", "lower",
           "aggregation", "subtask_sizes"}
_SUBTASK = {"num_choices", "lower", "metric", "metrics"}


def convert_old_layout(path: str | os.PathLike[str]) -> str:
    """The one-layout YAML text of the old-layout config at ``path``; :class:`ScorekitError`
    naming the file, line and place for anything the old layout did not allow."""
    import yaml

    path = Path(path)
    data = read_yaml(path)
    if not is_old_layout(data):
        raise ScorekitError("not the old leaderboard layout (no top-level 'benchmarks' list): --convert rewrites only "
                            "that; this config is read as it is", path=path)
    conv = _Converter(path)
    conv.old_keys(data, _TOP, "top level")
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            raise conv.fail("expected a string", key, data, key)
    harness = data.get("harness", "any")
    if harness not in ("lm-eval", "lighteval", "any"):
        raise conv.fail(f"expected lm-eval, lighteval or any, got {harness!r}", "harness", data, "harness")
    columns = data["benchmarks"]
    if not isinstance(columns, list) or not columns:
        raise conv.fail("expected a non-empty list of columns", "benchmarks", data, "benchmarks")
    benchmarks: dict[str, Any] = {}
    for i, item in enumerate(columns):
        name, bench = conv.column(item, f"benchmarks[{i}]", data)
        if name in benchmarks:
            raise conv.fail(f"column {name!r} appears twice", f"benchmarks[{i}].column", item, "column")
        benchmarks[name] = bench
    out: dict[str, Any] = {}
    if "name" in data:
        out["name"] = data["name"]
    if "description" in data:
        out["description"] = data["description"]
    out.update(harness=harness, scale=100, categories={CATEGORY: {"benchmarks": benchmarks}})
    head = [f"# {path.name} in the one layout (docs/scorecard.md), written by `scorekit leaderboard --config "
            f"{path.name} --convert`."]
    average = data.get("average", LEADERBOARD_OVERALL)
    if average != LEADERBOARD_OVERALL:
        was = "null (no average column)" if average is None else repr(average)
        head.append(f"# The old 'average: {was}' has no equivalent: the overall score is always the "
                    f"'{LEADERBOARD_OVERALL}' column.")
    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(_OneLine, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True))
    body = yaml.dump(out, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=200, default_flow_style=False)
    return "\n".join(head) + "\n" + body


class _OneLine(dict):
    """A mapping written on one line (a metric, as the shipped configs write them)."""


class _Converter(Checker):
    """The old layout's checks; :meth:`Checker.fail` names the line and place."""

    def old_keys(self, node: Any, allowed: set[str], place: str, parent: Any = None, key: Any = None) -> None:
        if not isinstance(node, dict):
            raise self.fail(f"expected a mapping, got {type(node).__name__}", place, parent, key)
        for k in node:
            if k not in allowed:
                raise self.fail(f"unknown key {k!r} in the old layout (allowed: {', '.join(sorted(allowed))})",
                                f"{place}.{k}" if place != "top level" else str(k), node, k)

    def metrics(self, node: dict, place: str) -> list[str] | None:
        if "metric" in node and "metrics" in node:
            raise self.fail("give 'metric' or 'metrics', not both", place, node, "metrics")
        if "metric" in node:
            if not isinstance(node["metric"], str) or not node["metric"]:
                raise self.fail("expected a metric key (string)", f"{place}.metric", node, "metric")
            return [node["metric"]]
        if "metrics" in node:
            ms = node["metrics"]
            if not isinstance(ms, list) or not ms or not all(isinstance(m, str) and m for m in ms) or len(set(ms)) < len(ms):
                raise self.fail("expected a list of different metric keys (strings)", f"{place}.metrics", node, "metrics")
            return list(ms)
        return None

    def chance(self, node: dict, place: str) -> dict[str, Any] | None:
        """``{"num_choices": n}`` or ``{"bad": lower}`` (the old bound), or None."""
        if "num_choices" in node and "lower" in node:
            raise self.fail("give 'num_choices' or 'lower', not both", place, node, "lower")
        if "num_choices" in node:
            return {"num_choices": self.count(node["num_choices"], f"{place}.num_choices", node, "num_choices", 2)}
        if "lower" in node:
            low = node["lower"]
            if isinstance(low, bool) or not isinstance(low, (int, float)) or not 0 <= low < 1:
                raise self.fail(f"expected a number in [0, 1), got {low!r}", f"{place}.lower", node, "lower")
            return {"bad": float(low)}
        return None

    def column(self, item: Any, place: str, parent: dict) -> tuple[str, dict[str, Any]]:
        self.old_keys(item, _COLUMN, place, parent, "benchmarks")
        name = item.get("column")
        if not isinstance(name, str) or not name.strip():
            raise self.fail("expected a non-empty column name", f"{place}.column", item, "column")
        name = name.strip()
        place = f"{place} ({name})"
        if name == LEADERBOARD_OVERALL:
            raise self.fail(f"a column named {LEADERBOARD_OVERALL!r} would share the overall "
                            "score's column; rename it", place, item, "column")
        aggregation = item.get("aggregation", "normalize_each")
        if aggregation not in ("normalize_each", "mean_raw"):
            raise self.fail(f"expected normalize_each or mean_raw, got {aggregation!r}", f"{place}.aggregation", item, "aggregation")
        metrics, chance = self.metrics(item, place), self.chance(item, place)
        if ("results_key" in item) == ("subtasks" in item):
            raise self.fail("give exactly one of 'results_key' (one task) or 'subtasks' (several)", place, item, "column")
        if "results_key" in item:
            if not isinstance(item["results_key"], str) or not item["results_key"]:
                raise self.fail("expected a non-empty string", f"{place}.results_key", item, "results_key")
            entries: list[tuple[str, dict, str]] = [(item["results_key"], {}, place)]
        else:
            subs = item["subtasks"]
            if isinstance(subs, list) and subs and all(isinstance(k, str) and k for k in subs):
                entries = [(k, {}, f"{place}.subtasks[{j}]") for j, k in enumerate(subs)]
            elif isinstance(subs, dict) and subs:
                entries = [(str(k), v if v is not None else {}, f"{place}.subtasks.{k}") for k, v in subs.items()]
                for k, spec, where in entries:
                    self.old_keys(spec, _SUBTASK, where, subs, k)
            else:
                raise self.fail("expected a non-empty list or mapping of results keys", f"{place}.subtasks", item, "subtasks")
        parts = []  # (results key, metric, chance)
        for key, spec, where in entries:
            part_metrics = self.metrics(spec, where) or metrics
            part_chance = self.chance(spec, where) or chance
            if not part_metrics:
                raise self.fail("no metric: give 'metric' (or 'metrics') here or on the column", where, item, "column")
            if part_chance is None:
                raise self.fail("no chance level: give 'num_choices' or 'lower' here or on the column", where, item, "column")
            parts += [(key, m, part_chance) for m in part_metrics]
        if len({(k, m) for k, m, _ in parts}) < len(parts):
            raise self.fail("the same results key and metric appear twice", place, item, "column")
        if aggregation == "mean_raw" and len({_bad(c) for _, _, c in parts}) > 1:
            raise self.fail("mean_raw needs one chance level shared by every part", f"{place}.aggregation", item, "aggregation")
        bench: dict[str, Any] = {}
        if isinstance(item.get("description"), str):
            bench["description"] = item["description"]
        if aggregation == "mean_raw":
            bench["aggregation"] = "mean_value"
        names = _metric_names([(k, m) for k, m, _ in parts])
        bench["metrics"] = {n: {"key": _OneLine(task=k, metric=m), "good": 1.0, **c} for n, (k, m, c) in zip(names, parts)}
        if "subtask_sizes" in item:
            sizes = item["subtask_sizes"]
            if "results_key" not in item:
                raise self.fail("'subtask_sizes' needs 'results_key' (the group they make up)", f"{place}.subtask_sizes", item, "subtask_sizes")
            if not isinstance(sizes, dict) or not sizes or not all(type(v) is int and v >= 1 for v in sizes.values()):
                raise self.fail("expected a mapping of subtask -> number of documents (>= 1)", f"{place}.subtask_sizes", item, "subtask_sizes")
            for metric in bench["metrics"].values():
                metric["subtask_sizes"] = {str(k): v for k, v in sizes.items()}
        else:
            bench["metrics"] = {n: _OneLine(m) for n, m in bench["metrics"].items()}
        return name, bench


def _bad(chance: dict[str, Any]) -> float:
    return 1.0 / chance["num_choices"] if "num_choices" in chance else chance["bad"]


def _metric_names(parts: list[tuple[str, str]]) -> list[str]:
    """A name per (results key, metric): the metric's name when the column reads one key, the
    key without the keys' common prefix when each key has one metric, else both; ``/`` (not
    allowed in names) becomes ``_``; a name taken twice gets ``_2``, ``_3``."""
    keys = list(dict.fromkeys(k for k, _ in parts))
    per_key = len(parts) // len(keys) if len(parts) % len(keys) == 0 else 0
    prefix = os.path.commonprefix(keys) if len(keys) > 1 else ""
    prefix = prefix[: max(prefix.rfind("_"), prefix.rfind(":"), prefix.rfind("|")) + 1]

    def short_key(k: str) -> str:
        return k[len(prefix):] or k

    def short_metric(m: str) -> str:
        return m.split(",")[0] if m.endswith(",none") else m

    names = []
    for k, m in parts:
        if len(keys) == 1:
            name = short_metric(m)
        elif per_key == 1:
            name = short_key(k)
        else:
            name = f"{short_key(k)}_{short_metric(m)}"
        names.append(name.replace("/", "_"))
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}_{seen[n]}")
    return out
