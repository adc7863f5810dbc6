"""MATH answers: light normalization and equivalence (math-verify, with a time limit).

:func:`normalize_math_answer` is the cleanup applied to every extracted MATH answer (and gold).
:func:`math_equivalent` decides whether two answers are the same mathematical object: first by
comparing canonical LaTeX strings, then with math-verify. math-verify is imported only when a
comparison needs it, so ``import scorekit.metrics`` stays light.

Timeouts: math-verify bounds every parse and every comparison with ``signal.alarm``, which
works only in the main thread of a process. lm-eval calls ``process_results`` and the
aggregations from the main thread, so there each of the (at most three) steps of one comparison
is limited to ``timeout`` seconds (an integer; math-verify's alarm has one-second resolution). Off
the main thread math-verify's alarms raise inside its own ``try`` and it silently answers
"not equal"; such comparisons therefore run in a one-worker process pool (whose worker runs them
on its main thread), waiting at most ``3 * timeout + 5`` seconds. A comparison that times out
counts as not equivalent.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from scorekit.metrics._validation import is_unparsed

__all__ = ["math_equivalent", "normalize_math_answer", "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 5

# A LaTeX row separator "\\" is kept whole: the spacing commands (\! \, \; \: and "\ ") only
# count when their backslash is not the second half of "\\".
_SPACING = re.compile(r"\\\\|\\[!,;: ]")
_STRIP_SUBS = [
    (re.compile(r"\\(?:left|right)(?![A-Za-z])"), ""), (re.compile(r"\\?%"), ""),
    (re.compile(r"\^\s*\{?\s*\\circ\s*\}?"), ""), (re.compile(r"\\?\$"), ""),
    (re.compile(r"\\[dt]frac(?![A-Za-z])"), r"\\frac"), (re.compile(r"\s+"), " "),
]


def normalize_math_answer(answer: str | None) -> str | None:
    """Light, meaning-preserving cleanup of an extracted MATH answer (None/empty -> None).

    Drops ``\\left``/``\\right``, the LaTeX spacing commands ``\\!``, ``\\,``, ``\\;``, ``\\:``,
    ``\\ `` (never the row separator ``\\\\``), percent signs, degree marks and dollar signs;
    ``\\dfrac``/``\\tfrac`` -> ``\\frac``; collapses runs of whitespace to one space; strips a
    trailing period.

    >>> normalize_math_answer(r"\\begin{pmatrix} 16/49 \\\\ 48/49 \\end{pmatrix}.")
    '\\\\begin{pmatrix} 16/49 \\\\\\\\ 48/49 \\\\end{pmatrix}'
    >>> normalize_math_answer(r"\\$1,\\!000 \\dfrac{1}{2}\\%")
    '1,000 \\\\frac{1}{2}'
    """
    if answer is None:
        return None
    s = _SPACING.sub(lambda m: m.group() if m.group() == "\\\\" else "", answer)
    for pattern, repl in _STRIP_SUBS:
        s = pattern.sub(repl, s)
    s = s.strip().rstrip(".").strip()
    return s or None


_TEXT_COMMAND = re.compile(r"\\(?:text|textbf|textit|textrm|mathrm|mbox)\s*\{")
_ARGUMENT_COMMAND = re.compile(r"\\(frac|sqrt)(?![A-Za-z])")
_CONTROL_WORD_SPACE = re.compile(r"(\\[A-Za-z]+)?\s+")


def _group_end(s: str, start: int) -> int:
    """Index of the ``}`` closing the ``{`` at ``start`` (or len(s) when nothing closes it)."""
    depth = 0
    for i in range(start, len(s)):
        depth += (s[i] == "{") - (s[i] == "}")
        if depth == 0:
            return i
    return len(s)


def _unwrap_text(s: str) -> str:
    r"""``\text{A,C,F}`` -> ``A,C,F`` (also ``\textbf``, ``\textit``, ``\textrm``, ``\mathrm``, ``\mbox``)."""
    while (m := _TEXT_COMMAND.search(s)) is not None:
        end = _group_end(s, m.end() - 1)
        s = s[: m.start()] + s[m.end() : end] + s[end + 1 :]
    return s


def _brace_arguments(s: str) -> str:
    r"""Brace the arguments of ``\frac`` and ``\sqrt`` the way TeX reads them: a single
    character or control word when not braced, so ``\frac \pi4`` -> ``\frac{\pi}{4}`` and
    ``\sqrt2`` -> ``\sqrt{2}`` (``\frac123`` is ``\frac{1}{2}3``, as in TeX)."""
    out: list[str] = []
    i = 0
    while (m := _ARGUMENT_COMMAND.search(s, i)) is not None:
        out.append(s[i : m.end()])
        j = m.end()
        if m.group(1) == "sqrt" and s[j:].lstrip().startswith("["):  # \sqrt[n]{x}: keep the index
            close = s.find("]", j)
            close = len(s) - 1 if close < 0 else close
            out.append(s[j : close + 1])
            j = close + 1
        for _ in range(2 if m.group(1) == "frac" else 1):
            while j < len(s) and s[j].isspace():
                j += 1
            if j >= len(s) or s[j] == "}":
                break
            if s[j] == "{":
                end = _group_end(s, j)
                out.append("{" + _brace_arguments(s[j + 1 : end]) + "}")
                j = end + 1
                continue
            word = re.match(r"\\(?:[A-Za-z]+|.)", s[j:]) if s[j] == "\\" else None
            token = word.group() if word else s[j]
            out.append("{" + token + "}")
            j += len(token)
        i = j
    out.append(s[i:])
    return "".join(out)


def _drop_spaces(s: str) -> str:
    """Remove whitespace, except one space that ends a control word before a letter (``\\pi r``)."""
    def keep(m: re.Match[str]) -> str:
        word = m.group(1) or ""
        follows = s[m.end() : m.end() + 1]
        return word + (" " if word and follows.isalpha() else "")

    return _CONTROL_WORD_SPACE.sub(keep, s)


@lru_cache(maxsize=65536)
def _canonical(answer: str) -> str | None:
    """The normalized answer with text wrappers removed, ``\\frac``/``\\sqrt`` arguments braced
    and insignificant whitespace dropped; None when nothing is left."""
    s = normalize_math_answer(answer)
    if s is None:
        return None
    s = _drop_spaces(_brace_arguments(_unwrap_text(s))).rstrip(".")
    return s or None


@lru_cache(maxsize=65536)
def _parsed(answer: str, timeout: int) -> tuple[Any, ...]:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse

    return tuple(parse("\\boxed{" + answer + "}", extraction_config=[LatexExtractionConfig(), ExprExtractionConfig()],
                       parsing_timeout=timeout))


@lru_cache(maxsize=262144)
def _verify_main_thread(a: str, b: str, timeout: int) -> bool:
    from math_verify import verify

    pa, pb = _parsed(a, timeout), _parsed(b, timeout)
    if not pa or not pb:
        return False
    return bool(verify(list(pa), list(pb), timeout_seconds=timeout))


def _verify_in_worker(a: str, b: str, timeout: int) -> bool:  # runs in the pool's process
    return _verify_main_thread(a, b, timeout)


_pool: Any = None
_pool_lock = threading.Lock()


def _worker_pool() -> Any:
    global _pool
    with _pool_lock:
        if _pool is None:
            import atexit
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
            atexit.register(_reset_pool)  # let it go while the interpreter can still tidy up after it
        return _pool


def _reset_pool() -> None:
    global _pool
    with _pool_lock:
        if _pool is not None:
            processes = list((_pool._processes or {}).values())  # shutdown() forgets them
            _pool.shutdown(wait=False, cancel_futures=True)
            for proc in processes:
                proc.kill()  # a hung sympy call would never return
            _pool = None


def math_equivalent(a: str | None, b: str | None, *, timeout: int = DEFAULT_TIMEOUT) -> bool:
    r"""True when two MATH answers (LaTeX strings, e.g. the content of ``\boxed{}``) are the
    same mathematical object.

    Steps: both answers get :func:`normalize_math_answer`; then the canonical forms are
    compared as strings (``\text{...}``, ``\textbf``, ``\mathrm``, ``\mbox`` wrappers removed,
    unbraced ``\frac``/``\sqrt`` arguments braced as TeX reads them, whitespace dropped except
    after a control word before a letter); if they differ, math-verify parses both (each wrapped
    as ``\boxed{...}``) and ``verify`` decides. ``None`` or an empty answer is equivalent to
    nothing (an unparsed answer agrees with nothing; so is NaN). Symmetric: the pair is put in one order
    before math-verify sees it.

    Not transitive: ``x=2`` matches ``2`` and ``2`` matches ``y=2``, but ``x=2`` does not match
    ``y=2``; so count agreeing pairs (:func:`scorekit.metrics.consistency_rate` does), never
    classes. Timeout: ``timeout`` seconds per math-verify step (parse a, parse b, verify); off
    the main thread the comparison runs in a worker process (module docstring). Results are
    cached.

    >>> math_equivalent(r"\begin{pmatrix} 16/49 \\ 48/49 \end{pmatrix}", r"\begin{pmatrix}16/49\\48/49\end{pmatrix}")
    True
    >>> math_equivalent(r"\text{A,C,F}", "A, C, F")
    True
    >>> math_equivalent(r"\frac \pi4 + 2 - \sqrt2", r"\frac{\pi}{4} + 2 - \sqrt{2}")
    True
    >>> math_equivalent("0.5", r"\frac{2}{4}"), math_equivalent("3", "4")
    (True, False)
    >>> math_equivalent("x=2", "2"), math_equivalent("2", "y=2"), math_equivalent("x=2", "y=2")
    (True, True, False)
    >>> from scorekit.metrics import consistency_rate
    >>> consistency_rate([["x=2", "2", "y=2"]], equal=math_equivalent)  # 2 of 3 pairs agree
    0.6666666666666666
    """
    if is_unparsed(a) or is_unparsed(b):
        return False
    ca, cb = _canonical(str(a)), _canonical(str(b))
    if ca is None or cb is None:
        return False
    if ca == cb:
        return True
    timeout = max(1, int(timeout))
    if ca > cb:  # one cache entry per unordered pair; verify is symmetric for these inputs
        ca, cb = cb, ca
    if threading.current_thread() is threading.main_thread():
        return _verify_main_thread(ca, cb, timeout)
    from concurrent.futures import TimeoutError as FutureTimeout

    future = _worker_pool().submit(_verify_in_worker, ca, cb, timeout)
    try:
        return bool(future.result(timeout=3 * timeout + 5))
    except FutureTimeout:
        _reset_pool()
        return False
