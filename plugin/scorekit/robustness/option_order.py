"""One question's option order: where its options are shown, its arrangements, and what the
model is asked in each (harness-free; the lm-eval adapter is :mod:`scorekit.lm_eval.task_variants`).

A question is the task's own rendered prompt, the choices it scores and the gold choice. Its
**layout** (:func:`find_layout`) says how the options are shown:

- a label style (``"A. line"``, ``"(A) inline"``, ...): the choices are labels and the prompt
  writes an option after each (:func:`scorekit.robustness.shown_options.locate_labelled`); the
  labels stay, the option texts move;
- ``"text"``: the choices are the option texts and the prompt lists them
  (:func:`~scorekit.robustness.shown_options.locate_texts`); the listed texts move and the
  choices are scored in the order shown;
- ``"converted"`` (``--show-options``, for a question whose prompt shows no option list): the
  prompt is followed by lettered lines of the options and the letters are scored
  (:func:`~scorekit.robustness.shown_options.show_options`).

``display`` lists the choice shown at each display position, in the prompt's order. An
arrangement is ``order``, the choice whose option is shown at each display position
(:func:`arrangement_orders`, rotations or swaps of the display order); its ``variant`` is the
gold's display position. :func:`ask` gives the prompt and the scored continuations of one
arrangement, :func:`target` the index of the correct continuation, :func:`answer` the option a
chosen continuation names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scorekit.robustness.shown_options import letters, locate, rearrange, show_options
from scorekit.robustness.task_variants import arrangements

__all__ = ["Layout", "find_layout", "arrangement_orders", "ask", "check", "target", "positions", "CONVERTED", "TEXT"]

CONVERTED = "converted"
TEXT = "text"


@dataclass(frozen=True)
class Layout:
    """How one question shows its options: ``style`` (a label style, ``"text"`` or
    ``"converted"``), ``display`` (the choice at each display position) and ``contents`` (each
    choice's option text, by choice index: what answers are compared by; a label the prompt
    does not show is its own text)."""

    style: str
    display: tuple[int, ...]
    contents: tuple[str, ...]


def find_layout(prompt: str, choices: Sequence[str], *, convert: bool = False) -> Layout:
    """The layout of a question whose prompt is ``prompt`` and whose scored choices are
    ``choices``; ``convert``: ask it as lettered options (the choices are the option texts).
    ValueError saying why when the prompt does not show its options (see
    :mod:`scorekit.robustness.shown_options`).

    >>> find_layout("Q?\\nA. red\\nB. blue\\nAnswer:", ["A", "B"])
    Layout(style='A. line', display=(0, 1), contents=('red', 'blue'))
    >>> find_layout("Is it True, False, or Neither?", ["True", "Neither", "False"]).display
    (0, 2, 1)
    """
    if convert:
        return Layout(CONVERTED, tuple(range(len(choices))), tuple(" ".join(str(c).split()) for c in choices))
    shown = locate(prompt, choices)
    if shown.style == TEXT:
        return Layout(TEXT, shown.choice_of, tuple(str(c).strip() for c in choices))
    texts = shown.by_choice(prompt)
    return Layout(shown.style, shown.choice_of, tuple(texts.get(i, str(c).strip()) for i, c in enumerate(choices)))


def arrangement_orders(layout: Layout, gold: int, scheme: str = "cyclic") -> list[tuple[int, list[int]]]:
    """``[(gold's display position, order)]`` of every arrangement (``cyclic``: the rotations
    of the display order; ``swap``: the gold swapped into each position), sorted by position;
    ``order[i]`` is the choice whose option is shown at display position i.

    >>> arrangement_orders(Layout("text", (0, 2, 1), ("True", "Neither", "False")), 1)
    [(0, [1, 0, 2]), (1, [2, 1, 0]), (2, [0, 2, 1])]
    """
    display = list(layout.display)
    if gold not in display:
        raise ValueError(f"the gold {layout.contents[gold]!r} is not among the {len(display)} options the prompt shows")
    return [(p, [display[x] for x in arr]) for p, arr in arrangements(len(display), display.index(gold), scheme)]


def ask(prompt: str, choices: Sequence[str], style: str, order: Sequence[int]) -> tuple[str, list[str]]:
    """The prompt and the scored continuations of the arrangement ``order`` of a question
    (``prompt``/``choices`` as the task renders them, ``style`` its layout's).

    >>> ask("Is it True, False, or Neither?", ["True", "Neither", "False"], "text", [1, 0, 2])
    ('Is it Neither, True, or False?', ['Neither', 'True', 'False'])
    >>> ask("Which is a mammal?\\nAnswer:", ["shark", "whale"], "converted", [1, 0])
    ('Which is a mammal?\\nA. whale\\nB. shark\\nAnswer:', ['A', 'B'])
    """
    if style == CONVERTED:
        return show_options(prompt, [choices[c] for c in order]), letters(len(choices))
    text = rearrange(prompt, locate(prompt, choices), order)
    return text, ([str(choices[c]) for c in order] if style == TEXT else list(choices))


def positions(layout: Layout, n_scored: int) -> list[int]:
    """The display position each scored continuation names: labels name where their marker
    is (-1: a label the prompt does not show); texts and letters are scored in display order."""
    if layout.style in (TEXT, CONVERTED):
        return list(range(n_scored))
    return [layout.display.index(c) if c in layout.display else -1 for c in range(n_scored)]


def target(layout_style: str, display: Sequence[int], variant: int) -> int:
    """The index of the correct continuation when the gold is shown at display position
    ``variant``: the label written there, or (texts, letters) the position itself."""
    return variant if layout_style in (TEXT, CONVERTED) else int(display[variant])


def check(prompt: str, choices: Sequence[str], layout: Layout, order: Sequence[int], variant: int,
          gold: int) -> tuple[str, list[str]]:
    """:func:`ask` for one arrangement, after checking that what the model reads shows the
    gold's option at display position ``variant`` (the options found again in the rearranged
    prompt); ValueError when rearranging made them ambiguous."""
    text, scored = ask(prompt, choices, layout.style, order)
    if layout.style == CONVERTED:
        return text, scored
    again = locate(text, choices)
    if len(again.choice_of) != len(layout.display):
        raise ValueError("the options cannot be moved apart: rearranged, the prompt shows "
                         f"{len(again.choice_of)} options, not {len(layout.display)}")
    if layout.style == TEXT:
        if again.choice_of[variant] != gold:
            raise ValueError(f"the options cannot be moved apart: rearranged to show the gold at position {variant + 1}, "
                             f"the prompt lists {str(choices[again.choice_of[variant]])[:40]!r} there")
        return text, scored
    shown_there = again.by_choice(text).get(again.choice_of[variant], "")
    want = layout.contents[gold]
    if " ".join(shown_there.split()) != " ".join(want.split()):
        raise ValueError(f"the options cannot be moved apart: rearranged to show the gold at position {variant + 1}, "
                         f"the prompt shows {shown_there[:40]!r} there, not {want[:40]!r}")
    return text, scored
