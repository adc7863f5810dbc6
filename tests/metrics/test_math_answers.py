"""MATH answer equivalence on answers written the way MATH solutions and models write them."""

from __future__ import annotations

import time

import numpy as np
import pytest

from scorekit.metrics import consistency_rate, math_equivalent
from scorekit.metrics.math_answers import normalize_math_answer

# (gold as MATH writes it, an answer written differently, equivalent?)
PAIRS = [
    # vectors and matrices: the row separator \\ survives the spacing rule whatever the spacing
    (r"\begin{pmatrix} 16/49 \\ 48/49 \end{pmatrix}", r"\begin{pmatrix}16/49\\48/49\end{pmatrix}", True),
    (r"\begin{pmatrix}16/49\\48/49\end{pmatrix}", r"\begin{pmatrix} 16/49 \\ 48/49 \end{pmatrix}", True),
    (r"\begin{pmatrix} -1 & 0 \\ 0 & -1 \end{pmatrix}", r"\begin{pmatrix}-1&0\\0&-1\end{pmatrix}", True),
    (r"\begin{pmatrix} 2 \\ -1 \\ 5 \end{pmatrix}", r"\begin{pmatrix} 2\\ -1\\ 5 \end{pmatrix}", True),
    (r"\begin{pmatrix} 2 \\ -1 \\ 5 \end{pmatrix}", r"\begin{pmatrix} 2 \\ 5 \\ -1 \end{pmatrix}", False),
    (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", r"\begin{pmatrix} 2 \\ 1 \end{pmatrix}", False),
    # multiple-choice style answers in \text{}
    (r"\text{A,C,F}", "A, C, F", True),
    (r"\text{A,C,F}", "A,C,F", True),
    (r"\text{B, E, G}", r"\text{B,E,G}", True),
    (r"\text{A,C,F}", "A, C", False),
    (r"\text{(C)}", "(C)", True),
    # unbraced \frac and \sqrt arguments, read the way TeX reads them
    (r"\frac \pi4 + 2 - \sqrt2", r"\frac{\pi}{4} + 2 - \sqrt{2}", True),
    (r"\frac12", r"\frac{1}{2}", True),
    (r"\dfrac1{72}", r"\frac{1}{72}", True),
    (r"3\sqrt[3]2", r"3\sqrt[3]{2}", True),
    (r"\frac \pi4", r"\frac{4}{\pi}", False),
    # spacing commands and a control word before a letter
    (r"1,\!000", "1000", True),
    (r"2 \pi r", r"2\pi r", True),
    (r"x \rightarrow 2", r"x\rightarrow 2", True),
    # plain math-verify cases
    ("0.5", r"\frac{2}{4}", True),
    ("x+11", "11+x", True),
    ("3", "4", False),
    # unparsed answers are equivalent to nothing
    (None, None, False),
    ("", "", False),
    (float("nan"), float("nan"), False),
]


@pytest.mark.parametrize(("gold", "answer", "equivalent"), PAIRS)
def test_math_equivalent(gold, answer, equivalent):
    assert math_equivalent(answer, gold) is equivalent
    assert math_equivalent(gold, answer) is equivalent


def test_normalization_keeps_row_separators_and_arrows():
    assert normalize_math_answer(r"\begin{pmatrix} 16/49 \\ 48/49 \end{pmatrix}") == r"\begin{pmatrix} 16/49 \\ 48/49 \end{pmatrix}"
    assert normalize_math_answer(r"1\\ 2") == r"1\\ 2"
    assert normalize_math_answer(r"3\ \text{cm}") == r"3\text{cm}"
    assert normalize_math_answer(r"\left( 1, 2 \right)") == "( 1, 2 )"
    assert normalize_math_answer(r"x \rightarrow \infty") == r"x \rightarrow \infty"
    assert normalize_math_answer(r"\$5.") == "5"
    assert normalize_math_answer("  ") is None


def test_not_transitive_so_consistency_counts_pairs():
    assert math_equivalent("x=2", "2") and math_equivalent("2", "y=2")
    assert not math_equivalent("x=2", "y=2")
    # ten answers of one question: 1 + 4 + 5; only the 1 x 4 pairs (x=2, y=2) disagree
    ten = ["x=2"] + [r"y = 2"] * 4 + ["2", r"\frac{4}{2}", "2.0", r"\frac{2}{1}", "2"]
    rates = {consistency_rate([order], equal=math_equivalent) for order in (ten, ten[::-1], ten[5:] + ten[:5])}
    assert rates == {41 / 45}


def test_nan_answers_never_reach_the_checker():
    seen = []

    def equal(a, b):
        seen.append((a, b))
        return math_equivalent(a, b)

    assert consistency_rate([[np.nan, "1", r"\frac{2}{2}", None]], equal=equal) == 1 / 6
    assert seen == [("1", r"\frac{2}{2}")]


def test_a_timed_out_worker_is_killed():
    """After a timeout the worker may hang in sympy: resetting the pool kills its process (the
    old code looked the processes up after shutdown() had dropped them, and raised)."""
    import threading

    from scorekit.metrics import math_answers

    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("eq", math_equivalent("0.25", r"\frac{1}{4}")))
    thread.start()
    thread.join(120)
    assert out["eq"] is True
    processes = list(math_answers._worker_pool()._processes.values())
    assert processes and all(p.is_alive() for p in processes)
    math_answers._reset_pool()
    assert math_answers._pool is None
    deadline = time.monotonic() + 10
    while not all(_dead(p.pid) for p in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_dead(p.pid) for p in processes)


def _dead(pid: int) -> bool:
    """Killed (a zombie) or reaped; read from /proc because the pool's own thread may reap the
    child first, and Process.is_alive() then cannot tell."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):  # reaped before the open, or between open and read
        return True
