"""Leaderboard columns for merged results, from a :class:`NormalizationConfig`.

For each model and each benchmark column the config's parts are looked up in the model's
merged tasks (:mod:`scorekit.aggregate.results_files`), checked to be fractions in [0, 1]
(else :class:`ScorekitError` naming the file and ``results["task"]["metric"]``), and combined
with the vectorized form of :meth:`Benchmark.combine` (one numpy pass over all models). A column with any part absent is *missing*: its score and raw
value are None, it is listed in :attr:`LeaderboardRow.missing`, and the average column is None
(never an average over fewer columns).

Task lookup: the config's results key is matched exactly; failing that, against task keys
with their lighteval ``|fewshots`` suffix (and ``suite|`` prefix) removed. When several keys
match (``ifeval|0`` and ``ifeval|5`` from different runs) the newest one is used and a note
says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from typing import Callable, Iterable

import numpy as np

from scorekit.aggregate.normalize import NormalizationConfig, check_fraction, load_config, normalize_array
from scorekit.aggregate.results_files import ABSENT, LIGHTEVAL, ModelResults, ResultsFile, task_base

DEFAULT_CONFIG = "open_llm_leaderboard_v2.yaml"
DEFAULT_LIGHTEVAL_CONFIG = "open_llm_leaderboard_v2_lighteval.yaml"


@dataclass
class LeaderboardRow:
    """One model's columns. ``scores``/``raw`` map every column to a float or None (missing)."""

    model: str
    scores: dict[str, float | None]
    raw: dict[str, float | None]
    missing: list[str]
    sources: list[str]
    config: str
    average_column: str | None = None
    missing_detail: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The documented JSON shape: model, scores, raw, missing, sources."""
        return {
            "model": self.model,
            "scores": dict(self.scores),
            "raw": dict(self.raw),
            "missing": list(self.missing),
            "sources": list(self.sources),
        }


class _TaskIndex:
    """Exact and few-shot-insensitive lookup of a model's task keys."""

    def __init__(self, model: ModelResults):
        self.model = model
        self._by_base: dict[str, list[str]] | None = None

    def find(self, key: str) -> tuple[str, ResultsFile, list[str]] | None:
        """``(actual key, file it comes from, other matching keys)`` or None."""
        files = self.model.task_files
        hit = files.get(key)
        if hit is not None:
            return key, hit, []
        if self._by_base is None:  # built only when an exact lookup misses (lighteval keys)
            self._by_base = {}
            for k in files:
                base = task_base(k)
                if base != k:
                    self._by_base.setdefault(base, []).append(k)
        keys = self._by_base.get(key)
        if not keys:
            return None
        best = max(keys, key=lambda k: (files[k].timestamp, files[k].path, k))
        return best, files[best], [k for k in keys if k != best]


def _exact_values(model: ModelResults, config: NormalizationConfig) -> list | None:
    """The raw values of every config part under its exact results key, unchecked; None when
    one is absent. A model read from one file loaded with ``pick`` has them side by side in
    :attr:`ResultsFile.picked` (no lookups in its task dicts, scattered over memory by now);
    so does a model whose newest file is lean (it holds every picked key, so all come from it)."""
    newest = model.files[-1]
    if len(model.files) == 1 or newest.lean:
        if newest.picked is not None:
            positions = _positions(config, newest.picked_pairs)
            if positions is not None:
                values = positions(newest.picked)
                return values if newest.lean or ABSENT not in values else None  # lean: never ABSENT
    files = model.task_files
    values = []
    for _, key, metric in _flat_parts(config):
        rf = files.get(key)
        if rf is None:
            return None
        v = _lean_value(rf, key, metric) if rf.lean else rf.tasks[key].get(metric, _ABSENT)
        if v is _ABSENT:
            return None
        values.append(v)
    return values


def _lean_value(rf: ResultsFile, key: str, metric: str):
    """A value of a lean file (see :func:`load_results`): always among its picked ones, as
    lean files hold every picked pair and are only read with the config they were picked for."""
    return rf.picked[_pair_index(rf.picked_pairs)[(key, metric)]]  # type: ignore[index]


_PAIR_INDEX_CACHE: dict[int, tuple[tuple, dict[tuple[str, str], int]]] = {}


def _pair_index(pairs: tuple[tuple[str, str], ...]) -> dict[tuple[str, str], int]:
    cached = _PAIR_INDEX_CACHE.get(id(pairs))
    if cached is None or cached[0] is not pairs:
        if len(_PAIR_INDEX_CACHE) >= 64:  # one entry per load: keep a long-lived process bounded
            _PAIR_INDEX_CACHE.clear()
        cached = _PAIR_INDEX_CACHE[id(pairs)] = (pairs, {pair: i for i, pair in reversed(list(enumerate(pairs)))})
    return cached[1]


def _gather(model: ModelResults, config: NormalizationConfig, out: np.ndarray) -> tuple[dict[str, list[str]], list[str]]:
    """Fill ``out`` (one slot per config part) with the model's raw values, NaN where absent.

    Returns ``(absent parts by column, notes)``. Values used are checked to be fractions.
    """
    files = model.task_files
    parts = _flat_parts(config)
    # Fast path (every part present under its exact key, every value a float in [0, 1]): no
    # per-value checks. Anything else takes the loop below, which decides.
    values = _exact_values(model, config)
    if (
        values is not None
        and set(map(type, values)) == _FLOAT
        and all(map(_ZERO.__le__, values))  # NaN fails both comparisons
        and all(map(_ONE.__ge__, values))
    ):
        out[:] = values
        return {}, []
    index: _TaskIndex | None = None
    absent: dict[str, list[str]] = {}
    notes: list[str] = []
    for i, (column, key, metric) in enumerate(parts):
        rf = files.get(key)
        actual = key
        if rf is None:
            if index is None:
                index = _TaskIndex(model)
            found = index.find(key)
            if found is None:
                lst = absent.setdefault(column, [])
                if key not in lst:
                    lst.append(key)
                out[i] = np.nan
                continue
            actual, rf, others = found
            if others:
                notes.append(
                    f"{key}: several runs ({', '.join(sorted([actual] + others))}); used the newest, {actual} from {rf.path}"
                )
        v = _lean_value(rf, actual, metric) if rf.lean else rf.tasks[actual].get(metric, _ABSENT)
        if v is _ABSENT:
            absent.setdefault(column, []).append(f"{actual} -> {metric}")
            out[i] = np.nan
            continue
        if type(v) is not float or not 0.0 <= v <= 1.0:  # fast path; NaN fails the comparison
            v = check_fraction(v, path=rf.path, where=f'results["{actual}"]["{metric}"]')
        out[i] = v
    return absent, list(dict.fromkeys(notes))


_ABSENT = object()
_FLOAT = {float}
_ZERO, _ONE = 0.0, 1.0
_FLAT_CACHE: dict[int, tuple[NormalizationConfig, list[tuple[str, str, str]]]] = {}


def _flat_parts(config: NormalizationConfig) -> list[tuple[str, str, str]]:
    cached = _FLAT_CACHE.get(id(config))
    if cached is None or cached[0] is not config:
        flat = [(b.column, p.results_key, p.metric) for b in config.benchmarks for p in b.parts]
        cached = _FLAT_CACHE[id(config)] = (config, flat)
    return cached[1]


_POSITIONS_CACHE: dict[tuple[int, int], tuple[NormalizationConfig, tuple, Callable[[tuple], list] | None]] = {}


def _positions(config: NormalizationConfig, pairs: tuple[tuple[str, str], ...]) -> Callable[[tuple], list] | None:
    """``picked -> [value of each of the config's (results key, metric) parts]`` for values
    picked for ``pairs``; None if a part is not among them."""
    cached = _POSITIONS_CACHE.get((id(config), id(pairs)))
    if cached is None or cached[0] is not config or cached[1] is not pairs:
        if len(_POSITIONS_CACHE) >= 64:  # one entry per load and config: keep it bounded
            _POSITIONS_CACHE.clear()
        where = {pair: i for i, pair in reversed(list(enumerate(pairs)))}
        found = [where.get((key, metric)) for _, key, metric in _flat_parts(config)]
        cached = (config, pairs, None if None in found else _list_getter(found))
        _POSITIONS_CACHE[(id(config), id(pairs))] = cached
    return cached[2]


def _list_getter(positions: list[int]) -> Callable[[tuple], list]:
    if len(positions) > 1:
        get = itemgetter(*positions)
        return lambda picked: list(get(picked))
    return lambda picked: [picked[i] for i in positions]


def _score_matrix(config: NormalizationConfig, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(scores, raw)``, each (models, columns), from raw part values (models, parts).

    Vectorized form of :meth:`Benchmark.combine`; NaN (absent) propagates to the column.
    """
    lowers = np.array([p.lower for b in config.benchmarks for p in b.parts])
    normalized = normalize_array(values, lowers)
    scores = np.empty((values.shape[0], len(config.benchmarks)))
    raw = np.empty_like(scores)
    start = 0
    for j, bench in enumerate(config.benchmarks):
        stop = start + len(bench.parts)
        raw[:, j] = values[:, start:stop].mean(axis=1)
        if bench.aggregation == "mean_raw":
            scores[:, j] = normalize_array(raw[:, j], bench.parts[0].lower)
        else:
            scores[:, j] = normalized[:, start:stop].mean(axis=1)
        start = stop
    return scores, raw


def _gather_all(models: list[ModelResults], config: NormalizationConfig, values: np.ndarray) -> list[tuple[dict, list]]:
    """:func:`_gather` for every model, with the common case checked in one numpy pass: the
    models whose parts are all present are checked together (all floats, all in [0, 1]); if
    that fails, or for the other models, :func:`_gather` runs model by model, in order, so
    errors and notes are exactly those of a model-by-model run."""
    exact = [_exact_values(m, config) for m in models]
    rows = [i for i, v in enumerate(exact) if v is not None]
    done: set[int] = set()
    if rows:
        block = [exact[i] for i in rows]
        if set(map(type, chain.from_iterable(block))) == _FLOAT:
            arr = np.array(block, dtype=np.float64).reshape(len(rows), -1)
            if ((arr >= 0.0) & (arr <= 1.0)).all():  # NaN fails both comparisons
                values[rows] = arr
                done = set(rows)
    return [({}, []) if i in done else _gather(m, config, values[i]) for i, m in enumerate(models)]


def _rows_for(models: list[ModelResults], config: NormalizationConfig) -> list[LeaderboardRow]:
    n_parts = len(_flat_parts(config))
    values = np.empty((len(models), n_parts))
    gathered = _gather_all(models, config, values)
    scores, raw = _score_matrix(config, values)
    columns = config.columns
    average = scores.mean(axis=1) if config.average is not None else None
    score_lists, raw_lists = scores.tolist(), raw.tolist()
    averages = average.tolist() if average is not None else None  # the same doubles as float(average[i])
    average_column, name = config.average, config.name
    rows = []
    append = rows.append
    for i, (model, (absent, notes)) in enumerate(zip(models, gathered)):
        missing = [c for c in columns if c in absent] if absent else []
        if missing:
            s = {c: (None if c in absent else v) for c, v in zip(columns, score_lists[i])}
            r = {c: (None if c in absent else v) for c, v in zip(columns, raw_lists[i])}
        else:
            s = dict(zip(columns, score_lists[i]))
            r = dict(zip(columns, raw_lists[i]))
        if averages is not None:
            s[average_column] = None if missing else averages[i]  # never a mean of fewer columns
        append(
            LeaderboardRow(
                model.model, s, r, missing, list(model.sources), name, average_column,
                {c: absent[c] for c in missing} if missing else {}, notes,
            )
        )
    return rows


def picks(configs: Iterable[NormalizationConfig]) -> list[tuple[str, str]]:
    """The (results key, metric) pairs the ``configs`` read, each once: the ``pick`` for
    :func:`scorekit.aggregate.results_files.load_results`."""
    return list(dict.fromkeys((key, metric) for config in configs for _, key, metric in _flat_parts(config)))


def compute_row(model: ModelResults, config: NormalizationConfig) -> LeaderboardRow:
    """Columns of one model under ``config`` (see module docstring)."""
    return _rows_for([model], config)[0]


def shipped_config(name: str = DEFAULT_CONFIG) -> NormalizationConfig:
    """A config shipped in scorekit's ``configs/`` folder, by file name."""
    from scorekit.resources import config_path

    return load_config(config_path(name))


def config_for(model: ModelResults, configs: dict[str, NormalizationConfig]) -> NormalizationConfig:
    """The default choice: the lighteval config for a model seen only in lighteval files,
    the lm-eval config otherwise. ``configs`` maps ``"lm-eval"``/``"lighteval"`` to configs."""
    if model.harnesses == {LIGHTEVAL} and LIGHTEVAL in configs:
        return configs[LIGHTEVAL]
    return configs["lm-eval"]


def compute_leaderboard(
    models: Iterable[ModelResults], config: NormalizationConfig | dict[str, NormalizationConfig]
) -> list[LeaderboardRow]:
    """Rows for all ``models``, best average first; rows without an average follow, by name.

    ``config`` is one config for every model, or a per-harness mapping (see :func:`config_for`).
    """
    groups: dict[int, tuple[NormalizationConfig, list[ModelResults]]] = {}
    for model in models:
        cfg = config if isinstance(config, NormalizationConfig) else config_for(model, config)
        groups.setdefault(id(cfg), (cfg, []))[1].append(model)
    rows = [row for cfg, members in groups.values() for row in _rows_for(members, cfg)]

    def order(row: LeaderboardRow):
        avg = row.scores.get(row.average_column) if row.average_column else None
        return (avg is None, -(avg or 0.0), row.model)

    return sorted(rows, key=order)


def override_notes(models: Iterable[ModelResults]) -> list[str]:
    """Human-readable lines for every task replaced by a newer file while merging."""
    lines = []
    for model in models:
        for ov in model.overrides:
            shown = ", ".join(ov.tasks[:3]) + (f", ... ({len(ov.tasks)} tasks)" if len(ov.tasks) > 3 else "")
            lines.append(f"{model.model}: {shown} found in {ov.dropped} and {ov.kept}; kept the newer {ov.kept}")
    return lines


def missing_notes(rows: Iterable[LeaderboardRow]) -> list[str]:
    """One line per model with missing columns, naming what is absent."""
    lines = []
    for row in rows:
        if not row.missing:
            continue
        parts = []
        for col in row.missing:
            absent = row.missing_detail.get(col, [])
            shown = ", ".join(absent[:4]) + (f", ... ({len(absent)} in all)" if len(absent) > 4 else "")
            parts.append(f"{col} (absent: {shown})")
        tail = f"; {row.average_column} left out" if row.average_column else ""
        lines.append(f"{row.model}: missing " + "; ".join(parts) + tail)
    return lines
