"""Answer extraction for SCORE: option letters from multiple-choice outputs, boxed MATH answers.

Multiple choice (:func:`extract_choice`), tried in this order; the first rule that finds
something decides, and within a rule the LAST match in the text decides:

1. Anchored answer. A trigger, case-insensitive:
   "is" triggers   ``[the] [best|correct|final|right] answer|option|choice is|would be|should be``
   colon triggers  ``[final] answer:``
   then optional filler (spaces, ``*``, ``_``, ``:``, ``$``, and one of the words
   option/choice/letter), then a letter token:
   - wrapped, any case: ``(C)``, ``[C]``, ``{C}``, ``'C'``, ``"C"``, ```C```,
     ``\\boxed{C}``, ``\\text{C}``, ``\\textbf{C}``, ``\\mathrm{C}``;
   - bare upper case ``C`` not followed by a letter, digit or apostrophe ("Let's" is no answer);
     after a colon trigger it must also not be followed by spaces and a word
     ("Answer: I think..." is no answer, "Answer: C." is);
   - bare lower case ``c`` only when followed (after spaces) by the end, a newline or one of
     ``.,;:!?)]}*_`` — so "the answer is a bit unclear" is no answer, "the answer is c." is.
2. Bold or boxed letter anywhere: ``**C**``, ``**(C)**``, ``\\boxed{C}``.
3. The whole output is one letter once wrappers are removed (``C``, ``(c)``, ``**C.**``), or a
   single line ``C) text`` / ``C: text`` / ``C. text`` (upper case).

The letter is returned as a display index (A = 0). A letter at or beyond the question's number
of options is unparsed (None) — the last anchored answer still decides, an earlier in-range one
is not used instead. Ordinary words are never read as letters: "a" and "I" only count as the
token of an anchored answer (rule 1) or when they are the whole answer (rule 3).

MATH (:func:`extract_math_answer`): the content of the last ``\\boxed{...}`` / ``\\fbox{...}``
(balanced braces; also ``\\boxed 5``), else the text after the last "final answer is" up to the
end of that line; then :func:`scorekit.metrics.math_answers.normalize_math_answer` (which also
drops ``$`` and a trailing period). Empty results are unparsed (None).
"""

from __future__ import annotations

import re

from scorekit.metrics.math_answers import normalize_math_answer

__all__ = [
    "extract_choice", "extract_boxed", "boxed_entries", "extract_math_answer", "normalize_math_answer",
    "math_gold_answer",
]

_FILLER = r"[\s*_:$]*(?:(?i:option|choice|letter)\b[\s*_:$]*)?"
_WRAPPED = (
    r"\(\s*(?P<w1>[A-Za-z])\s*\)"
    r"|\[\s*(?P<w2>[A-Za-z])\s*\]"
    r"|\{\s*(?P<w3>[A-Za-z])\s*\}"
    r"|\\(?:boxed|text|textbf|mathrm)\{\s*\(?(?P<w4>[A-Za-z])\)?\s*\}"
    r"|['\"`\u2018\u201c](?P<w5>[A-Za-z])['\"`\u2019\u201d]"
)
_LOWER = r"(?P<l>[a-z])(?=[ \t]*(?:$|[\n.,;:!?)\]}*_]))"
_IS_TRIGGER = r"(?i:\b(?:(?:best|correct|final|right)\s+)?(?:answer|option|choice)\s+(?:is|would\s+be|should\s+be)\b)"
_COLON_TRIGGER = r"(?i:\b(?:final\s+)?answer\s*:)"
_ANCHORED = re.compile(
    rf"(?:{_IS_TRIGGER}{_FILLER}(?:{_WRAPPED}|(?P<u>[A-Z])(?![A-Za-z0-9'\u2019])|{_LOWER}))"
    rf"|(?:{_COLON_TRIGGER}{_FILLER}(?:{_WRAPPED.replace('?P<w', '?P<c')}"
    rf"|(?P<cu>[A-Z])(?![A-Za-z0-9'\u2019])(?![ \t]+[A-Za-z])|{_LOWER.replace('?P<l>', '?P<cl>')}))"
)
_MARKUP = re.compile(r"\*\*\s*\(?\s*(?P<b>[A-Za-z])\s*\)?\s*\.?\*\*|\\boxed\{\s*\(?\s*(?P<x>[A-Za-z])\s*\)?\s*\}")
_WRAPPER_CHARS = " \t\r\n*_()[]{}.:\"'`$"
_SINGLE_LINE = re.compile(r"^\s*[*_]*(?P<s>[A-Z])[*_]*\s*[).:]\s+\S.*$")


# Every anchored match contains one of these words (the triggers' nouns) and starts at it or at
# the optional word before it (separated by whitespace).
_TRIGGER_NOUNS = ("answer", "option", "choice")
_TRIGGER_PREFIXES = ("best", "correct", "final", "right")
_SPACE = " \t\n\r\f\v\x1c\x1d\x1e\x1f"  # what \s matches in ASCII text


def _last_anchored(text: str) -> re.Match[str] | None:
    """The last match of ``_ANCHORED.finditer(text)``.

    ``finditer`` tries the pattern at every position; a match can only start at a trigger noun
    or at a prefix word followed by whitespace and a noun, so for ASCII text (where
    ``str.lower`` is exactly the pattern's case-insensitive matching) the same scan runs over
    those positions only: the leftmost position at or after the end of the previous match where
    the pattern matches, again and again. Other text uses ``finditer`` itself. (Three searches
    for the nouns instead of seven for every first word: 2.4x faster on the 1.9 KB outputs of
    bench/bench_robustness_log.py, 45 -> 19 us each, the largest cost of `scorekit robustness`
    after parsing the log.)
    """
    if not text.isascii():
        last = None
        for last in _ANCHORED.finditer(text):
            pass
        return last
    low = text.lower()
    starts = []
    for word in _TRIGGER_NOUNS:
        i = low.find(word)
        while i >= 0:
            j = i
            while j and low[j - 1] in _SPACE:
                j -= 1
            if j < i:
                for prefix in _TRIGGER_PREFIXES:
                    if low.endswith(prefix, 0, j):
                        starts.append(j - len(prefix))
                        break
            starts.append(i)
            i = low.find(word, i + 1)
    if not starts:
        return None
    if len(starts) > 1:
        starts.sort()
    last, pos, match = None, 0, _ANCHORED.match
    for start in starts:
        if start >= pos and (m := match(text, start)) is not None:
            last, pos = m, m.end()
    return last


def _letter(match: re.Match[str]) -> str:
    # the letter groups are the patterns' only groups and exactly one of them matches
    return match.group(match.lastindex)  # type: ignore[arg-type]


def _index(letter: str, n_options: int) -> int | None:
    idx = ord(letter.upper()) - ord("A")
    return idx if 0 <= idx < n_options else None


def extract_choice(text: str | None, n_options: int) -> int | None:
    """Display index (A = 0) of the option a multiple-choice output picks, or None (unparsed).

    Rules in the module docstring. ``n_options`` is the number of options the question showed.
    """
    if not text:
        return None
    last = _last_anchored(text)
    if last is not None:
        return _index(_letter(last), n_options)
    for last in _MARKUP.finditer(text):
        pass
    if last is not None:
        return _index(_letter(last), n_options)
    core = text.strip(_WRAPPER_CHARS)
    if len(core) == 1 and core.isascii() and core.isalpha():
        return _index(core, n_options)
    stripped = text.strip()
    if "\n" not in stripped:
        m = _SINGLE_LINE.match(stripped)
        if m:
            return _index(m.group("s"), n_options)
    return None


_BOX_START = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])(?P<sp>\s*)")
_BARE_BOX = re.compile(r"[^\s$]+")


def boxed_entries(text: str) -> list[str]:
    """Contents of every top-level ``\\boxed{...}`` / ``\\fbox{...}`` (balanced braces) and
    ``\\boxed X`` (up to a space or ``$``), in order."""
    out: list[str] = []
    pos = 0
    while (m := _BOX_START.search(text, pos)) is not None:
        i = m.end()
        if text.startswith("{", i):
            depth = 0
            for j in range(i, len(text)):
                depth += (text[j] == "{") - (text[j] == "}")
                if depth == 0:
                    break
            if depth != 0:  # nothing closes this box
                break
            out.append(text[i + 1:j])
            pos = j + 1
        elif m.group("sp") and (tail := _BARE_BOX.match(text, i)):
            out.append(tail.group(0))
            pos = tail.end()
        else:
            pos = i
    return out


def extract_boxed(text: str | None) -> str | None:
    """Content of the last boxed expression, or None."""
    if not text:
        return None
    entries = boxed_entries(text)
    return entries[-1] if entries else None


_FINAL = re.compile(r"(?i)final answer is\s*:?\s*(?P<a>[^\n]*)")


def extract_math_answer(text: str | None) -> str | None:
    """The final answer of a MATH output (rules in the module docstring), normalized, or None."""
    if not text:
        return None
    boxed = extract_boxed(text)
    if boxed is None:
        finals = _FINAL.findall(text)  # one group: the answers after each "final answer is"
        if not finals:
            return None
        boxed = finals[-1]
    return normalize_math_answer(boxed)


_EQUATION_QUESTION = ("Find the equation", "Enter the equation", "What is the equation",
                      "described by the equation", "Find an equation")


def math_gold_answer(solution: str, problem: str, corrections: dict[str, str] | None = None) -> str | None:
    """Gold answer of a MATH row, prepared the way SCORE prepares it.

    The distinct boxed entries of ``solution`` (normalized): one -> it; several -> SCORE's
    hand-corrected answer for this problem if known, else the entries joined with ", ".
    Unless the problem asks for an equation, an answer with exactly one "=" keeps its right
    side (``x=5`` -> ``5``). None when the solution boxes nothing.
    """
    entries = [e for e in dict.fromkeys(map(normalize_math_answer, boxed_entries(solution))) if e is not None]
    if not entries:
        return None
    answer = entries[0] if len(entries) == 1 else (corrections or {}).get(problem) or ", ".join(entries)
    if answer.count("=") == 1 and not any(p in problem for p in _EQUATION_QUESTION):
        answer = answer.split("=")[1].strip()
    return normalize_math_answer(answer)
