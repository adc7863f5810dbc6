"""Load and validate a threshold-scoring config (YAML) for ``scorekit scorecard``.

Layout (see docs/scorecard.md)::

    name: ...                               # optional
    normalizer: "package.module:function"   # optional, default linear thresholds
    scale: 100                              # optional, default 1: scores reported on 0..scale
    harness: lm-eval                        # optional, lm-eval | lighteval | any (default)
    categories:
      <category>:
        weight: 1                           # optional, default 1
        benchmarks:
          <benchmark>:
            weight: 1
            aggregation: mean_score         # optional; mean_value: score the mean value once
            metrics:
              <metric>:
                key: {task: leaderboard_gpqa, metric: "acc_norm,none"}   # or a list of them
                good: 0.65
                bad: 0.25                     # or num_choices: 4 (bad = 1/4, chance)
                weight: 1
                subtask_sizes: {...}          # optional: documents per subtask of the key's group
                unit: fraction                # optional
                description: ...              # optional
                normalizer: "pkg.mod:fn"      # optional, overrides the top-level one

The YAML is read with a safe loader; duplicate keys are rejected. Every problem raises
:class:`~scorekit.errors.ScorekitError` naming the file, the line and the key path.

Why a checker of its own, not pydantic (``extra="forbid"``): pydantic would not lose the line
(its error's ``loc`` can be looked up in the :class:`~scorekit.yaml_config.LineMap`),
but it would not save code either. Half of the checks here relate fields or run code: ``bad``
or ``num_choices``, weights that leave nothing scored, ``mean_value`` needing one pair of
thresholds, names without ``/``, normalizers imported only with ``--allow-code``; they would
stay as validators. Its messages ("Extra inputs are not permitted", "Input should be a valid
number") would be rewritten into the ones users get here (``unknown key 'wieght' (allowed:
...)``, the hint that YAML reads ``1e-3`` as text), and its first error is the first field of
the model, not the first problem in the file. And pydantic is not a dependency of scorekit's
core (only of the lighteval and Inspect extras).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import math
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, cast, get_args

from scorekit.yaml_config import LineMap, read_yaml
from scorekit.errors import ScorekitError

Normalizer = Callable[[float, float, float], Any]
ConfigHarness = Literal["any", "lm-eval", "lighteval"]  # whose results a config's keys name


@dataclass(frozen=True)
class ConfigMetric:
    """One scored metric: where to read it, its thresholds and weight."""

    category: str
    benchmark: str
    name: str
    keys: tuple[tuple[str, str], ...]  # (results task key, metric key) alternatives, in order
    good: float
    bad: float
    weight: float = 1.0
    unit: str | None = None
    description: str | None = None
    normalizer: Normalizer | None = None
    normalizer_name: str | None = None
    # documents per subtask of the group a key names, for deriving the group's value when a
    # results file holds none and has no n-samples (results_files.group_value)
    subtask_sizes: tuple[tuple[str, int], ...] = ()

    @property
    def path(self) -> str:
        return f"{self.category}/{self.benchmark}/{self.name}"


@dataclass(frozen=True)
class ConfigBenchmark:
    category: str
    name: str
    weight: float
    metrics: tuple[ConfigMetric, ...]
    description: str | None = None
    aggregation: str = "mean_score"  # or "mean_value": the weighted mean value, scored once

    @property
    def path(self) -> str:
        return f"{self.category}/{self.name}"


@dataclass(frozen=True)
class ConfigCategory:
    name: str
    weight: float
    benchmarks: tuple[ConfigBenchmark, ...]
    description: str | None = None


@dataclass(frozen=True)
class ScorecardConfig:
    path: str
    categories: tuple[ConfigCategory, ...]
    name: str | None = None
    description: str | None = None
    scale: float = 1.0  # scores, stderrs and intervals are reported on 0..scale
    harness: ConfigHarness = "any"  # the harness whose results the keys name

    @property
    def benchmarks(self) -> tuple[ConfigBenchmark, ...]:
        return tuple(b for c in self.categories for b in c.benchmarks)

    @property
    def metrics(self) -> tuple[ConfigMetric, ...]:
        return tuple(m for b in self.benchmarks for m in b.metrics)

    @property
    def columns(self) -> list[str]:
        """The leaderboard's benchmark columns: each benchmark's name (``category/benchmark``
        where two categories share a name)."""
        names = [b.name for b in self.benchmarks]
        return [b.name if names.count(b.name) == 1 else b.path for b in self.benchmarks]


AGGREGATIONS = ("mean_score", "mean_value")
# The columns of the overall score: a benchmark or category of that name would share it, and
# its score would be written over (leaderboard: a column per benchmark; scorecard: per category).
LEADERBOARD_OVERALL = "Average"
SCORECARD_OVERALL = "Overall"
HARNESSES: tuple[ConfigHarness, ...] = get_args(ConfigHarness)
OLD_LEADERBOARD_LAYOUT = (
    "this is the old `scorekit leaderboard` layout (a list of columns); leaderboard and scorecard now read one "
    "layout: `scorekit leaderboard --config {path} --convert > new.yaml` writes it, or write each column as "
    "categories.<category>.benchmarks.<column>.metrics.<metric> with key, good: 1.0 and num_choices (or bad), and "
    "add scale: 100 (docs/scorecard.md, 'Leaderboard columns')"
)


# --- validation --------------------------------------------------------------------------


class Checker:
    """Checks of a config's values; each failure is a :class:`ScorekitError` naming the file,
    the line (of ``key`` in ``parent``, else of ``parent``) and the key path."""

    def __init__(self, path: Path):
        self.path = path

    def fail(self, msg: str, keypath: str, parent: Any = None, key: Any = None) -> ScorekitError:
        line = None
        if isinstance(parent, LineMap):
            line = parent.key_lines.get(key, parent.line) if key is not None else parent.line
        where = (f"line {line}, " if line else "") + (keypath or "top level")
        return ScorekitError(msg, path=self.path, where=where)

    def mapping(self, value: Any, keypath: str, parent: Any, key: Any, allowed: set[str], required: set[str]) -> dict:
        if not isinstance(value, dict):
            raise self.fail(f"expected a mapping, got {_type_name(value)}", keypath, parent, key)
        for k in value:
            if not isinstance(k, str):
                raise self.fail(f"key {k!r} must be a string", keypath, value, k)
            if k not in allowed:
                raise self.fail(f"unknown key {k!r} (allowed: {', '.join(sorted(allowed))})", _join(keypath, k), value, k)
        for k in sorted(required):
            if k not in value:
                raise self.fail(f"missing required key {k!r}", keypath, parent, key)
        return value

    def names(self, value: Any, keypath: str, parent: Any, key: Any, what: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(f"expected a mapping of {what} names, got {_type_name(value)}", keypath, parent, key)
        if not value:
            raise self.fail(f"no {what} defined", keypath, parent, key)
        for k in value:
            if not isinstance(k, str) or not k.strip():
                raise self.fail(f"{what} name {k!r} must be a non-empty string", keypath, value, k)
            if "/" in k:
                raise self.fail(f"{what} name {k!r} must not contain '/'", _join(keypath, k), value, k)
        return value

    def number(self, value: Any, keypath: str, parent: Any, key: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            hint = ""
            if isinstance(value, str):
                try:
                    float(value)
                    hint = " (YAML reads this as text; write it with a decimal point, e.g. 1.0e-3)"
                except ValueError:
                    pass
            raise self.fail(f"expected a number, got {_type_name(value)} {value!r}{hint}", keypath, parent, key)
        if not math.isfinite(value):
            raise self.fail(f"expected a finite number, got {value!r}", keypath, parent, key)
        return float(value)

    def choice(self, node: dict, key: str, keypath: str, allowed: tuple[str, ...]) -> str:
        value = node.get(key, allowed[0])
        if value not in allowed:
            raise self.fail(f"expected one of {', '.join(allowed)}, got {value!r}", _join(keypath, key), node, key)
        return value

    def count(self, value: Any, keypath: str, parent: Any, key: Any, least: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise self.fail(f"expected an integer >= {least}, got {value!r}", keypath, parent, key)
        return value

    def weight(self, node: dict, keypath: str) -> float:
        if "weight" not in node:
            return 1.0
        w = self.number(node["weight"], _join(keypath, "weight"), node, "weight")
        if w < 0:
            raise self.fail(f"weight must be >= 0, got {w!r}", _join(keypath, "weight"), node, "weight")
        return w

    def text(self, node: dict, key: str, keypath: str) -> str | None:
        if key not in node or node[key] is None:
            return None
        if not isinstance(node[key], str):
            raise self.fail(f"expected a string, got {_type_name(node[key])}", _join(keypath, key), node, key)
        return node[key]

    def keys(self, value: Any, keypath: str, parent: Any) -> tuple[tuple[str, str], ...]:
        items = value if isinstance(value, list) else [value]
        if not items:
            raise self.fail("key list is empty", keypath, parent, "key")
        out = []
        for i, item in enumerate(items):
            kp = f"{keypath}[{i}]" if isinstance(value, list) else keypath
            item = self.mapping(item, kp, parent, "key", {"task", "metric"}, {"task", "metric"})
            for part in ("task", "metric"):
                if not isinstance(item[part], str) or not item[part]:
                    raise self.fail(f"expected a non-empty string, got {item[part]!r}", _join(kp, part), item, part)
            out.append((item["task"], item["metric"]))
        return tuple(out)


def is_old_layout(data: Any) -> bool:
    """A top-level ``benchmarks`` without ``categories``: the old leaderboard layout
    (:mod:`scorekit.leaderboards.old_layout` converts it)."""
    return isinstance(data, dict) and "benchmarks" in data and "categories" not in data


def load_scorecard_config(path: str | Path, *, allow_code: bool = False) -> ScorecardConfig:
    """Read and validate a scoring config; import its normalizers.

    A normalizer is imported from the installed modules only; a module that sits beside the
    config (``<config folder>/<module>.py``) is imported only with ``allow_code=True``
    (``scorekit scorecard --allow-code``), so reading a config never runs code unasked.

    Rejects: unknown keys, missing ``categories``/``benchmarks``/``metrics``/``key``/
    ``good``/``bad``, non-numeric or non-finite thresholds and weights, negative weights,
    and a positive-weight node whose children all have weight 0 (nothing could be scored).
    """
    path = Path(path)
    data = read_yaml(path)
    ck = Checker(path)
    if data is None:
        raise ScorekitError("config is empty", path=path)
    if is_old_layout(data):
        raise ck.fail(OLD_LEADERBOARD_LAYOUT.format(path=shlex.quote(str(path))), "benchmarks", data, "benchmarks")
    top = ck.mapping(data, "", None, None, {"categories", "normalizer", "name", "description", "scale", "harness"},
                     {"categories"})
    default_norm = _normalizer_from(ck, top, "", path, allow_code)
    scale = ck.number(top.get("scale", 1.0), "scale", top, "scale")
    if scale <= 0:
        raise ck.fail(f"expected a number > 0, got {scale!r}", "scale", top, "scale")
    cats_raw = ck.names(top["categories"], "categories", top, "categories", "category")
    categories = []
    for cname, craw in cats_raw.items():
        ckp = f"categories.{cname}"
        craw = ck.mapping(craw, ckp, cats_raw, cname, {"weight", "description", "benchmarks"}, {"benchmarks"})
        benches_raw = ck.names(craw["benchmarks"], f"{ckp}.benchmarks", craw, "benchmarks", "benchmark")
        benchmarks = []
        if cname == SCORECARD_OVERALL:
            raise ck.fail(f"a category named {SCORECARD_OVERALL!r} would share the overall score's column of `scorekit "
                          "scorecard`; rename the category", ckp, cats_raw, cname)
        for bname, braw in benches_raw.items():
            bkp = f"{ckp}.benchmarks.{bname}"
            if bname == LEADERBOARD_OVERALL:
                raise ck.fail(f"a benchmark named {LEADERBOARD_OVERALL!r} would share the overall score's column of "
                              "`scorekit leaderboard`; rename the benchmark", bkp, benches_raw, bname)
            braw = ck.mapping(braw, bkp, benches_raw, bname, {"weight", "description", "metrics", "aggregation"}, {"metrics"})
            metrics_raw = ck.names(braw["metrics"], f"{bkp}.metrics", braw, "metrics", "metric")
            metrics = []
            for mname, mraw in metrics_raw.items():
                mkp = f"{bkp}.metrics.{mname}"
                mraw = ck.mapping(
                    mraw, mkp, metrics_raw, mname,
                    {"key", "good", "bad", "num_choices", "weight", "unit", "description", "normalizer", "subtask_sizes"},
                    {"key", "good"},
                )
                norm = _normalizer_from(ck, mraw, mkp, path, allow_code) or default_norm
                if ("bad" in mraw) == ("num_choices" in mraw):
                    raise ck.fail("give 'bad' or 'num_choices' (bad = 1/num_choices), one of them", mkp, metrics_raw, mname)
                if "bad" in mraw:
                    bad = ck.number(mraw["bad"], _join(mkp, "bad"), mraw, "bad")
                else:
                    bad = 1.0 / ck.count(mraw["num_choices"], _join(mkp, "num_choices"), mraw, "num_choices", 2)
                sizes = mraw.get("subtask_sizes", {})
                if not isinstance(sizes, dict) or "subtask_sizes" in mraw and not sizes:
                    raise ck.fail("expected a mapping of subtask -> number of documents", _join(mkp, "subtask_sizes"), mraw, "subtask_sizes")
                metrics.append(
                    ConfigMetric(
                        category=cname, benchmark=bname, name=mname, keys=ck.keys(mraw["key"], _join(mkp, "key"), mraw),
                        good=ck.number(mraw["good"], _join(mkp, "good"), mraw, "good"), bad=bad,
                        weight=ck.weight(mraw, mkp), unit=ck.text(mraw, "unit", mkp),
                        description=ck.text(mraw, "description", mkp), normalizer=norm[1] if norm else None,
                        normalizer_name=norm[0] if norm else None,
                        subtask_sizes=tuple((str(k), ck.count(v, f"{mkp}.subtask_sizes.{k}", sizes, k, 1)) for k, v in sizes.items()),
                    )
                )
            bweight = ck.weight(braw, bkp)
            if bweight > 0 and not any(m.weight > 0 for m in metrics):
                raise ck.fail("every metric weight is 0; set the benchmark's weight to 0 to leave it out", bkp, benches_raw, bname)
            aggregation = ck.choice(braw, "aggregation", bkp, AGGREGATIONS)
            if aggregation == "mean_value" and (len({(m.good, m.bad) for m in metrics}) > 1 or any(m.normalizer for m in metrics)):
                raise ck.fail("aggregation mean_value needs one good and one bad shared by the metrics, and no normalizer",
                              _join(bkp, "aggregation"), braw, "aggregation")
            benchmarks.append(ConfigBenchmark(cname, bname, bweight, tuple(metrics), ck.text(braw, "description", bkp), aggregation))
        cweight = ck.weight(craw, ckp)
        if cweight > 0 and not any(b.weight > 0 for b in benchmarks):
            raise ck.fail("every benchmark weight is 0; set the category's weight to 0 to leave it out", ckp, cats_raw, cname)
        categories.append(ConfigCategory(cname, cweight, tuple(benchmarks), ck.text(craw, "description", ckp)))
    if not any(c.weight > 0 for c in categories):
        raise ck.fail("every category weight is 0: nothing would be scored", "categories", top, "categories")
    return ScorecardConfig(str(path), tuple(categories), ck.text(top, "name", ""), ck.text(top, "description", ""), scale,
                         cast(ConfigHarness, ck.choice(top, "harness", "", HARNESSES)))


def _normalizer_from(ck: Checker, node: dict, keypath: str, path: Path, allow_code: bool) -> tuple[str, Normalizer] | None:
    if node.get("normalizer") is None:
        return None
    spec = node["normalizer"]
    kp = _join(keypath, "normalizer")
    if not isinstance(spec, str):
        raise ck.fail(f"expected 'package.module:function', got {_type_name(spec)}", kp, node, "normalizer")
    try:
        return spec, import_normalizer(spec, search_dir=path.parent, allow_code=allow_code)
    except ScorekitError as exc:
        raise ck.fail(str(exc), kp, node, "normalizer") from None


def import_normalizer(spec: str, search_dir: str | Path | None = None, *, allow_code: bool = True) -> Normalizer:
    """Import ``"package.module:function"`` (the attribute may be dotted, ``mod:Cls.fn``).

    The function is called as ``fn(value, good, bad)`` with Python floats and must return a
    number in [0, 1], or None/NaN for "no score". The module must be installed (importable from
    ``sys.path``, not from the current folder). A module in ``search_dir`` (the config's folder)
    is imported only when ``allow_code`` is true; otherwise finding one there raises
    :class:`ScorekitError` naming ``--allow-code``. A module that fails while importing, even
    with ``SystemExit``, raises :class:`ScorekitError`. What the module prints while importing
    is kept off standard output: dropped when the import or the lookup fails (the error is the
    one line), written to standard error otherwise.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr or not all(p.isidentifier() for p in module_name.split(".") + attr.split(".")):
        raise ScorekitError(f"normalizer {spec!r} must look like 'package.module:function'")
    top = module_name.split(".")[0]
    local = _local_module(top, search_dir)
    installed = top in sys.modules or _installed(top, search_dir)
    if not installed and local is not None and not allow_code:
        raise ScorekitError(
            f"normalizer module {top!r} is {local}, beside the config: importing it runs that code, "
            "so scorekit does it only with --allow-code (or install the module)"
        )
    added = None
    if allow_code and search_dir is not None and str(search_dir) not in sys.path:
        added = str(search_dir)
        sys.path.append(added)  # appended: never shadows installed modules
    saved_path = sys.path[:]
    if not allow_code:  # the current folder ('' with python -m) is not an installed module
        sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd())]
    printed = io.StringIO()  # what the module prints while importing (``this`` prints a poem)
    try:
        with contextlib.redirect_stdout(printed):
            module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise ScorekitError(f"cannot import normalizer module {module_name!r}: {exc}") from None
    except (Exception, SystemExit) as exc:  # user code failed while importing
        raise ScorekitError(f"importing normalizer module {module_name!r} failed: {type(exc).__name__}: {exc}") from None
    finally:
        if not allow_code:
            sys.path[:] = saved_path
        if added is not None and added in sys.path:
            sys.path.remove(added)
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ScorekitError(f"normalizer module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ScorekitError(f"normalizer {spec!r} is not callable")
    if printed.getvalue():  # kept off standard output, which holds only the command's result
        sys.stderr.write(printed.getvalue())
    return obj


def _local_module(name: str, folder: str | Path | None) -> str | None:
    """``name``'s file or package in ``folder`` (shown in messages), or None."""
    if folder is None:
        return None
    for candidate in (Path(folder) / f"{name}.py", Path(folder) / name / "__init__.py"):
        if candidate.is_file():
            return str(candidate.parent if candidate.name == "__init__.py" else candidate)
    return None


def _installed(name: str, folder: str | Path | None) -> bool:
    """True when top-level module ``name`` is found on ``sys.path`` outside ``folder`` and the
    current folder (no import is run: only the finders are asked)."""
    from importlib.machinery import PathFinder

    if name in sys.builtin_module_names:
        return True
    skip = {"", ".", os.getcwd(), *([str(Path(folder).resolve()), str(folder)] if folder is not None else [])}
    found = PathFinder.find_spec(name, [p for p in sys.path if p not in skip and os.path.realpath(p or ".") not in skip])
    return found is not None


def _join(keypath: str, key: Any) -> str:
    return f"{keypath}.{key}" if keypath else str(key)


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(type(value), type(value).__name__)


ScoringConfig = ScorecardConfig  # the old names, kept for one release
load_scoring_config = load_scorecard_config
