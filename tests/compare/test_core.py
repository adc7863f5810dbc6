"""The pure pairing core of `scorekit compare` (no files): pairing, notes, kinds, Holm."""

from __future__ import annotations

import numpy as np
import pytest

from scorekit.compare.core import MetricValues, Run, compare_runs
from scorekit.metrics.intervals import mcnemar_p


def _run(label: str, values: dict[str, float], kind: str = "binary", fingerprints: dict | None = None) -> Run:
    ids = list(values)
    fp = [fingerprints.get(q, "") for q in ids] if fingerprints else None
    return Run(label, label, "-", {"t": {"m": MetricValues(kind, ids, [values[q] for q in ids], fp)}})


def test_pairs_on_shared_questions_and_names_the_rest():
    a = _run("A", {f"q{i}": float(i % 2) for i in range(10)})
    b = _run("B", {f"q{i}": 1.0 for i in range(3, 14)})
    (c,), notes = compare_runs([a, b])
    shared = [f"q{i}" for i in range(3, 10)]
    xa = np.array([int(q[1:]) % 2 for q in shared])
    assert c.n_paired == 7 and c.a_only == 3 and c.b_only == 4
    assert c.a_value == pytest.approx(xa.mean()) and c.b_value == 1.0
    assert c.p_value == pytest.approx(mcnemar_p(xa, np.ones(7, dtype=int)))
    assert any("3 question(s) of A not in B" in n and "q0, q1, q2" in n for n in notes)
    assert any("4 question(s) of B not in A" in n for n in notes)


def test_different_documents_under_one_id_are_not_paired():
    a = _run("A", {"0": 1.0, "1": 0.0, "2": 1.0}, fingerprints={"0": "h0", "1": "h1", "2": "h2"})
    b = _run("B", {"0": 1.0, "1": 1.0, "2": 0.0}, fingerprints={"0": "h0", "1": "XX", "2": "h2"})
    (c,), notes = compare_runs([a, b])
    assert c.n_paired == 2 and any("hold different documents" in n and ": 1" in n for n in notes)


def test_binary_against_mean_is_compared_as_mean_and_other_kinds_are_not():
    a = _run("A", {str(i): float(i % 2) for i in range(20)})
    b = _run("B", {str(i): 0.5 for i in range(20)}, kind="mean")
    (c,), _ = compare_runs([a, b])
    assert c.test == "paired_bootstrap" and c.kind == "mean"
    r = _run("R", {str(i): 0.5 for i in range(20)}, kind="range")
    out, notes = compare_runs([a, r])
    assert out == [] and any("not compared" in n for n in notes)


def test_ratio_kind_is_the_pooled_rate():
    ids = [str(i) for i in range(30)]
    rows_a = np.array([[i % 4, 3] for i in range(30)], dtype=float)
    rows_b = np.array([[2, 3]] * 30, dtype=float)
    a = Run("A", "A", "-", {"t": {"cr": MetricValues("ratio", ids, rows_a)}})
    b = Run("B", "B", "-", {"t": {"cr": MetricValues("ratio", ids, rows_b)}})
    (c,), _ = compare_runs([a, b])
    assert c.a_value == pytest.approx(rows_a[:, 0].sum() / rows_a[:, 1].sum()) and c.b_value == pytest.approx(2 / 3)
    assert c.ci_low <= c.difference <= c.ci_high and 0 <= c.p_value <= 1


def test_missing_task_and_labels():
    a = _run("A", {"0": 1.0, "1": 0.0})
    b = Run("B", "B", "-", {"other": {}})
    out, notes = compare_runs([a, b])
    assert out == [] and any("task t is missing from B; not compared" in n for n in notes)
    with pytest.raises(ValueError):
        compare_runs([a])
    with pytest.raises(ValueError):
        compare_runs([a, _run("A", {"0": 1.0})])
