"""Robustness families for any task (``scorekit variants``): arrangements, records, metrics.

Harness-free. The lm-eval adapter (:mod:`scorekit.lm_eval.task_variants`) expands each document of
the wrapped task into variants and turns each answer into a
:class:`~scorekit.robustness.records.Record`; the SCORE core
(:func:`scorekit.robustness.analysis.summarize`) computes accuracy per variant, spread and the
consistency rate with its interval; this module adds what only variant tasks report.

Variants (``variant`` of a record; ``n_variants`` of its question):

- ``option_order``: one arrangement of the choices per position of the gold. ``cyclic``
  (OpenCompass's CircularEval): the n rotations of the choice list, rotation r shows original
  choice ``(i + r) mod n`` at position i; ``swap`` (SCORE): the gold swapped into each position.
  Either way each arrangement puts the gold at a different position, and ``variant`` is that
  position (0 = first choice), so accuracy per variant is accuracy per position of the gold.
- ``prompt``: template t (0-based, in the order of the templates file); with N samples per
  template, ``variant = t * N + s`` for sample s.
- ``non_greedy``: sample s (0..N-1).

Answers: multiple choice -> the canonical original index of the chosen choice (the first
original index with the same stripped text), so the CR compares option *content*; generation
-> the (filtered) output with whitespace runs collapsed and the ends stripped; an empty output
is unparsed (None).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.robustness.records import Record

__all__ = [
    "ROBUST_FAMILIES", "PERMUTATIONS", "arrangements", "canonical_map", "swap_order", "choice_answer", "text_answer",
    "circular_accuracy", "prompt_sensitivity", "template_accuracy", "robust_metrics", "read_templates",
]

ROBUST_FAMILIES: tuple[str, ...] = ("option_order", "prompt", "non_greedy")
PERMUTATIONS: tuple[str, ...] = ("cyclic", "swap")


def arrangements(n: int, gold: int, scheme: str = "cyclic") -> list[tuple[int, list[int]]]:
    """``[(gold position, display order)]`` for every arrangement of ``n`` choices, sorted by the
    gold's position; ``order[i]`` is the original index of the choice shown at position i.

    >>> arrangements(3, 1, "cyclic")
    [(0, [1, 2, 0]), (1, [0, 1, 2]), (2, [2, 0, 1])]
    >>> arrangements(3, 1, "swap")
    [(0, [1, 0, 2]), (1, [0, 1, 2]), (2, [0, 2, 1])]
    """
    if not 0 <= gold < n:
        raise ValueError(f"gold {gold} outside the {n} choices")
    if scheme == "cyclic":  # rotation r shows choice (i + r) mod n at i, so the gold at (gold - r) mod n
        out = [((gold - r) % n, [(i + r) % n for i in range(n)]) for r in range(n)]
    elif scheme == "swap":
        out = [(p, swap_order(n, gold, p)) for p in range(n)]
    else:
        raise ValueError(f"unknown permutation scheme {scheme!r}; choose one of {PERMUTATIONS}")
    return sorted(out)


def swap_order(n_options: int, gold: int, position: int) -> list[int]:
    """Display order (display index -> original index) with the gold option swapped into
    ``position`` and the option that was there moved to the gold's place (SCORE's option order)."""
    order = list(range(n_options))
    order[position], order[gold] = order[gold], order[position]
    return order


def canonical_map(choices: Sequence[str]) -> list[int]:
    """Original index -> first original index with the same stripped text.

    >>> canonical_map(["a", "b ", "b"])
    [0, 1, 1]
    """
    first: dict[str, int] = {}
    return [first.setdefault(str(c).strip(), i) for i, c in enumerate(choices)]


def choice_answer(scores: Sequence[float], order: Sequence[int], canon: Sequence[int],
                  positions: Sequence[int] | None = None) -> int:
    """Canonical original index of the option the highest-scoring choice names (the first on
    ties, as lm-eval's ``acc``). ``order[i]`` is the original option shown at display position
    i; the choice scored at index x names display position ``positions[x]`` (default x: choices
    scored in display order), or, when that is -1 (a label the prompt does not show), option x.
    An empty ``order`` or ``canon`` (a variant document's ``order`` / ``canonical`` when the
    options keep their place) is the identity.

    >>> choice_answer([-3.0, -1.0, -2.0], [2, 0, 1], [0, 1, 2]), choice_answer([-3.0, -1.0, -2.0], [], [])
    (0, 1)
    >>> choice_answer([-3.0, -1.0, -2.0], [2, 0], [0, 1, 2], positions=[1, 0, -1])  # label 1 is shown first
    2
    """
    chosen = int(np.argmax(np.asarray(scores, dtype=float)))
    position = chosen if positions is None else int(positions[chosen])
    index = (int(order[position]) if order else position) if position >= 0 else chosen
    return int(canon[index]) if canon else index


LM_EVAL_FALLBACK = "[invalid]"  # what lm-eval's regex filters write when the regex finds nothing


def filter_fallbacks(filter_list: Any) -> frozenset[str]:
    """What a task's lm-eval filters write when they extract nothing: :data:`LM_EVAL_FALLBACK`
    (the regex filters' default) and any ``fallback`` a step of ``filter_list`` sets, whitespace
    collapsed as answers are. A step as the YAML writes it, or as lm-eval 0.5 logs it (its
    arguments under ``kwargs``).

    >>> sorted(filter_fallbacks([{"name": "m", "filter": [{"function": "regex", "fallback": " none "}]}]))
    ['[invalid]', 'none']
    >>> sorted(filter_fallbacks([{"name": "m", "filter": [{"function": "regex", "kwargs": {"fallback": "?"}}]}]))
    ['?', '[invalid]']
    """
    out = {LM_EVAL_FALLBACK}
    for pipeline in filter_list if isinstance(filter_list, list) else []:
        steps = pipeline.get("filter") if isinstance(pipeline, dict) else None
        for step in steps if isinstance(steps, list) else []:
            args = step.get("kwargs") if isinstance(step, dict) and isinstance(step.get("kwargs"), dict) else step
            fallback = args.get("fallback") if isinstance(args, dict) else None
            if isinstance(fallback, str) and fallback.split():
                out.add(" ".join(fallback.split()))
    return frozenset(out)


def text_answer(output: Any, fallbacks: frozenset[str] | tuple[str, ...] = (LM_EVAL_FALLBACK,)) -> str | None:
    """A generated answer for the CR: whitespace runs collapsed, ends stripped; None (unparsed)
    if empty or one of the filters' ``fallbacks`` (:func:`filter_fallbacks`: nothing extracted).

    >>> text_answer("  42\\n ") is None, text_answer("  4  2 "), text_answer("[invalid]")
    (False, '4 2', None)
    """
    if output is None:
        return None
    text = " ".join(str(output).split())
    return text if text and text not in fallbacks else None


def _complete(records: Sequence[Record]) -> dict[str, list[Record]]:
    by_q: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_q[r.question_id].append(r)
    return {q: rs for q, rs in by_q.items() if len({r.variant for r in rs}) == rs[0].n_variants}


def circular_accuracy(records: Sequence[Record]) -> float:
    """Share of complete questions answered correctly in every arrangement (CircularEval);
    nan without complete questions.

    >>> from scorekit.robustness.records import Record as R
    >>> circular_accuracy([R("q1", "option_order", 0, 2, "t", 0, True), R("q1", "option_order", 1, 2, "t", 0, True),
    ...                    R("q2", "option_order", 0, 2, "t", 1, True), R("q2", "option_order", 1, 2, "t", 0, False)])
    0.5
    """
    done = _complete(records)
    if not done:
        return math.nan
    return sum(all(r.correct for r in rs) for rs in done.values()) / len(done)


def template_accuracy(records: Sequence[Record], samples: int) -> dict[int, float]:
    """Accuracy per template (``variant // samples``) over the complete questions."""
    hits: dict[int, list[bool]] = defaultdict(list)
    for rs in _complete(records).values():
        for r in rs:
            hits[r.variant // samples].append(bool(r.correct))
    return {t: sum(v) / len(v) for t, v in sorted(hits.items())}


def prompt_sensitivity(records: Sequence[Record], samples: int) -> float:
    """Share of the variance of correctness that lies between prompts rather than within them.

    For each complete question q with T templates and N samples each (``variant = t*N + s``),
    y_qts in {0, 1}; with population variances, the total variance of y over the question's
    T*N answers splits exactly into B_q = var_t(mean_s y_qts) (between prompts) plus
    W_q = mean_t var_s(y_qts) (within a prompt: sampling). The figure is
    sum_q B_q / sum_q (B_q + W_q), in [0, 1]: 1 when each prompt's samples agree and prompts
    differ, 0 when every prompt gets the same share right. Question difficulty is not counted
    (variances are taken within each question). nan when no complete question varies at all
    or ``samples`` < 2.

    >>> from scorekit.robustness.records import Record as R
    >>> recs = [R("q", "prompt", v, 4, "t", None, c) for v, c in enumerate([True, True, False, False])]
    >>> prompt_sensitivity(recs, 2), prompt_sensitivity([r._replace(correct=r.variant % 2 == 0) for r in recs], 2)
    (1.0, 0.0)
    """
    if samples < 2:
        return math.nan
    between = total = 0.0
    for rs in _complete(records).values():
        n_t = rs[0].n_variants // samples
        y = np.zeros((n_t, samples))
        for r in rs:
            y[r.variant // samples, r.variant % samples] = float(r.correct)
        between += float(y.mean(axis=1).var())
        total += float(y.var())
    return between / total if total > 0 else math.nan


def robust_metrics(records: Sequence[Record], family: str, *, samples: int = 1, confidence: float = 0.95) -> dict[str, float]:
    """Every metric of one variant task from its records (names as lm-eval reports them).

    ``option_order``: ``accuracy``, ``per_option_accuracy_X`` (gold at position X), spread
    (``accuracy_min/max/range/std`` over positions), ``options_consistency_rate`` (+ ``_ci_low``,
    ``_ci_high``), ``circular_accuracy``, ``unparsed_rate``. ``prompt``: ``accuracy``,
    ``N_accuracy`` per template, spread over templates, ``consistency_rate`` (+CI),
    ``unparsed_rate``; with ``samples`` > 1 also ``prompt_sensitivity`` (CR over all T*N answers
    of a question). ``non_greedy``: ``non_greedy_accuracy``, ``non_greedy_consistency_rate``
    (+CI), ``unparsed_rate``. Incomplete questions are left out as in
    :func:`~scorekit.robustness.analysis.summarize`.
    """
    from scorekit.robustness.analysis import spread, summarize

    summary = summarize(records, macro=False, confidence=confidence)
    out = summary.metrics()
    out["accuracy"] = summary.accuracy
    if family == "option_order":
        out["circular_accuracy"] = circular_accuracy(records)
    elif family == "prompt" and samples > 1:
        per_template = template_accuracy(records, samples)
        out = {k: v for k, v in out.items() if not k.split("_")[0].isdigit()}  # per template, not per variant
        out.update({f"{t}_accuracy": acc for t, acc in per_template.items()})
        if per_template:
            out.update(spread(per_template.values()))
        out["prompt_sensitivity"] = prompt_sensitivity(records, samples)
    return out


def read_templates(path: str) -> list[str]:
    """The ``doc_to_text`` templates of a ``--templates`` file: a YAML list of strings (jinja,
    as lm-eval's ``doc_to_text``), at least two. Each is parsed with jinja so a syntax error is
    named with its place."""
    from jinja2 import Environment, TemplateSyntaxError

    from scorekit.yaml_config import read_yaml

    data = read_yaml(path)
    if not isinstance(data, list):
        raise ScorekitError(f"expected a YAML list of doc_to_text templates, got {type(data).__name__}", path=path)
    if len(data) < 2:
        raise ScorekitError(f"{len(data)} template(s); the prompt family needs at least two", path=path)
    env = Environment()
    for i, t in enumerate(data):
        if not isinstance(t, str) or not t.strip():
            raise ScorekitError(f"template {i} is not a non-empty string", path=path, where=f"item {i}")
        try:
            env.parse(t)
        except TemplateSyntaxError as exc:
            raise ScorekitError(f"jinja syntax error in template {i}: {exc.message} (template line {exc.lineno})",
                                path=path, where=f"item {i}") from None
    if len(set(data)) != len(data):
        dup = next(i for i, t in enumerate(data) if data.index(t) != i)
        raise ScorekitError(f"template {dup} repeats template {data.index(data[dup])}", path=path, where=f"item {dup}")
    return [str(t) for t in data]
