"""A family's records as the matrix the budget estimates read, and the design a log records.

The glue between the readers (records, one per answer) and
:mod:`scorekit.robustness.budget.estimate` (an (N, V) correctness matrix with NaN where a
question was not asked a variant). Used by ``scorekit robustness`` (estimates of a budgeted
run), ``scorekit plan --robustness --pilot`` and ``scorekit compare`` (two budgeted runs).

**Where a log keeps its design.** A task written with ``scorekit variants --budget B`` gives
every expanded document ``_robust.design = {variants, per_question, seed}`` and
``_robust.design_questions`` (how many questions the design was made for; a variant task's
question ids are the row indices 0..N-1, so the ids are known even when ``--limit`` cut the
run). :func:`design_of_doc` reads them; a full run has no ``design`` (or ``null``).

**What is checked** (:func:`check_family`): every question's variants are among those the
design gives it (:func:`~scorekit.robustness.budget.design.check_design`); a question with
fewer (``--limit`` cut it) is left out and said. A log whose every question lacks variants
in the same way but that records no design is a budgeted log that lost its design: refused
(:func:`lost_design`), since reading it as a full run would leave out every question.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from scorekit.robustness.budget.design import BudgetError, Design, DesignError, check_design

__all__ = ["FamilyMatrix", "family_matrix", "design_of_doc", "check_family", "lost_design", "lost_design_message", "answer_counts"]


@dataclass
class FamilyMatrix:
    """One family's answers: ``correct`` (N, V) 1/0/NaN (not asked), ``agree`` agreeing pairs per
    question among its asked answers, ``answers`` per question {variant: answer}, ``weights``
    per question (macro: 1 / (categories x category size); else equal), ``unparsed`` answers."""

    question_ids: list[str]
    n_variants: int
    correct: np.ndarray
    agree: np.ndarray
    answers: list[dict[int, Any]]
    weights: np.ndarray
    unparsed: int = 0
    n_records: int = 0
    notes: list[str] = field(default_factory=list)

    def asked(self) -> dict[str, list[int]]:
        return {q: sorted(a) for q, a in zip(self.question_ids, self.answers)}

    def parsed(self) -> np.ndarray:
        """Per question, how many of its asked answers parsed (are not None)."""
        return np.array([sum(a is not None for a in d.values()) for d in self.answers], dtype=float)

    def subset(self, keep: Sequence[str]) -> FamilyMatrix:
        """The questions of ``keep`` (in this matrix's order); weights renormalised."""
        wanted = set(keep)
        idx = [i for i, q in enumerate(self.question_ids) if q in wanted]
        w = self.weights[idx]
        answers = [self.answers[i] for i in idx]
        return FamilyMatrix([self.question_ids[i] for i in idx], self.n_variants, self.correct[idx], self.agree[idx],
                            answers, w / w.sum() if w.size else w,
                            sum(a is None for d in answers for a in d.values()), sum(len(d) for d in answers),
                            list(self.notes))


def family_matrix(records: Iterable[Any], *, equal: Callable[[Any, Any], bool] | None = None,
                  macro: bool = False) -> FamilyMatrix:
    """The matrix of one family's records (:class:`~scorekit.robustness.records.Record`).

    Raises :class:`BudgetError` when the questions have different numbers of variants (a
    design has one V), or a question has one variant twice."""
    from scorekit.metrics.consistency import consistency_counts

    by_q: dict[str, dict[int, Any]] = {}
    right: dict[str, dict[int, bool]] = {}
    nvar: dict[str, int] = {}
    category: dict[str, str] = {}
    for r in records:
        q = str(r.question_id)
        if q in nvar and nvar[q] != int(r.n_variants):
            raise BudgetError(f"question {q!r}: records disagree on the number of variants ({nvar[q]} vs {r.n_variants})")
        nvar[q] = int(r.n_variants)
        slot = by_q.setdefault(q, {})
        if int(r.variant) in slot:
            raise BudgetError(f"question {q!r}: variant {r.variant} appears more than once")
        slot[int(r.variant)] = r.answer
        right.setdefault(q, {})[int(r.variant)] = bool(r.correct)
        category[q] = str(r.category)
    if not by_q:
        raise BudgetError("no records")
    sizes = sorted(set(nvar.values()))
    if len(sizes) > 1:
        raise BudgetError(f"the questions have different numbers of variants ({', '.join(map(str, sizes[:4]))}); "
                          "a budgeted design has one number of variants per family")
    v = sizes[0]
    ids = list(by_q)
    y = np.full((len(ids), v), np.nan)
    for i, q in enumerate(ids):
        for j, ok in right[q].items():
            if not 0 <= j < v:
                raise BudgetError(f"question {q!r}: variant {j} outside 0..{v - 1}")
            y[i, j] = float(ok)
    groups = [[by_q[q][j] for j in sorted(by_q[q])] for q in ids]
    agree, _ = consistency_counts(groups, equal=equal)
    if macro:
        cats = [category[q] for q in ids]
        size = Counter(cats)
        w = np.array([1.0 / (len(size) * size[c]) for c in cats])
    else:
        w = np.full(len(ids), 1.0 / len(ids))
    n_records = sum(len(g) for g in groups)
    unparsed = sum(a is None for g in groups for a in g)
    return FamilyMatrix(ids, v, y, np.asarray(agree, dtype=np.float64), [by_q[q] for q in ids], w, unparsed, n_records)


def answer_counts(answers: dict[int, Any], equal: Callable[[Any, Any], bool] | None = None) -> list[int]:
    """How many of a question's parsed answers take each distinct value (unparsed left out): the
    input of :func:`scorekit.robustness.budget.plan.pair_share_variance`."""
    reps: list[Any] = []
    counts: list[int] = []
    for a in answers.values():
        if a is None:
            continue
        for k, r in enumerate(reps):
            if (equal(a, r) if equal is not None else a == r):
                counts[k] += 1
                break
        else:
            reps.append(a)
            counts.append(1)
    return counts


def design_of_doc(meta: Any, *, path: str | None = None, where: str = "design") -> tuple[Design | None, int | None]:
    """(the design, the number of questions it was made for) recorded in a variant document's
    ``_robust`` (or a SCORE document), or (None, None) for a full run. A malformed design raises
    :class:`BudgetError` naming ``path`` and ``where``."""
    if not isinstance(meta, dict) or meta.get("design") is None:
        return None, None
    design = Design.from_json(meta["design"], path=path, where=where)
    n = meta.get("design_questions")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise BudgetError(f"design_questions must be a positive integer, got {n!r}", path=path, where=where)
    return design, n


def check_family(matrix: FamilyMatrix, design: Design, design_questions: int | None, *,
                 path: str | None = None, design_ids: dict[str, str] | None = None) -> FamilyMatrix:
    """The questions of ``matrix`` that were asked all the variants ``design`` gives them.

    ``design_ids``: question id -> the id the design was made with (a SCORE task's budget is
    made over the row numbers 0..N-1 of its split, as a variant task's, while its question ids
    are the dataset's: ``_robust``-less documents record ``design_row``); every question of the
    matrix must have one. Raises :class:`~scorekit.robustness.budget.design.DesignError` (one line, naming ``path``)
    when the log's V is not the design's, or a question was asked a variant the design does not
    give it (the design or the log was edited, or runs were mixed). Questions cut short are
    left out with a note."""
    if design_ids is not None:
        return _check_renamed(matrix, design, design_questions, path, design_ids)
    if matrix.n_variants != design.variants:
        raise DesignError(f"the log's questions have {matrix.n_variants} variants, its design {design.variants}: the "
                          "design was edited", path=path)
    ids = None
    if design_questions is not None:
        if len(matrix.question_ids) > design_questions:
            raise DesignError(f"the log has {len(matrix.question_ids)} questions, more than the {design_questions} its "
                              "design was made for", path=path)
        if all(q.isdigit() and int(q) < design_questions for q in matrix.question_ids):
            ids = [str(i) for i in range(design_questions)]
        elif len(matrix.question_ids) != design_questions:
            raise DesignError(f"the log has {len(matrix.question_ids)} of the {design_questions} questions its design "
                              "was made for, and their ids are not row numbers: the assignment cannot be checked",
                              path=path)
    checked = check_design(matrix.asked(), design, ids, path=path)
    if not checked.incomplete:
        return matrix
    out = matrix.subset(checked.complete)
    out.notes.append(f"{len(checked.incomplete)} question(s) were asked only some of the {design.per_question} variants "
                     "their design gives them (a run cut by --limit?) and are left out of every number")
    return out


def _check_renamed(matrix: FamilyMatrix, design: Design, design_questions: int | None, path: str | None,
                   design_ids: dict[str, str]) -> FamilyMatrix:
    """:func:`check_family` on the design's ids, returned under the matrix's own ids."""
    missing = [q for q in matrix.question_ids if q not in design_ids]
    if missing:
        raise DesignError(f"question {missing[0]!r} records no design_row: the design was edited", path=path)
    renamed = [design_ids[q] for q in matrix.question_ids]
    if len(set(renamed)) != len(renamed):
        raise DesignError("two questions record the same design_row: the design was edited", path=path)
    back = dict(zip(renamed, matrix.question_ids))
    checked = check_family(replace(matrix, question_ids=renamed, notes=list(matrix.notes)), design, design_questions,
                           path=path)
    if len(checked.question_ids) == len(renamed):
        return matrix
    out = matrix.subset([back[q] for q in checked.question_ids])
    out.notes = checked.notes
    return out


def lost_design_message(asked: int, variants: int, field: str = "_robust.design") -> str | None:
    """Why a log without a design whose every question was asked ``asked`` of its ``variants``
    variants looks budgeted (2 <= asked < variants), or None. ``field``: where the log would
    record it (lighteval's details: ``doc.specific.robust.design``)."""
    if 2 <= asked < variants:
        return (f"every question was asked {asked} of its {variants} variants but the log records no design "
                f"({field}): a budgeted log that lost its design; run it again from the task files "
                "scorekit variants --budget wrote")
    return None


def lost_design(matrix: FamilyMatrix) -> str | None:
    """:func:`lost_design_message` of a matrix whose every question (of two or more) was asked
    the same number of variants, else None."""
    asked = {len(a) for a in matrix.answers}
    if len(matrix.question_ids) >= 2 and len(asked) == 1:
        return lost_design_message(asked.pop(), matrix.n_variants)
    return None
