"""The per-answer record that every SCORE analysis consumes (schema in :mod:`scorekit.robustness`)."""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple, overload

from scorekit.errors import ScorekitError

FAMILIES: tuple[str, ...] = ("prompt", "option_order", "non_greedy")
_FAMILY_SET = frozenset(FAMILIES)


class Record(NamedTuple):
    """One model answer to one variant of one question (see :mod:`scorekit.robustness`)."""

    question_id: str
    family: str
    variant: int
    n_variants: int
    category: str
    answer: Hashable | None
    correct: bool


def as_record(value: Any, *, where: str | None = None) -> Record:
    """A :class:`Record` from a Record, a 7-item sequence (lm-eval sample logs) or a mapping.

    Raises ScorekitError (naming ``where``) for anything else or an unknown family.
    """
    if isinstance(value, Record):
        rec = value
    elif isinstance(value, dict):
        try:
            rec = Record(**{k: value[k] for k in Record._fields})
        except KeyError as exc:
            raise ScorekitError(f"SCORE record lacks field {exc.args[0]!r}", where=where) from None
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and len(value) == len(Record._fields):
        rec = Record(*value)
    else:
        raise ScorekitError(
            f"not a SCORE record (expected {len(Record._fields)} fields {list(Record._fields)}): {value!r:.120}",
            where=where,
        )
    if rec.family not in FAMILIES:
        raise ScorekitError(f"unknown SCORE family {rec.family!r} (expected one of {list(FAMILIES)})", where=where)
    answer = rec.answer
    if isinstance(answer, list):  # JSON round trip of a tuple-valued answer
        answer = tuple(answer)
    return Record(str(rec.question_id), rec.family, int(rec.variant), int(rec.n_variants), str(rec.category), answer, bool(rec.correct))


def _normalized(rec: Record) -> bool:
    """True when :func:`as_record` would return ``rec`` unchanged (as :func:`record_for` makes them)."""
    return (rec.family in _FAMILY_SET and type(rec.question_id) is str and type(rec.variant) is int
            and type(rec.n_variants) is int and type(rec.category) is str and type(rec.correct) is bool
            and type(rec.answer) is not list)


def records_from_items(items: Iterable[Any], *, where: str | None = None) -> list[Record]:
    """Flatten lm-eval metric items into records.

    An item is one record or a list of records (the non-greedy family logs the five samples of
    a question as one item).
    """
    out: list[Record] = []
    for i, item in enumerate(items):
        if type(item) is Record and _normalized(item):
            out.append(item)
            continue
        here = f"{where}: item {i}" if where else f"item {i}"
        if isinstance(item, Record) or (
            isinstance(item, Sequence) and len(item) == len(Record._fields) and isinstance(item[1], str)
        ) or isinstance(item, dict):
            out.append(as_record(item, where=here))
        elif isinstance(item, Sequence) and not isinstance(item, (str, bytes)):
            out.extend(sub if type(sub) is Record and _normalized(sub) else as_record(sub, where=here) for sub in item)
        else:
            raise ScorekitError(f"not a SCORE record or list of records: {item!r:.120}", where=here)
    return out


class RecordColumns(Sequence[Record]):
    """Records held column by column: the same sequence of :class:`Record` (indexing and
    iteration build them on the fly), kept compactly for large logs.

    Each distinct question id, family and category is stored once; a record costs 34 bytes:
    question, family and category codes (4 + 1 + 4), variant and n_variants (8 each), its
    correct flag (1) and a reference to its answer (8; multiple-choice answers are small ints,
    shared) -- against ~170 for a Record with its own strings. Codes number the distinct values in order of first appearance, so
    :func:`scorekit.robustness.analysis.summarize` reads them as its factorization.

    >>> cols = RecordColumns([Record("q1", "prompt", 0, 2, "law", 1, True)])
    >>> cols.append("q1", "prompt", 1, 2, "law", None, False)
    >>> len(cols), cols[1], cols.questions
    (2, Record(question_id='q1', family='prompt', variant=1, n_variants=2, category='law', answer=None, correct=False), ['q1'])
    """

    __slots__ = ("questions", "families", "categories", "_codes", "question", "family", "variant", "n_variants",
                 "category", "answers", "correct")

    def __init__(self, records: Iterable[Record] = ()) -> None:
        self.questions: list[str] = []
        self.families: list[str] = []
        self.categories: list[str] = []
        self._codes: tuple[dict[str, int], dict[str, int], dict[str, int]] = ({}, {}, {})
        self.question = array("i")
        self.family = array("b")
        self.variant = array("q")
        self.n_variants = array("q")
        self.category = array("i")
        self.answers: list[Hashable | None] = []
        self.correct = bytearray()
        self.extend(records)

    def append(self, question_id: str, family: str, variant: int, n_variants: int, category: str,
               answer: Hashable | None, correct: bool) -> None:
        """Add one record given as its fields (variant and n_variants must fit in 64 bits: an OverflowError otherwise)."""
        q_codes, f_codes, c_codes = self._codes
        q = q_codes.get(question_id)
        if q is None:
            q = q_codes[question_id] = len(self.questions)
            self.questions.append(question_id)
        f = f_codes.get(family)
        if f is None:
            f = f_codes[family] = len(self.families)
            self.families.append(family)
        c = c_codes.get(category)
        if c is None:
            c = c_codes[category] = len(self.categories)
            self.categories.append(category)
        self.question.append(q)
        self.family.append(f)
        self.variant.append(variant)
        self.n_variants.append(n_variants)
        self.category.append(c)
        self.answers.append(answer)
        self.correct.append(1 if correct else 0)

    def extend(self, records: Iterable[Record]) -> None:
        """Add records (Record objects or anything unpacking to the seven fields)."""
        if isinstance(records, RecordColumns):
            self._extend_columns(records)
            return
        append = self.append
        for rec in records:
            append(*rec)

    def _extend_columns(self, other: RecordColumns) -> None:
        # the other's codes renumbered into this one's (first appearance order is kept)
        renumbered = []
        for names, codes, own in zip((other.questions, other.families, other.categories), self._codes,
                                     (self.questions, self.families, self.categories)):
            table = []
            for name in names:
                code = codes.get(name)
                if code is None:
                    code = codes[name] = len(own)
                    own.append(name)
                table.append(code)
            renumbered.append(table)
        q_table, f_table, c_table = renumbered
        self.question.extend(map(q_table.__getitem__, other.question))
        self.family.extend(map(f_table.__getitem__, other.family))
        self.category.extend(map(c_table.__getitem__, other.category))
        self.variant.extend(other.variant)
        self.n_variants.extend(other.n_variants)
        self.answers.extend(other.answers)
        self.correct.extend(other.correct)

    def __len__(self) -> int:
        return len(self.correct)

    @overload
    def __getitem__(self, i: int) -> Record: ...
    @overload
    def __getitem__(self, i: slice) -> list[Record]: ...

    def __getitem__(self, i: int | slice) -> Record | list[Record]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("record index out of range")
        return Record(self.questions[self.question[i]], self.families[self.family[i]], self.variant[i],
                      self.n_variants[i], self.categories[self.category[i]], self.answers[i], bool(self.correct[i]))

    def __iter__(self) -> Iterator[Record]:
        qs, fs, cs = self.questions, self.families, self.categories
        for q, f, v, nv, c, a, ok in zip(self.question, self.family, self.variant, self.n_variants, self.category,
                                         self.answers, self.correct):
            yield Record(qs[q], fs[f], v, nv, cs[c], a, ok == 1)

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence (a list, another RecordColumns) of the same records in order."""
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"RecordColumns({len(self)} records, {len(self.questions)} questions)"


def record_columns(parts: Iterable[Iterable[Record]]) -> RecordColumns:
    """One :class:`RecordColumns` of several record sequences in order (a single RecordColumns
    is returned as it is; otherwise the records are copied)."""
    parts = list(parts)
    if len(parts) == 1 and isinstance(parts[0], RecordColumns):
        return parts[0]
    out = RecordColumns()
    for part in parts:
        out.extend(part)
    return out
