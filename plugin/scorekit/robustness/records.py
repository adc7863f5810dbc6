"""The per-answer record that every SCORE analysis consumes (schema in :mod:`scorekit.robustness`)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any, Literal, NamedTuple, get_args

from scorekit.errors import ScorekitError

Family = Literal["prompt", "option_order", "non_greedy"]  # SCORE's three families of variants
FAMILIES: tuple[Family, ...] = get_args(Family)
N_PROMPT_TEMPLATES = 10  # SCORE's prompt family: ten rephrasings of each benchmark's prompt
MAX_VARIANTS = 2**63 - 1  # the analysis holds variant numbers as 64-bit integers


class Record(NamedTuple):
    """One model answer to one variant of one question (see :mod:`scorekit.robustness`)."""

    question_id: str
    family: Family
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
    if not -MAX_VARIANTS <= int(rec.variant) <= MAX_VARIANTS or not 0 <= int(rec.n_variants) <= MAX_VARIANTS:
        raise ScorekitError(f"variant {rec.variant} of {rec.n_variants}: beyond 64 bits", where=where)
    answer = rec.answer
    if isinstance(answer, list):  # JSON round trip of a tuple-valued answer
        answer = tuple(answer)
    return Record(str(rec.question_id), rec.family, int(rec.variant), int(rec.n_variants), str(rec.category), answer, bool(rec.correct))


def records_from_items(items: Iterable[Any], *, where: str | None = None) -> list[Record]:
    """Flatten lm-eval metric items into records.

    An item is one record or a list of records (the non-greedy family logs the five samples of
    a question as one item).
    """
    out: list[Record] = []
    for i, item in enumerate(items):
        here = f"{where}: item {i}" if where else f"item {i}"
        if isinstance(item, (Record, dict)) or (
            isinstance(item, Sequence) and len(item) == len(Record._fields) and isinstance(item[1], str)
        ):
            out.append(as_record(item, where=here))
        elif isinstance(item, Sequence) and not isinstance(item, (str, bytes)):
            out.extend(as_record(sub, where=here) for sub in item)
        else:
            raise ScorekitError(f"not a SCORE record or list of records: {item!r:.120}", where=here)
    return out
