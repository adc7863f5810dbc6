"""Where a rendered prompt shows a question's options, and the prompt with them rearranged.

Harness-free; the core of ``scorekit variants``'s option order (docs/variants.md, "Task
shapes"). A multiple-choice task shows its options in many layouts: lettered lines written from
a list field (MMLU), from separate fields (``A``-``D``, ``option_a``..., ``opa``...), from a nested
dict (``choices.text``), inside the input text itself (BBH's ``(A) ...`` lines), by Python
(``!function`` prompts). Rather than guess which field feeds the prompt, the task's own rendered
prompt is read: the options are the texts after the labels.

- **Labelled options** (the choices scored are labels such as ``A``, ``" B"``, ``(C)``): the
  prompt holds one marker per label, in label order, all in one style: at the start of a line
  ``A.`` ``A)`` ``A:`` ``(A)`` ``[A]`` ``A．`` ``A、`` ``A：``, or anywhere after a space ``(A)``.
  Option i is the text from marker i to marker i+1 (the last one: to the end of its line), its
  surrounding white space kept in place. Only the first k labels need to be shown (BBH scores six
  labels for a question with three options); the labels not shown are never moved.
- **Options shown as text** (the choices are the option texts themselves): each choice text
  appears in the prompt exactly once, the occurrences not overlapping.

Either way a rearrangement ``order`` (``order[i]`` = original option shown at position i) writes
option ``order[i]``'s text into span i; the labels, and everything else in the prompt, stay.
Every option has to be found exactly once or the prompt is refused (``ValueError`` with the
reason): a prompt whose options cannot be told apart is never "permuted" silently.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Shown", "bare_label", "labels_of", "locate", "locate_labelled", "locate_texts", "rearrange",
           "LABEL_STYLES", "show_options"]

_LABEL_CHARS = string.ascii_uppercase + string.ascii_lowercase + "123456789"

# (name, regex with {L} for the escaped label); line styles anchor at a line start
LABEL_STYLES: tuple[tuple[str, str], ...] = (
    ("(A) line", r"(?m)^[ \t]*\({L}\)[ \t]*"), ("A. line", r"(?m)^[ \t]*{L}\.[ \t]*"),
    ("A) line", r"(?m)^[ \t]*{L}\)[ \t]*"), ("A: line", r"(?m)^[ \t]*{L}:[ \t]*"),
    ("[A] line", r"(?m)^[ \t]*\[{L}\][ \t]*"), ("A． line", r"(?m)^[ \t]*{L}[．、：][ \t]*"),
    ("(A) inline", r"(?<!\S)\({L}\)[ \t]*"),
)


@dataclass(frozen=True)
class Shown:
    """The options a prompt shows: ``spans[i]`` = (start, end) of option i's text, in shown
    order; ``style`` says how they were found (a label style, or ``"text"``)."""

    spans: tuple[tuple[int, int], ...]
    style: str

    def texts(self, prompt: str) -> list[str]:
        return [prompt[a:b] for a, b in self.spans]


def bare_label(choice: str) -> str | None:
    """The label a choice names, or None when it is not one: one letter or digit, optionally in
    ``()`` or ``[]`` or followed by ``.``/``)``/``:``, white space around ignored.

    >>> [bare_label(c) for c in (" A", "(B)", "C.", "7", "yes", "[d]")]
    ['A', 'B', 'C', '7', None, 'd']
    """
    s = str(choice).strip()
    m = re.fullmatch(r"\((.)\)|\[(.)\]|(.)[.):]?", s)
    if not m:
        return None
    c = next(g for g in m.groups() if g is not None)
    return c if c in _LABEL_CHARS else None


def labels_of(choices: Sequence[str]) -> list[str] | None:
    """The bare labels of ``choices`` when every choice is a label and no two are the same.

    >>> labels_of(["A", "B", "C"]), labels_of(["(A)", "(B)"]), labels_of(["yes", "no"]), labels_of(["A", "A"])
    (['A', 'B', 'C'], ['A', 'B'], None, None)
    """
    labels = [bare_label(c) for c in choices]
    if not labels or any(x is None for x in labels) or len(set(labels)) != len(labels):
        return None
    return labels  # type: ignore[return-value]


def _chain(prompt: str, pattern: str, labels: Sequence[str]) -> list[re.Match] | None:
    """The markers of the longest shown prefix of ``labels`` (at least two) in one style: the
    last place where labels[0] starts a chain labels[0], labels[1], ... in order, each label
    occurring exactly once from there on; None when there is none."""
    found = [list(re.finditer(pattern.format(L=re.escape(lab)), prompt)) for lab in labels]
    best: list[re.Match] | None = None
    for start in reversed(found[0]):
        chain = [start]
        for later in found[1:]:
            after = [m for m in later if m.start() > chain[-1].start()]
            if len(after) != 1:
                break
            chain.append(after[0])
        if len(chain) >= 2 and all(len([m for m in f if m.start() >= start.start()]) == 1 for f in found[: len(chain)]):
            best = chain
            break
    return best


def locate_labelled(prompt: str, labels: Sequence[str]) -> Shown:
    """The options shown after ``labels``' markers (see the module docstring).

    >>> p = "Q: 2+2?\\nA. 3\\nB. 4\\nC. 5\\nAnswer:"
    >>> s = locate_labelled(p, ["A", "B", "C", "D"]); s.texts(p), s.style
    (['3\\n', '4\\n', '5'], 'A. line')
    """
    for style, pattern in LABEL_STYLES:
        chain = _chain(prompt, pattern, labels)
        if chain is None:
            continue
        spans = []
        for i, m in enumerate(chain):
            if i + 1 < len(chain):
                end = chain[i + 1].start()
                if style.endswith("inline"):  # keep the blank between "(A) x" and "(B)" in place
                    end = m.end() + len(prompt[m.end():end].rstrip())
            else:
                nl = prompt.find("\n", m.end())
                end = len(prompt) if nl < 0 else nl
            spans.append((m.end(), end))
        return Shown(tuple(spans), style)
    raise ValueError(f"the prompt does not show the labels {', '.join(labels[:2])}, ... once each at the start of "
                     "a line (A. / A) / A: / (A)) or as (A) in the text")


def locate_texts(prompt: str, choices: Sequence[str]) -> Shown:
    """The options shown as their own text: each stripped choice exactly once in the prompt.

    >>> p = "Pick one: red, blue or green?"
    >>> locate_texts(p, ["blue", "green", "red"]).texts(p)
    ['blue', 'green', 'red']
    """
    spans = []
    for c in choices:
        text = str(c).strip()
        if not text:
            raise ValueError("an empty choice cannot be found in the prompt")
        hits = [m.start() for m in re.finditer(re.escape(text), prompt)]
        if len(hits) != 1:
            raise ValueError(f"the choice {text[:40]!r} appears {len(hits)} times in the prompt, not once")
        spans.append((hits[0], hits[0] + len(text)))
    ordered = sorted(spans)
    if any(a[1] > b[0] for a, b in zip(ordered, ordered[1:])):
        raise ValueError("two choices overlap in the prompt")
    return Shown(tuple(spans), "text")


def locate(prompt: str, choices: Sequence[str]) -> Shown:
    """:func:`locate_labelled` when the choices are labels, else :func:`locate_texts`."""
    labels = labels_of(choices)
    return locate_labelled(prompt, labels) if labels is not None else locate_texts(prompt, choices)


def rearrange(prompt: str, shown: Shown, order: Sequence[int]) -> str:
    """``prompt`` with option ``order[i]`` written where option i was (labelled: the text between
    markers, white space at its ends kept where it was).

    >>> p = "Q\\nA. x\\nB. y\\nC. z\\nAnswer:"
    >>> rearrange(p, locate_labelled(p, "ABC"), [2, 0, 1])
    'Q\\nA. z\\nB. x\\nC. y\\nAnswer:'
    """
    texts = shown.texts(prompt)
    core = [t.strip() for t in texts]
    out, last = [], 0
    for (a, b), t, i in sorted(zip(shown.spans, texts, range(len(texts)))):
        lead = t[: len(t) - len(t.lstrip())]
        trail = t[len(t.rstrip()):] if t.strip() else ""
        out.append(prompt[last:a] + lead + core[order[i]] + trail)
        last = b
    out.append(prompt[last:])
    return "".join(out)


def show_options(prompt: str, options: Sequence[str]) -> str:
    """The shown-options prompt of a cloze task (``--show-options``): the task's own prompt
    without a last line that is only an answer cue (``Answer:``, ``A:``: at most 20 characters,
    ending in a colon), then one line ``X. option`` per option (X = A, B, ...), then ``Answer:``;
    scored on the letters. This is the multiple-choice formulation of OLMES and of lm-eval 0.5's
    ``mcqa`` format.

    >>> show_options("Question: Which is a mammal?\\nAnswer:", ["shark", " whale"])
    'Question: Which is a mammal?\\nA. shark\\nB. whale\\nAnswer:'
    """
    if len(options) > 26:
        raise ValueError(f"{len(options)} options; at most 26 can be lettered")
    lines = prompt.rstrip().split("\n")
    last = lines[-1].strip()
    if len(lines) > 1 and last.endswith(":") and len(last) <= 20:
        lines = lines[:-1]
    head = "\n".join(lines).rstrip()
    body = "\n".join(f"{string.ascii_uppercase[i]}. {' '.join(str(o).split())}" for i, o in enumerate(options))
    return (head + "\n" if head else "") + body + "\nAnswer:"
