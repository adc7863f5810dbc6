"""String metrics: values, edge cases, properties, lighteval cross-checks."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.metrics import bow_f1, edit_similarity, exact_match, extractive_fragments, extractiveness, levenshtein

text_st = st.text(alphabet="abc ", max_size=12)


def test_exact_match_modes():
    norm = lambda s: s.strip().lower()  # noqa: E731
    assert exact_match(" Paris ", "paris", normalize=norm) == 1.0
    assert exact_match("Paris", "paris") == 0.0
    assert exact_match("the answer is 42", "42", mode="suffix") == 1.0
    assert exact_match("42 is the answer", "42", mode="prefix") == 1.0
    assert exact_match("42 is the answer", "42", mode="suffix") == 0.0
    assert exact_match("b", ["a", "b"]) == 1.0
    with pytest.raises(ValueError):
        exact_match("a", "a", mode="middle")
    with pytest.raises(ValueError):
        exact_match("a", [])


def test_bow_f1():
    assert bow_f1("the cat sat", "the cat") == pytest.approx(0.8)
    assert bow_f1("a a b", "a b b") == 1.0  # token sets
    assert bow_f1("a a b", "a b b", multiset=True) == pytest.approx(2 / 3)
    assert bow_f1("", "") == 1.0
    assert bow_f1("x", "") == 0.0 and bow_f1("x", "y") == 0.0
    assert bow_f1("x y", ["z", "x y"]) == 1.0


def test_levenshtein_and_similarity():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("flaw", "lawn") == 2
    assert levenshtein("", "abc") == 3
    assert levenshtein(["a", "b"], ["b"]) == 1
    assert edit_similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)
    assert edit_similarity("", "") == 1.0
    assert edit_similarity("a b c", "a c", tokenize=str.split) == pytest.approx(2 / 3)


def _lev_ref(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


@settings(max_examples=200, deadline=None)
@given(text_st, text_st)
def test_levenshtein_matches_reference_dp_and_bounds(a, b):
    d = levenshtein(a, b)
    assert d == _lev_ref(a, b) == levenshtein(b, a)
    assert 0 <= edit_similarity(a, b) <= 1
    assert 0 <= bow_f1(a, b) <= 1


def test_extractiveness_values():
    stats = extractiveness("the cat sat on the mat today", "the cat on the mat")
    # fragments: "the cat" (2), "on the mat" (3)
    assert extractive_fragments("the cat sat on the mat today".split(), "the cat on the mat".split()) == [2, 3]
    assert stats["coverage"] == 1.0
    assert stats["density"] == pytest.approx((4 + 9) / 5)
    assert stats["compression"] == pytest.approx(7 / 5)
    assert extractiveness("a b", "x y")["coverage"] == 0.0


def test_extractiveness_finds_longest_fragment_with_overlapping_starts():
    # the reference greedy scan jumps past source position 1 and reports [2, 1]
    assert extractive_fragments("a a a b".split(), "a a b".split()) == [3]


def test_extractiveness_empty_summary_is_nan():
    with pytest.warns(RuntimeWarning):
        stats = extractiveness("a b", "")
    assert all(math.isnan(v) for v in stats.values())


@pytest.mark.lighteval
def test_cross_check_lighteval_f1_and_fragments():
    ms = pytest.importorskip("lighteval.metrics.metrics_sample")
    f1 = ms.F1_score()
    for p, g in [("the cat sat", "the cat"), ("a b c d", "c d e"), ("x", "y"), ("a a b", "a b b")]:
        assert bow_f1(p, g) == pytest.approx(f1.compute_one_item(gold=g, pred=p))
    assert f1.compute_one_item(gold="", pred="") == 0.0 and bow_f1("", "") == 1.0  # differing convention
    stats_mod = pytest.importorskip("lighteval.metrics.imports.data_stats_utils")
    src, summ = "the cat sat on the mat today".split(), "the cat on the mat".split()
    frag = stats_mod.Fragments(summ, src)
    ours = extractiveness(" ".join(src), " ".join(summ))
    assert ours["coverage"] == pytest.approx(frag.coverage())
    assert ours["density"] == pytest.approx(frag.density())
    assert ours["compression"] == pytest.approx(frag.compression())
    # lighteval's scan misses the longest fragment when starts overlap
    assert [m.length for m in stats_mod.Fragments("a a b".split(), "a a a b".split()).overlaps()] == [2, 1]
