"""Consistency rate (CR) of SCORE (Zhao et al. 2024, arXiv:2403.14221).

For question k with answers Y_k, CR counts the unordered pairs {y_i, y_j} (i != j) of equivalent
answers. With answer counts m_1..m_r over the equivalence classes of one question the agreeing
pairs are sum_i C(m_i, 2), so nothing enumerates pairs. ``None`` marks an unparsed answer: it
takes part in the pair count C(|Y_k|, 2) but agrees with nothing (not even another ``None``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from collections import defaultdict
from itertools import chain, count
from typing import Any

import numpy as np

from scorekit.metrics._validation import as_groups, warn_nan

__all__ = ["consistency_counts", "consistency_rate", "consistency_rate_interval"]

Equal = Callable[[Any, Any], bool]

_BLOCK = 1 << 15  # (question x code) grid cells counted per block: 256 KB of int64


def _pairs(m: np.ndarray) -> np.ndarray:
    return m * (m - 1) // 2


def _codes(groups: list[Sequence[Any]], n: int) -> tuple[np.ndarray, int, int] | None:
    """A small integer code per answer (flattened in order), the number of codes and the code
    of ``None`` (-1 if absent); None when some answer is unhashable.

    One pass at C speed: a ``defaultdict`` whose factory hands out the next integer gives each
    new answer a code as it is first seen (dict-key semantics: hash and ``==``). Codes are
    collected as bytes while there are at most 256 of them, else in an int64 array.
    """
    table: defaultdict[Any, int] = defaultdict(count().__next__)
    lookup = table.__getitem__
    try:
        try:
            codes = np.frombuffer(bytearray(map(lookup, chain.from_iterable(groups))), dtype=np.uint8)
        except ValueError:
            if len(table) <= 256:  # not bytearray's range check: someone's __eq__/__hash__ raised
                raise
            # the codes handed out so far stay valid; redo the pass into int64
            codes = np.fromiter(map(lookup, chain.from_iterable(groups)), dtype=np.int64, count=n)
    except TypeError:
        return None
    return codes, len(table), table.get(None, -1)


def _agree_from_codes(codes: np.ndarray, n_codes: int, none_code: int, lengths: np.ndarray) -> np.ndarray:
    """Agreeing pairs per question from flat answer codes: count (question, code) cells, then
    sum C(m, 2) per question over the codes other than ``none_code``.

    Cells are counted with ``bincount`` on a dense (question x code) grid, or ``np.unique`` when
    that grid would be large. With equal group sizes the question offsets are broadcast over a
    (Q, L) view instead of repeated.
    """
    n_q = len(lengths)
    if n_q == 0 or len(codes) == 0:
        return np.zeros(n_q, dtype=np.int64)
    size = int(lengths[0])
    equal_sizes = len(codes) == n_q * size and bool((lengths == size).all())
    if n_q * n_codes <= max(4 * len(codes), 1 << 16):
        # sum_c C(m_c, 2) = (sum_c m_c^2 - sum_c m_c) / 2 over the parsed codes, on a dense
        # (question x code) grid built for a block of questions at a time: small temporaries
        # are reused by the allocator, where one big grid costs a page fault per 4 KB
        rows = max(1, _BLOCK // max(n_codes, -(-len(codes) // n_q)))
        offsets = np.arange(0, min(rows, n_q) * n_codes, n_codes, dtype=np.int64)
        starts = None if equal_sizes else np.concatenate(([0], np.cumsum(lengths)))
        agree = np.empty(n_q, dtype=np.int64)
        for lo in range(0, n_q, rows):
            hi = min(lo + rows, n_q)
            if equal_sizes:
                keys = (codes[lo * size : hi * size].reshape(hi - lo, size) + offsets[: hi - lo, None]).ravel()
            else:
                keys = np.repeat(offsets[: hi - lo], lengths[lo:hi])
                keys += codes[starts[lo] : starts[hi]]
            cells = np.bincount(keys, minlength=(hi - lo) * n_codes).reshape(hi - lo, n_codes)
            squares = np.einsum("ij,ij->i", cells, cells)
            parsed = lengths[lo:hi]
            if none_code >= 0:
                none = cells[:, none_code]
                squares -= none * none
                parsed = parsed - none
            agree[lo:hi] = (squares - parsed) >> 1
        return agree
    if equal_sizes:
        question = np.arange(n_q, dtype=np.int64)[:, None]
        keys = (question * n_codes + codes.reshape(n_q, size)).ravel()
    else:
        keys = np.repeat(np.arange(n_q, dtype=np.int64), lengths) * n_codes + codes
    if none_code >= 0:
        keys = keys[codes != none_code]
    uniq, counts = np.unique(keys, return_counts=True)
    agree = np.zeros(n_q, dtype=np.int64)
    np.add.at(agree, uniq // n_codes, _pairs(counts.astype(np.int64)))
    return agree


def _array_codes(arr: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Codes of a 2-D bool/int/float/string array via ``np.unique``; NaN takes the ``None`` role
    (each NaN element is its own value, equal to nothing, as after ``tolist()``)."""
    uniq, inverse = np.unique(arr.ravel(), return_inverse=True, equal_nan=True)
    inverse = inverse.reshape(-1).astype(np.int64, copy=False)
    none_code = -1
    if arr.dtype.kind == "f" and len(uniq) and np.isnan(uniq[-1]):  # NaNs sort last, collapsed into one
        none_code = len(uniq) - 1
    return inverse, len(uniq), none_code


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
    fewer than two answers give (0, 0). A 2-D numpy array (one row per question) is accepted
    (bool/int/float/string dtypes are coded with ``np.unique``; a float NaN, like ``None``,
    agrees with nothing, which is also what NaN does as a dict key after ``tolist()``).
    """
    if isinstance(answer_groups, np.ndarray) and answer_groups.ndim == 2:
        n_q, size = answer_groups.shape
        lengths = np.full(n_q, size, dtype=np.int64)
        if equal is None and answer_groups.dtype.kind in "biufUS":
            return _agree_from_codes(*_array_codes(answer_groups), lengths), _pairs(lengths)
        answer_groups = answer_groups.tolist()  # object (or other) dtype: the elements as Python objects
    groups = as_groups(answer_groups)
    lengths = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    total = _pairs(lengths)
    agree = None
    if equal is None:
        encoded = _codes(groups, int(lengths.sum()))
        if encoded is not None:
            agree = _agree_from_codes(*encoded, lengths)
        else:
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
    ``n_resamples`` times: resample b takes the questions ``idx_b = rng.integers(0, Q', Q')`` with
    ``rng = numpy.random.default_rng(seed)``, drawn for b = 0, 1, ... in order (the stream does
    not depend on how the draws are chunked internally). Its rate is sum(agree[idx_b]) /
    sum(total[idx_b]) when pooled, or mean(agree[idx_b] / total[idx_b]) otherwise; the interval
    is the (1 - confidence)/2 and (1 + confidence)/2 quantiles of those rates (numpy's linear
    interpolation). Questions without pairs play no part in either rate and are not resampled.
    No question with a pair: (nan, nan) with a ``RuntimeWarning``.
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
    chunk = max(1, (1 << 20) // q)  # bound the (chunk x Q') index matrix to ~8 MB
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        idx = rng.integers(0, q, size=(size, q))
        if pooled:
            stats[start : start + size] = agree[idx].sum(axis=1) / total[idx].sum(axis=1)
        else:
            stats[start : start + size] = rate[idx].sum(axis=1) / q
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(stats, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
