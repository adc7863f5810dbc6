"""Format variations of a prompt: the same words under other separators, casing and spacing.

Harness-free; the core of ``scorekit variants --family prompt --formats N`` (docs/variants.md,
"Format variations"). Sclar et al. (2023, "Quantifying Language Models' Sensitivity to Spurious
Features in Prompt Design", FormatSpread) describe a prompt as fields, each a *descriptor* and
a *text* ("Question: ..."), joined by spacing, and vary only what carries no meaning: the
separator between descriptor and text, the casing of descriptors, the spacing between fields
and the style of enumeration labels. Accuracy moved by up to 76 points between such formats.

A prompt is read line by line (runs of white space holding a line break join the lines):

- an **option list**: two or more consecutive lines ``A. text``, ``(A) text``, ``A) text``,
  ``A: text`` or ``[A] text``, one style, labels consecutive from ``A``, ``a`` or ``1``;
- a **field**: ``Descriptor SEP text`` where the descriptor is one to four words of letters and
  SEP is ``:`` (``::``, ``:::``) or `` -`` with the white space around it (``Question: ...``,
  ``Passage -\\n...``). A descriptor alone on a line followed by a plain line is a field whose
  separator holds the line break (``Question:\\n...``);
- a **heading** or, as the last line, the **answer cue**: a descriptor with nothing after it
  (``Choices:``, ``Answer:``);
- anything else is **plain** text, never changed.

A :class:`Format` chooses, for each dimension, a value or ``None`` ("as written"):

=============  ===========================================================================
separator      between descriptor and text, one for every field (:data:`SEPARATORS`); a
               heading and the answer cue get it with trailing white space removed
casing         of every descriptor, the cue's too: as written, UPPER, lower, Title
joiner         between the prompt's blocks (fields, plain lines, the option list, the cue)
cue            the answer cue's word, ``Answer`` or ``A`` (only when the cue is one of them
               and no option list is shown, where ``A:`` would read as a label)
label          the option labels' decoration: ``(A)`` ``A.`` ``A)`` ``A:`` (a list written
               ``[A]`` is read, and rewritten in these)
numbering      the labels themselves, ``A`` ``a`` ``1`` ``I`` ``i``: only with
               ``relabel=True``, for a task scored on the option texts (a task scored on
               the letters must keep them)
=============  ===========================================================================

The wording never changes: every plain line, every field's text, every option's text and the
white space inside them are written as they are; only descriptors' casing, the cue's word,
separators, joiners and labels change. Format 0 (every dimension ``None``) gives the prompt
back character for character.

:func:`variations` draws N distinct formats (distinct rendered text) from the grammar with a
seeded permutation of all its combinations: the same prompt, N and seed give the same formats,
and N larger than the grammar gives :class:`FormatError` saying the maximum.
:func:`template_variations` does the same for a jinja template (lm-eval's ``doc_to_text``):
its ``{{ ... }}``, ``{% ... %}`` and ``{# ... #}`` blocks are kept whole, standing in the text
as placeholders, so document fields are never touched.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, replace
from typing import Union

__all__ = ["Format", "FormatError", "Field", "Options", "Prompt", "parse", "render", "grammar", "variations",
           "template_variations", "mask_template", "SEPARATORS", "JOINERS", "CASINGS", "LABELS", "NUMBERINGS"]

SEPARATORS: tuple[str, ...] = (": ", " : ", " :: ", " ::: ", " - ", ":\n", "\n", " ", "\t")
JOINERS: tuple[str, ...] = ("\n", "\n\n", " ", " || ", " -- ", "; \n", "\t")
CASINGS: tuple[str, ...] = ("upper", "lower", "title")
CUES: tuple[str, ...] = ("Answer", "A")
# label styles a list is rewritten in: those the option locator (robustness.shown_options) finds at
# a line start and inside a line alike, since a joiner without a line break puts "A" mid-line
LABELS: tuple[str, ...] = ("({})", "{}.", "{})", "{}:")
NUMBERINGS: tuple[str, ...] = ("A", "a", "1", "I", "i")

# jinja blocks stand in the text as one private-use character each: expressions (and other
# inline blocks) from U+E000, statements and comments from U+F000 (see mask_template)
_EXPR, _STMT, _END = 0xE000, 0xF000, 0xF900
_PLACEHOLDER = "\ue000-\uf8ff"
_STMT_PREFIX = "[\uf000-\uf8ff]*"  # statements at a line start ({% if %}) stand before its structure
_WORD = r"[A-Za-z][A-Za-z'’]*"
_FIELD = re.compile(rf"^(?P<pre>{_STMT_PREFIX})(?P<desc>{_WORD}(?: {_WORD}){{0,3}})"
                    rf"(?P<sep>[ \t]*:{{1,3}}(?=[\s{_PLACEHOLDER}]|$)[ \t]*|[ \t]+-(?=\s|$)[ \t]*)(?P<text>.*)$", re.S)
_OPTION_STYLES: tuple[tuple[str, str], ...] = (
    ("({})", r"\((?P<l>[A-Za-z]|\d{1,2})\)"), ("{}.", r"(?P<l>[A-Za-z]|\d{1,2})\."),
    ("{})", r"(?P<l>[A-Za-z]|\d{1,2})\)"), ("{}:", r"(?P<l>[A-Za-z]|\d{1,2}):"), ("[{}]", r"\[(?P<l>[A-Za-z]|\d{1,2})\]"),
)
_OPTION = [(style, re.compile(rf"^(?P<pre>{_STMT_PREFIX}){mark}(?P<gap>[ \t]+)(?P<text>\S.*)$", re.S))
           for style, mark in _OPTION_STYLES]
_RUNS = ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ROMAN = ((10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


class FormatError(ValueError):
    """The prompt has no format to vary, or fewer formats than asked (``maximum``: how many
    distinct formats its grammar gives, the prompt's own included)."""

    def __init__(self, message: str, maximum: int | None = None) -> None:
        super().__init__(message)
        self.maximum = maximum


@dataclass(frozen=True)
class Field:
    """One line: ``pre`` (statement placeholders), then ``descriptor`` + ``separator`` + ``text``
    (``descriptor`` None: a plain line, all in ``text``; ``text`` "": a heading or the cue)."""

    descriptor: str | None
    separator: str
    text: str
    pre: str = ""


@dataclass(frozen=True)
class Options:
    """An option list: line i is ``pre[i] + style.format(labels[i]) + gaps[i] + texts[i]``, lines
    joined by ``joiners`` as written."""

    style: str
    labels: tuple[str, ...]
    gaps: tuple[str, ...]
    texts: tuple[str, ...]
    joiners: tuple[str, ...]
    pre: tuple[str, ...]


Block = Union[Field, Options]


@dataclass(frozen=True)
class Prompt:
    """A parsed prompt: ``lead + blocks[0] + joiners[0] + blocks[1] + ... + trail``."""

    lead: str
    blocks: tuple[Block, ...]
    joiners: tuple[str, ...]
    trail: str

    @property
    def cue(self) -> Field | None:
        """The answer cue: the last block when it is a descriptor with no text."""
        last = self.blocks[-1] if self.blocks else None
        return last if isinstance(last, Field) and last.descriptor is not None and not last.text else None

    @property
    def options(self) -> list[Options]:
        return [b for b in self.blocks if isinstance(b, Options)]


@dataclass(frozen=True)
class Format:
    """One choice per dimension; None keeps what the prompt writes (module docstring)."""

    separator: str | None = None
    casing: str | None = None
    joiner: str | None = None
    cue: str | None = None
    label: str | None = None
    numbering: str | None = None


def _option_line(line: str) -> tuple[str, re.Match] | None:
    for style, pattern in _OPTION:
        m = pattern.match(line)
        if m:
            return style, m
    return None


def _label_run(labels: list[str]) -> bool:
    """Labels consecutive from the first of an alphabet: A B C, a b c, 1 2 3."""
    if labels[0].isdigit():
        return labels == [str(i) for i in range(1, len(labels) + 1)]
    return any("".join(labels) == run[: len(labels)] for run in _RUNS)


def parse(prompt: str) -> Prompt:
    """The structure of ``prompt`` (module docstring); :func:`render` with ``Format()`` gives it back.

    >>> p = parse("Question: What is 2+2?\\nA. 3\\nB. 4\\nAnswer:")
    >>> [type(b).__name__ for b in p.blocks], p.cue.descriptor, p.options[0].texts
    (['Field', 'Options', 'Field'], 'Answer', ('3', '4'))
    """
    stripped = prompt.strip()
    if not stripped:
        return Prompt(prompt, (), (), "")
    start = prompt.index(stripped[0])
    lead, core, trail = prompt[:start], stripped, prompt[start + len(stripped):]
    parts = re.split(r"([ \t]*\n\s*)", core)  # lines, and the white space (with a line break) joining them
    lines, joins = parts[0::2], parts[1::2]
    blocks: list[Block] = []
    joiners: list[str] = []
    i = 0
    while i < len(lines):
        if i:
            joiners.append(joins[i - 1])
        # an option list: two or more lines of one style with consecutive labels
        first = _option_line(lines[i])
        if first is not None:
            style, m = first
            run = [m]
            j = i + 1
            while j < len(lines):
                nxt = _option_line(lines[j])
                if nxt is None or nxt[0] != style:
                    break
                run.append(nxt[1])
                j += 1
            while len(run) >= 2 and not _label_run([r["l"] for r in run]):
                run.pop()
            if len(run) >= 2:
                k = len(run)
                blocks.append(Options(style, tuple(r["l"] for r in run), tuple(r["gap"] for r in run),
                                      tuple(r["text"] for r in run), tuple(joins[i:i + k - 1]), tuple(r["pre"] for r in run)))
                i += k
                continue
        m = _FIELD.match(lines[i])
        if m is None:
            blocks.append(Field(None, "", lines[i]))
        elif m["text"] or i == len(lines) - 1:
            blocks.append(Field(m["desc"], m["sep"], m["text"], m["pre"]))
        else:  # a descriptor alone: its text on the next line when that line is plain text
            nxt = lines[i + 1]
            if _option_line(nxt) is None and _FIELD.match(nxt) is None:
                blocks.append(Field(m["desc"], m["sep"] + joins[i], nxt, m["pre"]))
                i += 2
                continue
            blocks.append(Field(m["desc"], m["sep"], "", m["pre"]))
        i += 1
    return Prompt(lead, tuple(blocks), tuple(joiners), trail)


def _case(word: str, casing: str | None) -> str:
    if casing == "upper":
        return word.upper()
    if casing == "lower":
        return word.lower()
    if casing == "title":
        return " ".join(w[:1].upper() + w[1:].lower() for w in word.split(" "))
    return word


def _roman(n: int) -> str:
    out = ""
    for value, numeral in _ROMAN:
        while n >= value:
            out += numeral
            n -= value
    return out


def _number(i: int, numbering: str) -> str:
    """The label of option ``i`` (0-based) in ``numbering``.

    >>> [_number(i, n) for n in NUMBERINGS for i in (0, 3)]
    ['A', 'D', 'a', 'd', '1', '4', 'I', 'IV', 'i', 'iv']
    """
    if numbering == "1":
        return str(i + 1)
    if numbering in ("I", "i"):
        roman = _roman(i + 1)
        return roman if numbering == "I" else roman.lower()
    run = _RUNS[0] if numbering == "A" else _RUNS[1]
    return run[i] if i < len(run) else str(i + 1)


def _render_field(f: Field, fmt: Format, is_cue: bool) -> str:
    if f.descriptor is None:
        return f.pre + f.text
    word = fmt.cue if is_cue and fmt.cue is not None else f.descriptor
    sep = f.separator
    if fmt.separator is not None:
        sep = fmt.separator if f.text else fmt.separator.rstrip()
    return f.pre + _case(word, fmt.casing) + sep + f.text


def _render_options(o: Options, fmt: Format) -> str:
    style = fmt.label or o.style
    out = []
    for i, (label, gap, text, pre) in enumerate(zip(o.labels, o.gaps, o.texts, o.pre)):
        shown = _number(i, fmt.numbering) if fmt.numbering else label
        out.append(pre + style.format(shown) + gap + text)
        if i < len(o.joiners):
            out.append(o.joiners[i])
    return "".join(out)


def render(prompt: Prompt, fmt: Format) -> str:
    """``prompt`` written in ``fmt``.

    >>> p = parse("Question: What is 2+2?\\nA. 3\\nB. 4\\nAnswer:")
    >>> print(render(p, Format(separator=" - ", casing="upper", joiner=" || ", label="({})")))
    QUESTION - What is 2+2? || (A) 3
    (B) 4 || ANSWER -
    """
    out = [prompt.lead]
    cue = prompt.cue
    for i, block in enumerate(prompt.blocks):
        if i:
            out.append(fmt.joiner if fmt.joiner is not None else prompt.joiners[i - 1])
        if isinstance(block, Options):
            out.append(_render_options(block, fmt))
        else:
            out.append(_render_field(block, fmt, block is cue))
    out.append(prompt.trail)
    return "".join(out)


def grammar(prompt: Prompt, *, relabel: bool = False) -> dict[str, list[str | None]]:
    """The values each dimension can take for ``prompt``: ``[None, ...]``, only those that
    change the prompt and change it differently (a dimension the prompt does not have, e.g.
    ``label`` without an option list, is ``[None]``).

    >>> g = grammar(parse("Question: Why?\\nAnswer:"))
    >>> len(g["separator"]), g["casing"], len(g["joiner"]), g["cue"], g["label"]
    (9, [None, 'upper', 'lower'], 7, [None, 'A'], [None])
    """
    has_desc = any(isinstance(b, Field) and b.descriptor is not None for b in prompt.blocks)
    cue = prompt.cue
    candidates: dict[str, tuple[str, ...]] = {
        "separator": SEPARATORS if has_desc else (),
        "casing": CASINGS if has_desc else (),
        "joiner": JOINERS if len(prompt.blocks) > 1 else (),
        "cue": CUES if cue is not None and cue.descriptor.lower() in ("answer", "a") and not prompt.options else (),
        "label": LABELS if prompt.options else (),
        "numbering": NUMBERINGS if prompt.options and relabel else (),
    }
    out: dict[str, list[str | None]] = {}
    for dim, values in candidates.items():
        seen = {render(prompt, Format())}
        kept: list[str | None] = [None]
        for value in values:
            text = render(prompt, replace(Format(), **{dim: value}))
            if text not in seen:
                seen.add(text)
                kept.append(value)
        out[dim] = kept
    return out


def variations(prompt: str, n: int, *, seed: int = 0, relabel: bool = False) -> list[tuple[Format, str]]:
    """``n`` distinct formats of ``prompt`` and their texts, the prompt as written first.

    The formats after the first are the first distinct renderings along a permutation of all
    the grammar's combinations drawn with ``random.Random(seed)``. FormatError when the prompt
    has nothing to vary or fewer than ``n`` formats (its ``maximum`` says how many).

    >>> [text for _, text in variations("Question: Why?\\nAnswer:", 3, seed=1)]
    ['Question: Why?\\nAnswer:', 'QUESTION : Why?\\tA :', 'question\\nWhy?\\tanswer']
    >>> variations("Why?", 2)
    Traceback (most recent call last):
    ...
    scorekit.robustness.formats.FormatError: the prompt has no descriptors, answer cue, option list or separate lines whose format could vary
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    parsed = parse(prompt)
    g = grammar(parsed, relabel=relabel)
    dims = list(g)
    sizes = [len(g[d]) for d in dims]
    total = math.prod(sizes)
    if total == 1:
        raise FormatError("the prompt has no descriptors, answer cue, option list or separate lines whose format "
                          "could vary", maximum=1)
    original = render(parsed, Format())
    out: list[tuple[Format, str]] = [(Format(), original)]
    seen = {original}
    if n > 1:
        rng = random.Random(seed)
        for index in rng.sample(range(1, total), total - 1):
            values, rest = [], index
            for size, dim in zip(reversed(sizes), reversed(dims)):
                rest, k = divmod(rest, size)
                values.append((dim, g[dim][k]))
            fmt = Format(**dict(values))
            text = render(parsed, fmt)
            if text in seen:
                continue
            seen.add(text)
            out.append((fmt, text))
            if len(out) == n:
                break
    if len(out) < n:
        raise FormatError(f"{n} formats asked; the prompt's format grammar gives at most {len(out)} (its own included)",
                          maximum=len(out))
    return out


def mask_template(template: str) -> tuple[str, list[str]]:
    """``template`` with each jinja block (``{{ }}``, ``{% %}``, ``{# #}``) replaced by one
    private-use character, and the blocks in order; :func:`unmask` puts them back.

    >>> mask_template("Q: {{ q }}{% if x %}!{% endif %}")
    ('Q: \\ue000\\uf001!\\uf002', ['{{ q }}', '{% if x %}', '{% endif %}'])
    """
    if re.search(f"[{_PLACEHOLDER}]", template):
        raise FormatError("the template holds private-use characters (U+E000-U+F8FF); it cannot be varied")
    blocks: list[str] = []

    def keep(m: re.Match) -> str:
        blocks.append(m.group(0))
        base = _EXPR if m.group(0).startswith("{{") else _STMT
        if base + len(blocks) - 1 >= (_STMT if base == _EXPR else _END):
            raise FormatError("the template has too many jinja blocks to vary")
        return chr(base + len(blocks) - 1)

    masked = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", keep, template, flags=re.S)
    return masked, blocks


def unmask(masked: str, blocks: list[str]) -> str:
    """The inverse of :func:`mask_template`."""
    def back(m: re.Match) -> str:
        code = ord(m.group(0))
        return blocks[code - (_EXPR if code < _STMT else _STMT)]

    return re.sub(f"[{_PLACEHOLDER}]", back, masked)


def template_variations(template: str, n: int, *, seed: int = 0, relabel: bool = False) -> list[tuple[Format, str]]:
    """:func:`variations` of a jinja template: its blocks are never changed, only the text
    between them (so every document field is rendered as the task renders it).

    >>> [t for _, t in template_variations("Question: {{question}}\\nAnswer:", 2, seed=0)]
    ['Question: {{question}}\\nAnswer:', 'question - {{question}}\\n\\nanswer -']
    """
    masked, blocks = mask_template(template)
    return [(fmt, unmask(text, blocks)) for fmt, text in variations(masked, n, seed=seed, relabel=relabel)]
