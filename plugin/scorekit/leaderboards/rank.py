"""Rank aggregation across leaderboards by mean percentile: parse, compute, render.

Input file: benchmark dictionaries ``name={"model": rank or None, ..., "known_totals": N}``
followed by exactly one cost dictionary (no ``known_totals``) as the last entry; ``#``
comments; dictionaries may span lines. The file is parsed with :mod:`ast` and only
``name = {...}`` / ``{...}`` statements whose keys and values are literals are accepted, so
it can never run code.

Per model, over the benchmarks where it has a rank:

- percentile pᵢ = rank / known_totals (0 = best, 1 = worst)
- score = mean(pᵢ) + penalty, penalty = 0.25 for 1 benchmark, 0.10 for 2, 0 for 3 or more
- std = population standard deviation of the pᵢ (before the penalty); N/A under 2 values
- order: score ascending; ties (equal to 12 decimals) → more benchmarks first → model name

Intervals (95%; :func:`compute_ranking` ``confidence``), from the spread of a model's own
percentiles across the leaderboards it is on — the file holds ranks only, so the choice of
leaderboards is the one source of uncertainty it shows (the noise inside each leaderboard's
ranking is not in the file and not covered):

- ``score_ci``: Student t interval of the mean percentile, mean -/+ t_{n-1} s / sqrt(n) with s
  the sample std (ddof=1), cut to [0, 1], plus the penalty; scipy's ``t.interval``, except that
  percentiles that all agree give a zero-width interval (scipy: NaN);
- ``std_ci``: chi-square interval of the standard deviation,
  [s sqrt((n-1)/chi2_{1-a/2, n-1}), s sqrt((n-1)/chi2_{a/2, n-1})], cut at 0.5 (the largest std of
  values in [0, 1]); exact only for normal values (coverage of both: docs/uncertainty.md);
- pairwise: model k is *ahead of* model i when score_i - score_k > t_nu * sqrt(se_i^2 + se_k^2),
  se = sample std (ddof=1) / sqrt(n), nu the Welch-Satterthwaite degrees of freedom (two
  independent means; not paired on shared leaderboards);
- ``position_ci``: [1 + models ahead of it, N - models it is ahead of]; models without an
  interval are never counted as ahead or behind, which widens the others' ranges; left out
  (None) for every model when more than :data:`RANK_RANGE_MODELS_MAX` models have intervals;
- ``tied_with_best``: the first row is not ahead of this one (True for the first row).

A model on one leaderboard has no interval (None): one value shows no spread, and a made-up
one would be narrower than the truth.
"""

from __future__ import annotations

import ast
import json
import math
import os
import shlex
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from scorekit.errors import ScorekitError, one_line, shown
from scorekit.errors import listed as listed_names
from scorekit.files import nul_line, read_text

TOTALS_KEY = "known_totals"
SAMPLE_FILE = "ranking_sample.txt"  # shipped in configs/
# Rank ranges compare every pair of models with intervals; above this many such models the
# comparisons (their square) would take long (5,000 models on six leaderboards: ~4 s, bench/bench_rank.py),
# so the ranges are left out (N/A) and the command says so. "Tied with best" compares one row and is
# always given; models without intervals are never compared.
RANK_RANGE_MODELS_MAX = 5_000
_PAIRS_PER_BLOCK = 1 << 20


@dataclass(frozen=True)
class RankedBenchmark:
    name: str
    line: int
    known_totals: int
    ranks: dict[str, int | None]


@dataclass(frozen=True)
class RankData:
    path: str
    benchmarks: tuple[RankedBenchmark, ...]
    costs: dict[str, int | float | None]


@dataclass(frozen=True)
class RankRow:
    position: int
    model: str
    score: float  # mean percentile + penalty
    mean: float  # mean percentile before the penalty
    penalty: float
    std: float | None  # population std of the percentiles; None under 2 benchmarks
    n_benchmarks: int
    cost: int | float | None
    percentiles: dict[str, float] = field(default_factory=dict)
    score_ci: tuple[float, float] | None = None  # None: one benchmark, no interval
    std_ci: tuple[float, float] | None = None
    position_ci: tuple[int, int] | None = None
    tied_with_best: bool | None = None


# --- parsing --------------------------------------------------------------------------------


def parse_rank_text(text: str, path: str = "<string>") -> RankData:
    """Parse the dict-literal format safely; raise :class:`ScorekitError` naming path:line."""
    if text.startswith("\ufeff"):  # a UTF-8 BOM (some editors write one)
        text = text[1:]
    nul = nul_line(text)
    if nul is not None:
        raise ScorekitError("not a dictionary file: NUL byte", path=path, where=f"line {nul}")
    try:
        tree = ast.parse(text, filename=path, mode="exec")
    except SyntaxError as exc:
        where = f"line {exc.lineno}" + (f" column {exc.offset}" if exc.offset else "")
        msg = exc.msg
        if "Exceeds the limit" in msg:
            msg = "an integer with more than 4300 digits"
        raise ScorekitError(f"not a dictionary file: {one_line(msg)}", path=path, where=where) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        # Python's parser gives up on absurd nesting (10^5 unary minus signs, 200 brackets)
        raise ScorekitError(
            f"not a dictionary file: expression nested too deeply for Python's parser ({type(exc).__name__})", path=path
        ) from None

    dicts: list[tuple[str | None, int, dict[str, Any]]] = []
    for stmt in tree.body:
        line = stmt.lineno
        if isinstance(stmt, ast.Assign):
            if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                raise _err(path, line, "only 'name = {...}' assignments to a plain name are allowed")
            name: str | None = stmt.targets[0].id
            node = stmt.value
        elif isinstance(stmt, ast.Expr):
            name, node = None, stmt.value
        else:
            raise _err(path, line, f"only 'name = {{...}}' dictionaries are allowed, found {_describe(stmt)}")
        if not isinstance(node, ast.Dict):
            raise _err(path, line, f"expected a {{...}} dictionary, found {_describe(node)}")
        dicts.append((name, line, _literal_dict(node, path, name)))

    if not dicts:
        raise ScorekitError("no dictionaries found (expected benchmark dictionaries and a cost dictionary)", path=path)
    *bench_dicts, (cost_name, cost_line, cost_dict) = dicts
    for name, line, d in bench_dicts:
        if TOTALS_KEY not in d:
            raise _err(
                path,
                line,
                f"{_label(name, line)} has no '{TOTALS_KEY}': every benchmark needs it, and the cost "
                "dictionary (the only one without it) must be the last one",
            )
    if TOTALS_KEY in cost_dict:
        raise _err(
            path,
            cost_line,
            f"the last dictionary ({_label(cost_name, cost_line)}) has '{TOTALS_KEY}', but the last one must "
            "be the cost dictionary (write {} if there are no costs)",
        )
    if not bench_dicts:
        raise ScorekitError("no benchmark dictionaries before the cost dictionary", path=path)

    benchmarks = []
    seen_names: dict[str, int] = {}
    for name, line, d in bench_dicts:
        label = _label(name, line)
        if name is not None:
            if name in seen_names:
                raise _err(path, line, f"benchmark '{name}' is defined twice (first at line {seen_names[name]})")
            seen_names[name] = line
        total = d.pop(TOTALS_KEY)
        if not _is_int(total) or total < 1:
            raise _err(path, line, f"benchmark {label}: '{TOTALS_KEY}' must be a positive integer, got {shown(total)}")
        for model, rank in d.items():  # d holds the ranks now: None, or checked here
            if rank is None:
                continue
            if not _is_int(rank):
                raise _err(path, line, f"benchmark {label}, model {shown(model)}: rank must be an integer or None, got {shown(rank)}")
            if not 1 <= rank <= total:
                raise _err(
                    path, line, f"benchmark {label}, model {shown(model)}: rank {shown(rank)} is outside 1..{shown(total)} (known_totals)"
                )
        benchmarks.append(RankedBenchmark(name or f"line {line}", line, total, d))

    for model, cost in cost_dict.items():
        if cost is not None and (
            isinstance(cost, bool) or not isinstance(cost, (int, float)) or cost < 0
            or (isinstance(cost, int) and cost.bit_length() > 1000) or not math.isfinite(cost)
        ):
            raise _err(path, cost_line, f"cost dictionary, model {shown(model)}: cost must be a number >= 0 or None, got {shown(cost)}")
    return RankData(path, tuple(benchmarks), cost_dict)


def rank_file(file: str, default: str) -> Path:
    """``file`` when it exists; else one line naming it, the usage (FILE defaults to ``default``)
    and how to run the shipped example."""
    from scorekit.resources import config_path

    if os.path.lexists(file):
        return Path(file)
    try:
        sample = str(config_path(SAMPLE_FILE))
    except FileNotFoundError:
        sample = SAMPLE_FILE
    raise ScorekitError(f"file not found (usage: scorekit rank [FILE], FILE defaults to {default}; "
                        f"for an example run: scorekit rank {shlex.quote(sample)})", path=file)


def read_rank_file(path: str | Path) -> RankData:
    """Read and parse a rank file (see :func:`parse_rank_text`)."""
    path = Path(path)
    return parse_rank_text(read_text(path, expected="a rank file"), str(path))


def _literal_dict(node: ast.Dict, path: str, name: str | None) -> dict[str, Any]:
    """Keys must be string literals (no duplicates), values literals; nothing is evaluated
    beyond :func:`ast.literal_eval`, which never calls, imports or looks anything up."""
    label = _label(name, node.lineno)
    out: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for key_node, value_node in zip(node.keys, node.values):
        if key_node is None:
            raise _err(path, value_node.lineno, f"{label}: '**' unpacking is not allowed")
        key = _literal(key_node, path, label)
        if not isinstance(key, str):
            raise _err(path, key_node.lineno, f"{label}: key {shown(key)} must be a string (model name)")
        if key in out:
            raise _err(path, key_node.lineno, f"{label}: key {shown(key)} appears twice (first at line {lines[key]})")
        lines[key] = key_node.lineno
        out[key] = _literal(value_node, path, label, key)
    return out


def _literal(node: ast.AST, path: str, label: str, key: str | None = None) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        where = label if key is None else f"{label}, key {shown(key)}"
        raise _err(path, node.lineno, f"{where}: only literal values are allowed, found {_describe(node)}") from None


def _describe(node: ast.AST) -> str:
    kinds = {
        ast.Call: "a function call", ast.Import: "an import", ast.ImportFrom: "an import",
        ast.Attribute: "attribute access", ast.Name: "a name", ast.Lambda: "a lambda",
        ast.FunctionDef: "a function definition", ast.ClassDef: "a class definition", ast.ListComp: "a comprehension",
        ast.SetComp: "a comprehension", ast.DictComp: "a comprehension", ast.GeneratorExp: "a comprehension",
    }
    for sub in ast.walk(node):  # the first offending construct inside, outermost first
        if type(sub) in kinds:
            return kinds[type(sub)]
    return f"'{type(node).__name__}'"


def _label(name: str | None, line: int) -> str:
    return f"'{name}'" if name else f"dictionary at line {line}"


def _err(path: str, line: int, msg: str) -> ScorekitError:
    return ScorekitError(msg, path=path, where=f"line {line}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


# --- computing ------------------------------------------------------------------------------


def compute_ranking(data: RankData, confidence: float = 0.95) -> list[RankRow]:
    """Aggregate the benchmarks of ``data`` into rows, best first, with their intervals at
    ``confidence`` (see the module docstring).

    Models with no rank in any benchmark are not in the result (:func:`ranking_notes` names them).
    Time grows linearly with the models (the rank ranges: with the square of the models that have
    intervals, at most :data:`RANK_RANGE_MODELS_MAX`).
    """
    models = sorted({m for b in data.benchmarks for m, r in b.ranks.items() if r is not None})
    if not models:
        return []
    index = {m: i for i, m in enumerate(models)}
    pct = np.full((len(models), len(data.benchmarks)), np.nan)
    for j, bench in enumerate(data.benchmarks):
        for model, rank in bench.ranks.items():
            if rank is not None:
                pct[index[model], j] = rank / bench.known_totals
    present = ~np.isnan(pct)
    count = present.sum(axis=1)
    mean = np.nansum(pct, axis=1) / count
    penalty = np.select([count == 1, count == 2], [0.25, 0.10], 0.0)
    score = mean + penalty
    dev = np.where(present, pct - mean[:, None], 0.0)
    std = np.sqrt((dev**2).sum(axis=1) / count)
    order = sorted(range(len(models)), key=lambda i: (round(float(score[i]), 12), -int(count[i]), models[i]))
    spread = _Spread.of(pct, present, count, confidence)
    # a model without an interval is never ahead or behind: only the others are compared
    with_ci = np.flatnonzero(count >= 2)
    n = len(models)
    ranged = with_ci.size <= RANK_RANGE_MODELS_MAX
    ahead_of_it = np.zeros(n, dtype=np.int64)
    behind_it = np.zeros(n, dtype=np.int64)
    if ranged and with_ci.size:
        ahead_of_it[with_ci], behind_it[with_ci] = _ahead_counts(spread.subset(with_ci), score[with_ci], confidence)
    best = order[0]
    best_ahead = _ahead_block(spread, score, confidence, np.array([best]))[0]  # the first row against every model
    rows = []
    for pos, i in enumerate(order, start=1):
        known = count[i] >= 2
        rows.append(
            RankRow(
                position=pos,
                model=models[i],
                score=float(score[i]),
                mean=float(mean[i]),
                penalty=float(penalty[i]),
                std=float(std[i]) if known else None,
                n_benchmarks=int(count[i]),
                cost=data.costs.get(models[i]),
                percentiles={b.name: float(pct[i, j]) for j, b in enumerate(data.benchmarks) if present[i, j]},
                score_ci=(max(0.0, float(spread.mean_lo[i])) + float(penalty[i]),
                          min(1.0, float(spread.mean_hi[i])) + float(penalty[i])) if known else None,
                std_ci=(min(float(spread.std_lo[i]), 0.5), min(float(spread.std_hi[i]), 0.5)) if known else None,
                position_ci=(1 + int(ahead_of_it[i]), n - int(behind_it[i])) if known and ranged else None,
                tied_with_best=(True if pos == 1 else (None if not known or count[best] < 2
                                                      else not bool(best_ahead[i]))),
            )
        )
    return rows


@dataclass(frozen=True)
class _Spread:
    """Per model, from its percentiles on the leaderboards it is on (NaN under 2 values): their
    number, the squared standard error of their mean (sample variance / n), and the Student t
    interval of the mean and the chi-square interval of the std (module docstring), computed for
    all models with the same number of values at once (one quantile per number)."""

    size: np.ndarray
    se2: np.ndarray
    mean_lo: np.ndarray
    mean_hi: np.ndarray
    std_lo: np.ndarray
    std_hi: np.ndarray

    @classmethod
    def of(cls, pct: np.ndarray, present: np.ndarray, count: np.ndarray, confidence: float) -> "_Spread":
        from scipy.special import chdtri, stdtrit

        if not 0 < confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
        size = count.astype(np.float64)
        se2, mean_lo, mean_hi, std_lo, std_hi = (np.full(len(count), np.nan) for _ in range(5))
        alpha = 1 - confidence
        for k in np.unique(count[count >= 2]):
            rows = np.flatnonzero(count == k)
            values = pct[rows][present[rows]].reshape(len(rows), k)  # each row's values in benchmark order
            m = values.mean(axis=1)
            s = values.std(axis=1, ddof=1)
            half = float(stdtrit(k - 1, (1 + confidence) / 2)) * s / math.sqrt(k)
            mean_lo[rows], mean_hi[rows] = m - half, m + half
            df = int(k) - 1
            # chdtri(df, q) is the chi-square quantile with upper tail q
            std_lo[rows] = s * math.sqrt(df / float(chdtri(df, alpha / 2)))
            std_hi[rows] = s * math.sqrt(df / float(chdtri(df, 1 - alpha / 2)))
            se2[rows] = values.var(axis=1, ddof=1) / k
        return cls(size, se2, mean_lo, mean_hi, std_lo, std_hi)

    def subset(self, rows: np.ndarray) -> "_Spread":
        return _Spread(*(getattr(self, f.name)[rows] for f in fields(self)))


def _ahead_block(spread: _Spread, score: np.ndarray, confidence: float, rows: np.ndarray) -> np.ndarray:
    """``ahead[k, i]`` for the models ``k`` in ``rows`` against every model ``i``: model k's score is
    significantly lower (better) than model i's (Welch t test at ``confidence``, two-sided
    level; see the module docstring). False when either model has fewer than 2 percentiles."""
    from scipy.special import ndtri, stdtrit

    size, var = spread.size, spread.se2
    q = (1 + confidence) / 2
    diff = score[None, :] - score[rows, None]  # [k, i] = score_i - score_k
    vk = var[rows, None]
    se2 = vk + var[None, :]
    spread_pairs = se2 > 0  # False for NaN too
    out = np.where(np.isnan(se2) | spread_pairs, False, diff > 1e-12)  # no spread in either: any difference counts
    # The Welch quantile t_nu lies between the normal quantile (nu -> inf) and t at
    # min(n_k, n_i) - 1 degrees of freedom (the smallest nu can be): only pairs whose difference
    # falls between the two bounds need t_nu itself, a costly call (~1 us a pair; 5,000 models
    # with intervals: 31 -> 4 s). The 1e-9 margins keep rounding from deciding a pair.
    root = np.sqrt(np.where(spread_pairs, se2, 0.0))
    t_most = stdtrit(np.arange(1, max(2, int(size.max()))), q)  # [df - 1]: t at df = 1, 2, ...
    fewest = np.minimum(size[rows, None], size[None, :]).astype(np.int64)
    t_high = t_most[np.maximum(fewest - 2, 0)]  # (pairs with a 1-value model are left out below)
    surely = spread_pairs & (diff > t_high * root * (1 + 1e-9))
    maybe = spread_pairs & ~surely & (diff > float(ndtri(q)) * root * (1 - 1e-9))
    k, i = np.nonzero(maybe)
    if k.size:
        a, b = var[rows[k]], var[i]
        nu = (a + b) ** 2 / (a**2 / (size[rows[k]] - 1) + b**2 / (size[i] - 1))
        out[k, i] = diff[k, i] > stdtrit(nu, q) * root[k, i]
    out |= surely
    out[np.arange(len(rows)), rows] = False
    return out


def _ahead_counts(spread: _Spread, score: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Per model: how many models are ahead of it, and how many it is ahead of. The pairs are
    compared in blocks of rows (about :data:`_PAIRS_PER_BLOCK` at a time), so memory stays
    flat however many models there are; time grows with their square."""
    n = len(score)
    ahead_of_it = np.zeros(n, dtype=np.int64)
    behind_it = np.zeros(n, dtype=np.int64)
    step = max(1, _PAIRS_PER_BLOCK // max(n, 1))
    for start in range(0, n, step):
        rows = np.arange(start, min(n, start + step))
        block = _ahead_block(spread, score, confidence, rows)
        ahead_of_it += block.sum(axis=0)
        behind_it[rows] = block.sum(axis=1)
    return ahead_of_it, behind_it


def ranking_notes(data: RankData, rows: Sequence[RankRow]) -> list[str]:
    """What the ranking leaves out or cannot say: models listed only with None ranks, models in
    the cost dictionary with no rank anywhere, models on one benchmark (no intervals), rank
    ranges not computed (too many models)."""
    ranked = {m for b in data.benchmarks for m, r in b.ranks.items() if r is not None}
    notes = []
    for models, why in (
        (sorted({m for b in data.benchmarks for m in b.ranks} - ranked),
         "have no rank in any benchmark (all None) and are left out"),
        (sorted(set(data.costs) - ranked), "have a cost but no rank in any benchmark and are not shown"),
        ([r.model for r in rows if r.score_ci is None],
         "are on one benchmark only: one percentile shows no spread, so they have no intervals (N/A) and "
         "are never counted as ahead of or behind another model"),
    ):
        if models:
            notes.append(f"{len(models)} model(s) {why}: {listed_names(models)}")
    with_ci = sum(r.score_ci is not None for r in rows)
    if with_ci > RANK_RANGE_MODELS_MAX:
        notes.append(f"{with_ci} models have intervals, more than {RANK_RANGE_MODELS_MAX}: their rank ranges (every "
                     "pair compared) are left out (N/A); the other columns are complete")
    return notes


# --- rendering ------------------------------------------------------------------------------

_COLUMNS = ("Rank", "Model", "Avg Pctl", "Std Dev", "# Benchmarks", "Cost/1k",
            "Avg Pctl 95% CI", "Std Dev 95% CI", "Rank range", "Tied with best")
_MIN_WIDTHS = (5, 22, 8, 8, 12, 7, 15, 14, 10, 14)
_CSV_COLUMNS = ("Rank", "Model", "Avg Pctl", "Std Dev", "# Benchmarks", "Cost/1k",
                "Avg Pctl_ci_low", "Avg Pctl_ci_high", "Std Dev_ci_low", "Std Dev_ci_high",
                "Rank_ci_low", "Rank_ci_high", "Tied with best")


def _interval(ci: tuple[float, float] | None, digits: int = 3) -> str:
    return "N/A" if ci is None else f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _cells(row: RankRow) -> list[str]:
    return [
        str(row.position), one_line(row.model), f"{row.score:.3f}", "N/A" if row.std is None else f"{row.std:.3f}",
        str(row.n_benchmarks), "N/A" if row.cost is None else str(row.cost), _interval(row.score_ci),
        _interval(row.std_ci),
        "N/A" if row.position_ci is None else f"[{row.position_ci[0]}, {row.position_ci[1]}]",
        "N/A" if row.tied_with_best is None else ("yes" if row.tied_with_best else "no"),
    ]


def _csv_row(r: RankRow) -> list:
    def ends(ci):
        return [None, None] if ci is None else list(ci)

    return [r.position, r.model, r.score, r.std, r.n_benchmarks, r.cost, *ends(r.score_ci), *ends(r.std_ci),
            *ends(r.position_ci), None if r.tied_with_best is None else ("yes" if r.tied_with_best else "no")]


def _json_row(r: RankRow) -> dict:
    def ends(name, ci):
        return {f"{name}_ci_low": None if ci is None else ci[0], f"{name}_ci_high": None if ci is None else ci[1]}

    return {
        "rank": r.position,
        "model": r.model,
        "avg_percentile": r.score,
        "mean_percentile": r.mean,
        "penalty": r.penalty,
        "std_dev": r.std,
        "benchmarks": r.n_benchmarks,
        "cost_per_1k": r.cost,
        "percentiles": r.percentiles,
        **ends("avg_percentile", r.score_ci),
        **ends("std_dev", r.std_ci),
        **ends("rank", r.position_ci),
        "tied_with_best": r.tied_with_best,
    }


def render_ascii(rows: Sequence[RankRow]) -> str:
    """The ASCII table: left-aligned columns at least 5/22/8/8/12/7 characters wide, then the
    interval columns (widened
    for longer cells), between ``+---+`` border lines two characters shorter than the rows."""
    cells = [_cells(r) for r in rows]
    widths = [max([w, len(h)] + [len(c[k]) for c in cells]) for k, (h, w) in enumerate(zip(_COLUMNS, _MIN_WIDTHS))]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths)) + " |"

    header = line(_COLUMNS)
    border = "+" + "-" * (len(header) - 4) + "+"
    return "\n".join([border, header, border, *(line(c) for c in cells), border]) + "\n"


def render_ranking(rows: Sequence[RankRow], fmt: str = "table") -> str:
    """Render rows as ``table`` (:func:`render_ascii`), markdown, csv, json, html or latex."""
    if fmt == "table":
        return render_ascii(rows)
    if fmt == "json":
        return json.dumps([_json_row(r) for r in rows], indent=2) + "\n"
    from scorekit.tables import render

    if fmt == "csv":
        return render(_CSV_COLUMNS, [_csv_row(r) for r in rows], fmt)
    return render(_COLUMNS, [_cells(r) for r in rows], fmt)  # markdown, html, latex; ValueError for others
