"""Which B of a question's V variants a budgeted run asks: a seeded, balanced design.

A budgeted run (``scorekit variants --budget B``) asks every question under B of its V variants
(prompts, answer arrangements, samples) instead of all V. The design is a pure function of
(the question ids, V, B, seed):

- every question gets B *distinct* variants;
- every variant gets N·B/V questions, ±1 (N questions), whatever N, V and B;
- each question's B variants are, over the seed, a uniformly random B-subset of the V, so the
  pairs a question is asked are uniformly random pairs: the consistency rate estimated from
  them is unbiased for the full run's (:mod:`scorekit.robustness.budget.estimate`);
- designs are *nested*: the variants a question gets with budget B are among those it gets with
  any larger budget (same ids, V and seed), so a run can be topped up from B to B' by asking
  only the B' - B new (question, variant) pairs.

**Construction.** Questions are ordered by a SHA-256 key of (seed, question id), not by their
order in the dataset, so shuffled, sharded or re-read documents get the same design. The
ordered questions form groups of V; group g has its own seeded permutation π_g of the variants
(the variants ordered by a SHA-256 key of (seed, V, g, variant)). The question at place r of a
full group starts at offset r, and takes the B variants π_g(r), π_g(r+1), ..., π_g(r+B-1)
(indices mod V): in a full group every variant is taken exactly B times, for every B. The last
group, of m < V questions, starts its questions at the offsets floor(j·V/m), j < m: a window of
B consecutive offsets then holds floor(B·m/V) or ceil(B·m/V) of them (a balanced, "mechanical"
word), which is where the ±1 comes from. Within a group a variant meets its neighbours in π_g;
across groups it meets random partners, so the variants are well connected for the model that
borrows strength between them.

**Stable across platforms.** Only SHA-256 and integer arithmetic are used: no global random
state, no numpy generator whose stream could change between versions. Ids are compared as
strings (``str(id)``), so the integer 7 and the string "7" are the same question (and refused
as a duplicate when both are given). The hashed text is tagged ``scorekit-budget-v1``: another
scheme would use another tag, so a recorded design always means what it meant.

**What depends on what.** A question's variants depend on the whole set of question ids
(through its place in the hash order), as a ±1 balance for every N requires: the design of a
task is made once, from all its documents, and recorded in the task files (per document, and as
``design: {variants: V, per_question: B, seed: S}``). Running a subset of those documents
(``--limit``, shards) asks each question what the recorded design says; remaking the task with
other questions makes another design. :func:`check_design` compares what a log asked with the
design recorded for it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorekit.errors import ScorekitError, shown

__all__ = ["BudgetError", "DesignError", "Design", "check_budget", "assign", "check_design", "DesignCheck"]

_TAG = "scorekit-budget-v1"
_INTEGER = re.compile(r"[+-]?[0-9]+")


class BudgetError(ScorekitError, ValueError):
    """An invalid budget, variant count, seed or question list: one line (CLI exit status 2)."""


class DesignError(BudgetError):
    """What a budgeted log asked does not match its recorded design: one line (exit status 2)."""


def _as_int(value: Any, what: str) -> int:
    """An int from an int (not a bool) or a string of digits; anything else refused."""
    if isinstance(value, bool):
        raise BudgetError(f"{what} must be an integer, got {shown(value)}")
    if isinstance(value, int):
        return value
    if hasattr(value, "__index__") and not isinstance(value, float):  # numpy integers
        return int(value.__index__())
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    raise BudgetError(f"{what} must be an integer, got {shown(value)}")


def check_budget(per_question: Any, variants: Any) -> int:
    """The budget B as an int, checked against V variants: B >= V is a full run (returns V).

    B must be an integer of at least 2 (a question needs a pair of variants for the consistency
    rate); 0, 1, negative and non-integer budgets (``2.5``, ``"two"``, ``True``) raise
    :class:`BudgetError`, as does V < 2. Strings of digits are read (a CLI argument).

    >>> check_budget(2, 100), check_budget("4", 10), check_budget(12, 10)
    (2, 4, 10)
    >>> check_budget(1, 10)
    Traceback (most recent call last):
    ...
    scorekit.robustness.budget.design.BudgetError: budget must be at least 2 variants per question (a question needs a pair for the consistency rate), got 1
    """
    v = _as_int(variants, "the number of variants")
    if v < 2:
        raise BudgetError(f"a budget needs a family of at least 2 variants per question, got {v}")
    b = _as_int(per_question, "budget (variants per question)")
    if b < 2:
        raise BudgetError("budget must be at least 2 variants per question (a question needs a pair for the "
                          f"consistency rate), got {b}")
    return min(b, v)


@dataclass(frozen=True)
class Design:
    """A budgeted design: ``per_question`` (B) of ``variants`` (V) per question, ``seed``.

    Construct with :meth:`make` (checks and normalises: B >= V becomes a full run, B = V) or
    :meth:`from_json` (a recorded design). :meth:`to_json` gives the issue's
    ``{"variants": V, "per_question": B, "seed": S}``; :func:`design_json` gives ``None`` for a
    full run, as the report writes it.
    """

    variants: int
    per_question: int
    seed: int

    @classmethod
    def make(cls, variants: Any, per_question: Any, seed: Any = 0) -> Design:
        v = _as_int(variants, "the number of variants")
        b = check_budget(per_question, v)
        s = _as_int(seed, "seed")
        if s < 0:
            raise BudgetError(f"seed must be a non-negative integer, got {s}")
        return cls(v, b, s)

    @property
    def full(self) -> bool:
        """True when every question gets every variant (B = V)."""
        return self.per_question >= self.variants

    @property
    def cost(self) -> float:
        """Evaluations' worth: B single-variant evaluations (B/V of the full design's V)."""
        return float(self.per_question)

    def to_json(self) -> dict[str, int]:
        return {"variants": self.variants, "per_question": self.per_question, "seed": self.seed}

    @classmethod
    def from_json(cls, data: Any, *, path: str | None = None, where: str = "design") -> Design:
        """A design read from a task file or log: a mapping with exactly the three integer keys.
        Anything else raises :class:`BudgetError` naming ``path`` and ``where``."""
        if not isinstance(data, Mapping):
            raise BudgetError(f"must be a mapping {{variants, per_question, seed}}, got {shown(data)}", path=path, where=where)
        keys = {"variants", "per_question", "seed"}
        if set(data) != keys:
            missing, extra = sorted(keys - set(data)), sorted(set(map(str, data)) - keys)
            said = "; ".join(x for x in (f"missing {', '.join(missing)}" if missing else "",
                                         f"unexpected {', '.join(extra)}" if extra else "") if x)
            raise BudgetError(f"must have the keys variants, per_question, seed ({said})", path=path, where=where)
        for k in sorted(keys):
            if isinstance(data[k], bool) or not isinstance(data[k], int):
                raise BudgetError(f"{k} must be an integer, got {shown(data[k])}", path=path, where=where)
        try:
            design = cls.make(data["variants"], data["per_question"], data["seed"])
        except BudgetError as err:
            raise BudgetError(str(err), path=path, where=where) from None
        if design.per_question != data["per_question"]:
            raise BudgetError(f"per_question {data['per_question']} is more than variants {data['variants']}; a full run "
                              "records no design", path=path, where=where)
        return design


def design_json(design: Design | None) -> dict[str, int] | None:
    """The report's ``design`` field: ``None`` for a full run (or no design), else :meth:`Design.to_json`."""
    return None if design is None or design.full else design.to_json()


def _key(*parts: object) -> bytes:
    text = "\x1f".join([_TAG, *map(str, parts)])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _ids(question_ids: Iterable[Any]) -> list[str]:
    if isinstance(question_ids, (str, bytes)):
        raise BudgetError("question ids must be a list of ids, not one string")
    ids = [str(q) for q in question_ids]
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        dup = next(q for q in ids if q in seen or seen.add(q))  # type: ignore[func-returns-value]
        raise BudgetError(f"question id {shown(dup)} appears twice (ids are compared as text)")
    return ids


def assign(question_ids: Iterable[Any], design: Design) -> dict[str, tuple[int, ...]]:
    """{question id (as str): its B variant indices, sorted} for the design (module docstring).

    O(N) SHA-256 hashes (2N), about 0.1 s for 100,000 questions. A full design gives every
    question ``(0, ..., V-1)``.

    >>> d = Design.make(variants=4, per_question=2, seed=0)
    >>> plan = assign(["q1", "q2", "q3", "q4", "q5", "q6"], d)
    >>> sorted(len(v) for v in plan.values())
    [2, 2, 2, 2, 2, 2]
    >>> counts = [sum(v in vs for vs in plan.values()) for v in range(4)]  # N*B/V = 3, +-1
    >>> all(2 <= c <= 4 for c in counts), sum(counts)
    (True, 12)
    """
    ids = _ids(question_ids)
    v, b, seed = design.variants, design.per_question, design.seed
    if design.full:
        return {q: tuple(range(v)) for q in ids}
    order = sorted(ids, key=lambda q: (_key(seed, "question", q), q))
    out: dict[str, tuple[int, ...]] = {}
    for start in range(0, len(order), v):
        group = order[start:start + v]
        g = start // v
        perm = sorted(range(v), key=lambda j: (_key(seed, "permutation", v, g, j), j))
        m = len(group)
        for j, q in enumerate(group):
            offset = j if m == v else (j * v) // m
            out[q] = tuple(sorted(perm[(offset + i) % v] for i in range(b)))
    return {q: out[q] for q in ids}


@dataclass
class DesignCheck:
    """What :func:`check_design` found: questions asked all their B variants (``complete``),
    questions asked some (``incomplete``: id -> the assigned variants not in the log, e.g. cut
    by ``--limit``), and questions of the design the log does not have (``absent``)."""

    complete: list[str] = field(default_factory=list)
    incomplete: dict[str, tuple[int, ...]] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)


def check_design(observed: Mapping[Any, Iterable[int]], design: Design,
                 question_ids: Sequence[Any] | None = None, *, path: str | None = None) -> DesignCheck:
    """Check what a budgeted log asked against its recorded design.

    ``observed``: question id -> the variant indices the log has answers for (repeats allowed:
    samples of one variant). ``question_ids``: the ids the design was made for (the task's
    documents); by default the observed ones, which is right only when the log has every
    question. Raises :class:`DesignError` (one line, naming ``path``) when a question of the log
    is not one of ``question_ids``, a variant index is outside 0..V-1, or a question was asked a
    variant its design does not assign (the design was edited, or the log mixes runs of
    different designs). Questions missing some of their variants are returned as incomplete,
    not refused: the caller leaves them out and says so.
    """
    ids = _ids(question_ids if question_ids is not None else observed.keys())
    plan = assign(ids, design)
    result = DesignCheck()
    said = f"the design (variants {design.variants}, per_question {design.per_question}, seed {design.seed})"
    for qid, variants in observed.items():
        key = str(qid)
        asked = set()
        for x in variants:
            if isinstance(x, bool) or not isinstance(x, int) and not hasattr(x, "__index__"):
                raise DesignError(f"question {shown(key)}: variant {shown(x)} is not an integer", path=path)
            asked.add(int(x))
        if key not in plan:
            raise DesignError(f"question {shown(key)} is not one of the {len(ids)} questions {said} was made for", path=path)
        bad = sorted(x for x in asked if not 0 <= x < design.variants)
        if bad:
            raise DesignError(f"question {shown(key)}: variant {bad[0]} is outside 0..{design.variants - 1}", path=path)
        extra = sorted(asked - set(plan[key]))
        if extra:
            raise DesignError(f"question {shown(key)} was asked variant(s) {extra} that {said} does not give it "
                              f"(it gives {list(plan[key])}): the design was edited or the log mixes runs", path=path)
        missing = tuple(x for x in plan[key] if x not in asked)
        if missing:
            result.incomplete[key] = missing
        else:
            result.complete.append(key)
    seen = {str(q) for q in observed}
    result.absent = [q for q in ids if q not in seen]
    return result
