"""Consistency rate (CR) of SCORE (Zhao et al. 2024, arXiv:2403.14221).

For question k with answers Y_k, CR counts the unordered pairs {y_i, y_j} (i != j) of equivalent
answers. With answer counts m_1..m_r over the equivalence classes of one question the agreeing
pairs are sum_i C(m_i, 2), so nothing enumerates pairs. ``None`` marks an unparsed answer: it
takes part in the pair count C(|Y_k|, 2) but agrees with nothing (not even another ``None``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from typing import Any

import numpy as np

from scorekit.metrics._validation import as_groups, warn_nan

__all__ = ["consistency_counts", "consistency_rate", "consistency_rate_interval"]

Equal = Callable[[Any, Any], bool]


def _pairs(m: np.ndarray) -> np.ndarray:
    return m * (m - 1) // 2


def _agree_hashable(groups: list[Sequence[Any]], lengths: np.ndarray) -> np.ndarray | None:
    """Agreeing pairs per question for hashable answers, vectorized across questions.

    Each distinct answer gets a small integer code (one dict lookup per answer, done by ``map``
    at C speed); then (question, code) cells are counted with ``bincount`` (or ``np.unique``
    when the cell grid would be large) and sum C(m, 2) is taken per question. Returns None
    when some answer is unhashable (the caller falls back to ``==`` scans).
    """
    flat = list(chain.from_iterable(groups))
    try:
        distinct = set(flat)
    except TypeError:
        return None
    distinct.discard(None)
    table: dict[Any, int] = {value: code for code, value in enumerate(distinct)}
    n_codes = len(table) + 1
    table[None] = len(table)  # a code of its own, dropped before counting
    none_code = n_codes - 1
    if n_codes <= 256:
        codes = np.frombuffer(bytes(map(table.__getitem__, flat)), dtype=np.uint8)
    else:
        codes = np.array(list(map(table.__getitem__, flat)), dtype=np.int64)
    n_q = len(groups)
    if n_q * n_codes <= max(4 * len(flat), 1 << 16):
        # dense (question x code) grid: sum_c C(m_c, 2) = (sum_c m_c^2 - sum_c m_c) / 2 over parsed codes
        keys = np.repeat(np.arange(0, n_q * n_codes, n_codes, dtype=np.int64), lengths)
        keys += codes
        cells = np.bincount(keys, minlength=n_q * n_codes).reshape(n_q, n_codes)
        none = cells[:, none_code]
        squares = np.einsum("ij,ij->i", cells, cells) - none * none
        return (squares - (lengths - none)) >> 1
    keys = np.repeat(np.arange(n_q, dtype=np.int64), lengths) * n_codes + codes
    keys = keys[codes != none_code]
    uniq, counts = np.unique(keys, return_counts=True)
    agree = np.zeros(n_q, dtype=np.int64)
    np.add.at(agree, uniq // n_codes, _pairs(counts.astype(np.int64)))
    return agree


def _agree_scan(group: Sequence[Any], equal: Equal) -> int:
    """Agreeing pairs of one question: first-match representative classes, then sum C(m, 2)."""
    reps: list[Any] = []
    counts: list[int] = []
    for answer in group:
        if answer is None:
            continue
        for i, rep in enumerate(reps):
            if equal(rep, answer):
                counts[i] += 1
                break
        else:
            reps.append(answer)
            counts.append(1)
    return sum(m * (m - 1) // 2 for m in counts)


def consistency_counts(answer_groups: Iterable[Sequence[Any]], *, equal: Equal | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-question (agreeing pairs, total pairs) as two int64 arrays of length Q.

    total_k = C(|Y_k|, 2) (``None`` answers included); agree_k = sum over equivalence classes of
    C(m, 2) (``None`` answers excluded, so they agree with nothing). Without ``equal`` answers are
    compared as dictionary keys (hash and ``==``, so ``1 == 1.0``); unhashable answers fall back to
    ``==``. With ``equal(a, b) -> bool`` each answer joins the class of the first representative
    it equals (order of appearance), which is exact for a transitive predicate. Questions with
    fewer than two answers give (0, 0).
    """
    groups = as_groups(answer_groups)
    lengths = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    total = _pairs(lengths)
    agree = None
    if equal is None:
        agree = _agree_hashable(groups, lengths)
        if agree is None:
            equal = _eq
    if agree is None:
        agree = np.fromiter((_agree_scan(g, equal) for g in groups), dtype=np.int64, count=len(groups))
    return agree, total


def _eq(a: Any, b: Any) -> bool:
    return bool(a == b)


def consistency_rate(answer_groups: Iterable[Sequence[Any]], *, equal: Equal | None = None, pooled: bool = True) -> float:
    """Consistency rate in [0, 1].

    pooled=True (lm-eval's SCORE): sum_k agree_k / sum_k C(|Y_k|, 2).
    pooled=False (the paper's formula): mean over questions with at least one pair of
    agree_k / C(|Y_k|, 2). The two agree when every question has the same number of answers.
    Questions with fewer than two answers add no pairs (and are left out of the mean). When no
    question has a pair the rate is undefined: ``nan`` with a ``RuntimeWarning``.
    """
    agree, total = consistency_counts(answer_groups, equal=equal)
    has_pairs = total > 0
    if not has_pairs.any():
        return warn_nan("consistency_rate: no question has two or more answers; the rate is undefined (nan)")
    if pooled:
        return float(agree.sum() / total.sum())
    return float(np.mean(agree[has_pairs] / total[has_pairs]))


def consistency_rate_interval(
    answer_groups: Iterable[Sequence[Any]],
    *,
    equal: Equal | None = None,
    pooled: bool = True,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of :func:`consistency_rate` over questions.

    Method: the Q' questions that have at least one pair are resampled with replacement
    ``n_resamples`` times (multinomial counts w over Q' questions, seeded by ``seed``); each
    resample's rate is sum(w * agree) / sum(w * total) when pooled, or sum(w * agree/total) / Q'
    otherwise; the interval is the (1 - confidence)/2 and (1 + confidence)/2 quantiles of those
    rates (numpy's linear interpolation). Questions without pairs play no part in either rate
    and are not resampled. No question with a pair: (nan, nan) with a ``RuntimeWarning``.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    agree, total = consistency_counts(answer_groups, equal=equal)
    has_pairs = total > 0
    if not has_pairs.any():
        nan = warn_nan("consistency_rate_interval: no question has two or more answers; the interval is undefined")
        return nan, nan
    agree = agree[has_pairs].astype(np.float64)
    total = total[has_pairs].astype(np.float64)
    rate = agree / total
    q = len(total)
    rng = np.random.default_rng(seed)
    n_resamples = int(n_resamples)
    stats = np.empty(n_resamples)
    chunk = max(1, (1 << 22) // q)  # bound the (chunk x Q) weight matrix to ~32 MB
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        w = rng.multinomial(q, np.full(q, 1.0 / q), size=size).astype(np.float64)
        if pooled:
            stats[start : start + size] = (w @ agree) / (w @ total)
        else:
            stats[start : start + size] = (w @ rate) / q
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(stats, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
