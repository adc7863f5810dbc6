"""String metrics comparing a prediction p with one or more gold strings g.

``normalize`` (optional, str -> str) is applied to both sides before comparing; with several
golds the best score over the golds is returned. Tokens are ``str.split()`` words unless a
``tokenize`` callable is given.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from scorekit.metrics._validation import warn_nan
from scorekit.metrics.specs import metric_spec

__all__ = ["exact_match", "bow_f1", "levenshtein", "edit_similarity", "extractive_fragments", "extractiveness"]

Normalize = Callable[[str], str] | None
Tokenize = Callable[[str], Sequence[Any]]


def _golds(gold: str | Sequence[str]) -> list[str]:
    golds = [gold] if isinstance(gold, str) else list(gold)
    if not golds:
        raise ValueError("gold is empty")
    for g in golds:
        if not isinstance(g, str):
            raise TypeError(f"gold must be a string or a sequence of strings, got {g!r}")
    return golds


def _norm(text: str, normalize: Normalize) -> str:
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {text!r}")
    return normalize(text) if normalize else text


@metric_spec("exact_match_prefix", kind="generate", options={"mode": "prefix"})
@metric_spec("exact_match_suffix", kind="generate", options={"mode": "suffix"})
def exact_match(prediction: str, gold: str | Sequence[str], *, mode: Literal["full", "prefix", "suffix"] = "full",
                normalize: Normalize = None) -> float:
    """1 if nu(p) == nu(g) (full), nu(p) starts with nu(g) (prefix) or ends with nu(g) (suffix).

    nu is ``normalize`` (identity by default). An empty gold is a prefix/suffix of everything.
    Several golds: 1 if any matches.

    >>> exact_match('Paris.', 'Paris', mode='prefix')
    1.0
    >>> exact_match(' Paris', ['paris', 'Lyon'], normalize=lambda s: s.strip().casefold())
    1.0
    """
    if mode not in ("full", "prefix", "suffix"):
        raise ValueError(f"mode must be 'full', 'prefix' or 'suffix', got {mode!r}")
    p = _norm(prediction, normalize)
    for g in _golds(gold):
        g = _norm(g, normalize)
        if (mode == "full" and p == g) or (mode == "prefix" and p.startswith(g)) or (mode == "suffix" and p.endswith(g)):
            return 1.0
    return 0.0


@metric_spec(kind="generate")
def bow_f1(prediction: str, gold: str | Sequence[str], *, normalize: Normalize = None,
           tokenize: Tokenize = str.split, multiset: bool = False) -> float:
    """Bag-of-words F1 = 2 P R / (P + R), P = |T_p ∩ T_g| / |T_p|, R = |T_p ∩ T_g| / |T_g|.

    T are token sets (``multiset=True``: token multisets, as SQuAD's F1). Edge cases: both
    token bags empty -> 1; exactly one empty or no overlap -> 0. Several golds: the maximum.

    >>> bow_f1('the cat sat', 'the cat ran')  # 2 shared of 3 and 3 tokens
    0.6666666666666666
    """
    tp = tokenize(_norm(prediction, normalize))
    best = 0.0
    for g in _golds(gold):
        tg = tokenize(_norm(g, normalize))
        bp, bg = (Counter(tp), Counter(tg)) if multiset else (Counter(set(tp)), Counter(set(tg)))
        n_p, n_g = sum(bp.values()), sum(bg.values())
        if n_p == 0 and n_g == 0:
            return 1.0
        common = sum((bp & bg).values())
        if common:
            best = max(best, 2.0 * common / (n_p + n_g))  # = 2PR/(P+R)
    return best


def levenshtein(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Levenshtein distance (unit insert/delete/substitute) between two strings or token lists.

    One numpy row per element of ``a``; insertions along a row come from a running minimum
    (cur[j] = j + min_{i<=j}(tmp[i] - i)), so there is no Python loop over pairs.

    >>> levenshtein('kitten', 'sitting')
    3
    """
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    codes: dict[Any, int] = {}
    ca = np.array([codes.setdefault(x, len(codes)) for x in a], dtype=np.int64)
    cb = np.array([codes.setdefault(x, len(codes)) for x in b], dtype=np.int64)
    j = np.arange(len(cb) + 1)
    prev = j.copy()
    for i, x in enumerate(ca, start=1):
        tmp = np.empty_like(prev)
        tmp[0] = i
        tmp[1:] = np.minimum(prev[1:] + 1, prev[:-1] + (cb != x))
        prev = j + np.minimum.accumulate(tmp - j)
    return int(prev[-1])


@metric_spec(kind="generate")
def edit_similarity(prediction: str | Sequence[Any], gold: str | Sequence[Any], *, normalize: Normalize = None,
                    tokenize: Tokenize | None = None) -> float:
    """1 - Lev(p, g) / max(|p|, |g|), over characters (default) or ``tokenize`` tokens.

    Both empty -> 1. A single gold only (a string, or a token list when ``tokenize`` is None
    and the inputs are already tokens).

    >>> edit_similarity('kitten', 'sitting')  # 1 - 3/7
    0.5714285714285714
    """
    if isinstance(prediction, str) or isinstance(gold, str):
        prediction, gold = _norm(prediction, normalize), _norm(gold, normalize)  # type: ignore[arg-type]
        if tokenize is not None:
            prediction, gold = tokenize(prediction), tokenize(gold)
    longest = max(len(prediction), len(gold))
    if longest == 0:
        return 1.0
    return 1.0 - levenshtein(prediction, gold) / longest


def extractive_fragments(source: Sequence[Any], summary: Sequence[Any]) -> list[int]:
    """Lengths of the extractive fragments of ``summary`` in ``source`` (token sequences).

    Greedy over summary positions i (Grusky et al. 2018): the fragment at i is the longest
    token run summary[i:i+L] that occurs in source; if L > 0 it is recorded and i advances by
    L, else by 1. The longest run is exact over all source start positions (the reference
    implementation skips starts inside an earlier partial match and can miss the longest run).

    >>> extractive_fragments('the cat sat on the mat'.split(), 'the cat lay on the mat'.split())
    [2, 3]
    """
    src, summ = list(source), list(summary)
    if not src or not summ:
        return []
    codes: dict[Any, int] = {}
    s = np.array([codes.setdefault(x, len(codes)) for x in src], dtype=np.int64)
    a = np.array([codes.setdefault(x, len(codes)) for x in summ], dtype=np.int64)
    # run[i, j] = length of the common run starting at summary i and source j (row by row from the end)
    best = np.zeros(len(a), dtype=np.int64)
    nxt = np.zeros(len(s) + 1, dtype=np.int64)
    for i in range(len(a) - 1, -1, -1):
        cur = np.zeros_like(nxt)
        cur[:-1] = np.where(s == a[i], nxt[1:] + 1, 0)
        best[i] = cur.max()
        nxt = cur
    out, i = [], 0
    while i < len(a):
        if best[i] > 0:
            out.append(int(best[i]))
            i += int(best[i])
        else:
            i += 1
    return out


@metric_spec(kind="generate", column="extractiveness_{part}")
def extractiveness(source: str, summary: str, *, normalize: Normalize = None,
                   tokenize: Tokenize = str.split) -> dict[str, float]:
    """Extractiveness of a summary (Grusky et al. 2018), with F its extractive fragments:

    coverage = sum_f |f| / |S|, density = sum_f |f|^2 / |S|, compression = |A| / |S|
    (A the source tokens, S the summary tokens). Density is the average length of the fragment
    each summary token belongs to. Empty summary: all three nan with a RuntimeWarning.

    >>> extractiveness('the cat sat on the mat', 'the cat lay on the mat')
    {'coverage': 0.8333333333333334, 'density': 2.1666666666666665, 'compression': 1.0}
    """
    src = tokenize(_norm(source, normalize))
    summ = tokenize(_norm(summary, normalize))
    if len(summ) == 0:
        nan = warn_nan("extractiveness: the summary has no tokens; coverage, density and compression are undefined")
        return {"coverage": nan, "density": nan, "compression": nan}
    frags = extractive_fragments(src, summ)
    n = len(summ)
    return {"coverage": sum(frags) / n, "density": sum(f * f for f in frags) / n, "compression": len(src) / n}
