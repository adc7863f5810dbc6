"""Where a rendered prompt shows a question's options, and the prompt with them rearranged.

Harness-free; the core of ``scorekit variants``'s option order (docs/variants.md, "Where the
options are"). A multiple-choice task shows its options in many layouts: lettered lines written
from a list field (MMLU), from separate fields (``A``-``D``, ``option_a``..., ``opa``...), from a
nested dict (``choices.text``), inside the input text itself (BBH's ``(A) ...`` lines), by Python
(``!function`` prompts, ``process_docs`` building the whole query). Rather than guess which field
feeds the prompt, the task's own rendered prompt is read and the **option list** is located in it.

- **Labelled options** (the choices scored are labels: one letter of any script, Latin ``A``,
  Arabic ``أ``/``هـ``, Greek ``Α``, or a digit 1-9, optionally written ``(A)``, ``[A]``, ``A.``,
  ``A)``, ``A:``): the prompt holds one marker per shown label, all in one style:
  at the start of a line ``A.`` ``A)`` ``A:`` ``(A)`` ``[A]`` ``A．`` ``A、`` ``A：`` ``A-``, optionally
  after a bullet and one word (``Option A:``, ``- A.``); else inside a line ``(A)`` or
  ``A.``/``A)``/``A:`` after a space (``A: x, B: y``: the comma between options stays). The option list is the last block of markers from which on
  each label occurs exactly once (an earlier ``A.`` in the passage or an example is not it);
  its labels are every choice or the first ones (BBH scores six labels for a question with
  three options: the labels not shown are never moved), in the order of the choices or of their
  alphabet. Option j is the text from marker j to
  marker j+1; the last one runs to the end of its line (inside a line: without a trailing
  answer cue such as ``Answer:``).
- **Options shown as text** (the choices are the option texts): the option list is where every
  choice occurs once, one after another, separated only by punctuation, white space, or one
  short word (``True, False, or Neither``; ``'entailment', 'contradiction', or 'neutral'``;
  ``- x\\n- y``). Case is ignored (``Neutral, Positive or Negative`` lists the choices
  ``negative``/``positive``/``neutral``); a choice word elsewhere (in the passage, in a
  definition) is not part of a list and stays where it is. A prompt that lists the options
  twice has both lists moved the same way.

The **display order** is the order in which the prompt shows the options (``Shown.choice_of``:
display position -> choice index), which need not be the order of the choices scored (anli
scores ``True, Neither, False`` and shows ``True, False, or Neither``). A rearrangement
``order`` (``order[i]`` = the choice whose option is shown at display position i) writes that
option's own text, as the prompt wrote it, at position i of every list; the labels and
everything else stay. An option list that cannot be found is refused (``ValueError`` with the
reason): a prompt whose options cannot be told apart is never "permuted" silently.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["OptionList", "Shown", "bare_label", "labels_of", "label_like", "locate", "locate_labelled", "locate_texts",
           "rearrange", "LABEL_STYLES", "letters", "show_options"]

# (name, regex with {L} for the escaped label); line styles anchor at a line start, where a bullet
# and one word (the same for every marker) may come first: "- A.", "Option A:"
_LINE = r"(?m)^[ \t]*(?:[-*•][ \t]*)?(?:(?P<pre>[^\W\d_]{{2,20}})[ \t]+)?"
LABEL_STYLES: tuple[tuple[str, str], ...] = (
    ("(A) line", _LINE + r"\({L}\)[ \t]*"), ("A. line", _LINE + r"{L}\.(?!\d)[ \t]*"),
    ("A) line", _LINE + r"{L}\)[ \t]*"), ("A: line", _LINE + r"{L}[:：][ \t]*"),
    ("[A] line", _LINE + r"\[{L}\][ \t]*"), ("A． line", _LINE + r"{L}[．、][ \t]*"), ("A- line", _LINE + r"{L}[-–][ \t]*"),
    ("(A) inline", r"(?<!\S)\({L}\)[ \t]*"), ("A. inline", r"(?<!\S){L}[.)](?!\S)[ \t]*"),
    ("A: inline", r"(?<!\S){L}[:：][ \t]*"),
)
_ANSWER_CUE = re.compile(r"[ \t]+[^\W\d_]{2,20}[:：][ \t]*$")  # " Answer:" after an inline last option


@dataclass(frozen=True)
class OptionList:
    """One list of the options in a prompt: ``spans[j]`` = (start, end) of the option shown at
    display position j; ``choice_of[j]`` = the choice it is."""

    spans: tuple[tuple[int, int], ...]
    choice_of: tuple[int, ...]


@dataclass(frozen=True)
class Shown:
    """The options a prompt shows: one or more lists (the last is the reference for display
    positions), and how they were found (a label style, or ``"text"``)."""

    lists: tuple[OptionList, ...]
    style: str

    @property
    def spans(self) -> tuple[tuple[int, int], ...]:
        return self.lists[-1].spans

    @property
    def choice_of(self) -> tuple[int, ...]:
        return self.lists[-1].choice_of

    def texts(self, prompt: str) -> list[str]:
        """The options of the reference list in display order, as the prompt writes them."""
        return [prompt[a:b] for a, b in self.spans]

    def by_choice(self, prompt: str) -> dict[int, str]:
        """Choice index -> its option text (stripped) in the reference list."""
        return {c: prompt[a:b].strip() for (a, b), c in zip(self.spans, self.choice_of)}


def label_like(text: str) -> bool:
    """One letter of any script (plus combining marks or the Arabic tatweel, as in ``هـ``) or
    a digit 1-9: what a label is.

    >>> [label_like(s) for s in ("A", "أ", "هـ", "Α", "7", "0", "No", "")]
    [True, True, True, True, True, False, False, False]
    """
    if not text:
        return False
    head, rest = text[0], text[1:]
    if not (unicodedata.category(head).startswith("L") or head in "123456789"):
        return False
    return all(unicodedata.category(ch).startswith("M") or ch == "\u0640" for ch in rest)


def bare_label(choice: str) -> str | None:
    """The label a choice names, or None when it is not one: a :func:`label_like` token,
    optionally in ``()`` or ``[]`` or followed by ``.``/``)``/``:``, white space around ignored.

    >>> [bare_label(c) for c in (" A", "(B)", "C.", "7", "yes", "[d]", "ب", "(هـ)")]
    ['A', 'B', 'C', '7', None, 'd', 'ب', 'هـ']
    """
    s = str(choice).strip()
    m = re.fullmatch(r"\((.+)\)|\[(.+)\]|(.+?)[.):：]?", s)
    if not m:
        return None
    token = next(g for g in m.groups() if g is not None)
    return token if label_like(token) else None


def labels_of(choices: Sequence[str]) -> list[str] | None:
    """The bare labels of ``choices`` when every choice is a label and no two are the same.

    >>> labels_of(["A", "B", "C"]), labels_of(["(A)", "(B)"]), labels_of(["yes", "no"]), labels_of(["A", "A"])
    (['A', 'B', 'C'], ['A', 'B'], None, None)
    >>> labels_of(["أ", "ب", "ج", "د"])
    ['أ', 'ب', 'ج', 'د']
    """
    labels = [bare_label(c) for c in choices]
    if not labels or any(x is None for x in labels) or len(set(labels)) != len(labels):
        return None
    return labels  # type: ignore[return-value]


def _block(prompt: str, pattern: str, labels: Sequence[str]) -> list[tuple[re.Match, int]] | None:
    """The option list's markers in one style, in prompt order with their label's index: the
    last block from which on each label present occurs exactly once, the labels present being
    every label or the first ones (at least two), shown in the order of the choices or of
    their alphabet (evalita scores ``B``, ``A`` and shows ``A:``, ``B:``), written with the same
    leading word."""
    found = sorted(((m, i) for i, lab in enumerate(labels)
                    for m in re.finditer(pattern.format(L=re.escape(lab)), prompt)), key=lambda x: x[0].start())
    best = None
    seen: Counter[int] = Counter()
    for s in range(len(found) - 1, -1, -1):
        seen[found[s][1]] += 1
        if seen[found[s][1]] > 1:
            break
        present = set(seen)
        tail = found[s:]
        shown = [i for _, i in tail]
        in_order = shown == sorted(shown) or [labels[i] for i in shown] == sorted(labels[i] for i in shown)
        if (len(present) >= 2 and present == set(range(len(present))) and in_order
                and len({m.groupdict().get("pre") for m, _ in tail}) == 1):
            best = tail
    return best


def locate_labelled(prompt: str, labels: Sequence[str]) -> Shown:
    """The options shown after ``labels``' markers (see the module docstring).

    >>> p = "Q: 2+2?\\nA. 3\\nB. 4\\nC. 5\\nAnswer:"
    >>> s = locate_labelled(p, ["A", "B", "C", "D"]); s.texts(p), s.style, s.choice_of
    (['3\\n', '4\\n', '5'], 'A. line', (0, 1, 2))
    >>> p = "السؤال\\nأ. ماء\\nب. نار\\nالإجابة:"
    >>> locate_labelled(p, ["أ", "ب"]).texts(p)
    ['ماء\\n', 'نار']
    >>> p = "Is it hateful?\\nA: Vero\\nB: Falso\\nRisposta:"
    >>> s = locate_labelled(p, ["B", "A"]); s.texts(p), s.choice_of
    (['Vero\\n', 'Falso'], (1, 0))
    """
    for style, pattern in LABEL_STYLES:
        block = _block(prompt, pattern, labels)
        if block is None:
            continue
        spans = []
        for j, (m, _) in enumerate(block):
            if j + 1 < len(block):
                end = block[j + 1][0].start()
                if style.endswith("inline"):  # keep the blank (and a comma) between "(A) x" and "(B)" in place
                    end = m.end() + len(prompt[m.end():end].rstrip().rstrip(",;，；、").rstrip())
            else:
                nl = prompt.find("\n", m.end())
                end = len(prompt) if nl < 0 else nl
                if style.endswith("inline"):
                    cue = _ANSWER_CUE.search(prompt, m.end(), end)
                    end = cue.start() if cue else m.end() + len(prompt[m.end():end].rstrip())
            spans.append((m.end(), end))
        return Shown((OptionList(tuple(spans), tuple(i for _, i in block)),), style)
    other = _other_labels(prompt, labels)
    if other is not None:
        shown, style = other
        raise ValueError(f"the prompt shows its options under other labels than the ones it scores: "
                         f"{', '.join(shown)} ({_named(style, shown[0])}), scored as {', '.join(labels[:len(shown)])}; "
                         "which option a scored label names is not shown")
    raise ValueError(f"the prompt does not show the labels {', '.join(labels[:2])}, ... once each at the start of "
                     "a line (A. / A) / A: / (A)) or inside a line ((A) x (B) y, A. x B. y)")


def _named(style: str, label: str) -> str:
    """A style's name written with ``label`` (``A: line`` -> ``1: lines``)."""
    marker, where = style.split(" ", 1)
    return marker.replace("A", label, 1) + (" lines" if where == "line" else " inside a line")


def _other_labels(prompt: str, labels: Sequence[str]) -> tuple[list[str], str] | None:
    """Another label sequence (digits ``1``..., Latin ``A``... or ``a``...) whose markers the
    prompt shows as an option list where it does not show ``labels``'s: (the labels shown, the
    style), or None."""
    k = len(labels)
    for alphabet in ("123456789", string.ascii_uppercase, string.ascii_lowercase):
        other = list(alphabet[:k])
        if len(other) < k or other == list(labels):
            continue
        for style, pattern in LABEL_STYLES:
            block = _block(prompt, pattern, other)
            if block is not None:
                return [other[i] for _, i in block], style
    return None


def _spaced(ch: str) -> bool:
    """A letter or digit of a script that separates words with spaces (not CJK, kana, Thai)."""
    if not ch.isalnum():
        return False
    name = unicodedata.name(ch, "")
    return not name.startswith(("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN"))


def _occurrences(prompt: str, text: str) -> list[tuple[int, int]]:
    """Case-insensitive matches of ``text`` in ``prompt`` that are whole words where the
    script spaces its words (``True`` in ``Untrue`` is not one)."""
    out = []
    for m in re.finditer(re.escape(text), prompt, flags=re.IGNORECASE):
        a, b = m.span()
        if _spaced(text[0]) and a > 0 and _spaced(prompt[a - 1]):
            continue
        if _spaced(text[-1]) and b < len(prompt) and _spaced(prompt[b]):
            continue
        out.append((a, b))
    return out


_SEPARATOR = re.compile(r"[\W_]*(?:\w{1,6}[\W_]*)?", re.UNICODE)


def _separates(gap: str) -> bool:
    """Whether the text between two options of a list is only a separator: punctuation, white
    space and at most one short word or label (``, or``, ``', '``, ``\\n- ``, ``或``,
    ``\\n1) ``); at most 12 characters besides white space.

    >>> [_separates(g) for g in (", or ", "', '", "\\n  1) ", " 或", ", but not ")]
    [True, True, True, True, False]
    """
    return len("".join(gap.split())) <= 12 and _SEPARATOR.fullmatch(gap) is not None


def _lists(prompt: str, choices: Sequence[str]) -> list[OptionList]:
    """Every option list of the text choices in the prompt (see the module docstring), in
    prompt order, none overlapping another."""
    k = len(choices)
    occ = sorted((a, b, i) for i, c in enumerate(choices) for a, b in _occurrences(prompt, str(c).strip()))
    found: list[list[tuple[int, int, int]]] = []
    steps = [0]

    def extend(seq: list[tuple[int, int, int]]) -> None:
        steps[0] += 1
        if steps[0] > 50_000:
            raise ValueError("the prompt can be read as too many different lists of the choices")
        if len(seq) == k:
            found.append(list(seq))
            return
        used = {i for _, _, i in seq}
        end = seq[-1][1]
        for a, b, i in occ:
            if a >= end and i not in used and a - end <= 200 and _separates(prompt[end:a]):
                extend(seq + [(a, b, i)])

    for start in occ:
        extend([start])
    chosen: list[list[tuple[int, int, int]]] = []
    for seq in sorted(found, key=lambda s: -s[0][0]):  # from the end: the list closest to the answer first
        if all(seq[-1][1] <= other[0][0] or seq[0][0] >= other[-1][1] for other in chosen):
            chosen.append(seq)
    return [OptionList(tuple((a, b) for a, b, _ in seq), tuple(i for _, _, i in seq)) for seq in sorted(chosen)]


def locate_texts(prompt: str, choices: Sequence[str]) -> Shown:
    """The options shown as their own text, as one or more lists (see the module docstring).

    >>> p = "Premise.\\nQuestion: It is true. True, False, or Neither?\\nAnswer:"
    >>> s = locate_texts(p, ["True", "Neither", "False"]); s.texts(p), s.choice_of
    (['True', 'False', 'Neither'], (0, 2, 1))
    >>> p = "Does this statement have a Neutral, Positive or Negative sentiment?"
    >>> locate_texts(p, ["negative", "positive", "neutral"]).choice_of
    (2, 1, 0)
    """
    texts = [str(c).strip() for c in choices]
    if any(not t for t in texts):
        raise ValueError("an empty choice cannot be found in the prompt")
    if len({t.casefold() for t in texts}) != len(texts):
        raise ValueError("two choices are the same text (ignoring case), so the prompt cannot show them apart")
    lists = _lists(prompt, texts)
    if not lists:
        missing = [t for t in texts if not _occurrences(prompt, t)]
        if missing:
            raise ValueError(f"the prompt does not show the choice {missing[0][:40]!r}")
        raise ValueError("the prompt does not list the choices together (" + ", ".join(repr(t[:20]) for t in texts[:4])
                         + "): a choice word elsewhere in the prompt is not an option list")
    return Shown(tuple(lists), "text")


def locate(prompt: str, choices: Sequence[str]) -> Shown:
    """:func:`locate_labelled` when the choices are labels, else :func:`locate_texts`."""
    labels = labels_of(choices)
    return locate_labelled(prompt, labels) if labels is not None else locate_texts(prompt, choices)


def rearrange(prompt: str, shown: Shown, order: Sequence[int]) -> str:
    """``prompt`` with the option of choice ``order[i]`` written at display position i of every
    list (each list writes its own text of that option; white space at a span's ends stays
    where it was).

    >>> p = "Q\\nA. x\\nB. y\\nC. z\\nAnswer:"
    >>> rearrange(p, locate_labelled(p, "ABC"), [2, 0, 1])
    'Q\\nA. z\\nB. x\\nC. y\\nAnswer:'
    >>> p = "Say Yes or No. Yes or no?"
    >>> rearrange(p, locate_texts(p, ["No", "Yes"]), [0, 1])
    'Say No or Yes. no or Yes?'
    """
    edits = []
    for lst in shown.lists:
        text_of = {c: prompt[a:b] for (a, b), c in zip(lst.spans, lst.choice_of)}
        for (a, b), c in zip(lst.spans, order):
            if c not in text_of:
                raise ValueError(f"choice {c} is not shown in every list of the options")
            old, new = prompt[a:b], text_of[c]
            lead = old[: len(old) - len(old.lstrip())]
            trail = old[len(old.rstrip()):] if old.strip() else ""
            edits.append((a, b, lead + new.strip() + trail))
    out, last = [], 0
    for a, b, text in sorted(edits):
        out.append(prompt[last:a] + text)
        last = b
    out.append(prompt[last:])
    return "".join(out)


def letters(n: int) -> list[str]:
    """The first ``n`` letters of the spreadsheet sequence A..Z, AA, AB, ..., AZ, BA, ... (past
    26 options, as some suites letter them).

    >>> letters(3), letters(28)[-3:]
    (['A', 'B', 'C'], ['Z', 'AA', 'AB'])
    """
    out = []
    for i in range(n):
        name, i = "", i + 1
        while i:
            i, r = divmod(i - 1, 26)
            name = string.ascii_uppercase[r] + name
        out.append(name)
    return out


def show_options(prompt: str, options: Sequence[str]) -> str:
    """The shown-options prompt of a cloze task (``--show-options``): the task's own prompt
    without a last line that is only an answer cue (``Answer:``, ``A:``: at most 20 characters,
    ending in a colon), then one line ``X. option`` per option (X = A, B, ..., past Z AA, AB,
    ...; white space runs collapsed), then ``Answer:``; scored on the letters. This is the
    multiple-choice formulation of OLMES and of lm-eval 0.5's ``mcqa`` format.

    >>> show_options("Question: Which is a mammal?\\nAnswer:", ["shark", " whale"])
    'Question: Which is a mammal?\\nA. shark\\nB. whale\\nAnswer:'
    """
    lines = prompt.rstrip().split("\n")
    last = lines[-1].strip()
    if len(lines) > 1 and last.endswith(":") and len(last) <= 20:
        lines = lines[:-1]
    head = "\n".join(lines).rstrip()
    body = "\n".join(f"{x}. {' '.join(str(o).split())}" for x, o in zip(letters(len(options)), options))
    return (head + "\n" if head else "") + body + "\nAnswer:"
