"""Format variations of a prompt (scorekit.robustness.formats): structure, wording kept, distinct, seeded."""

from __future__ import annotations

import re

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.robustness.formats import (
    Field,
    Format,
    FormatError,
    Options,
    grammar,
    mask_template,
    parse,
    render,
    template_variations,
    unmask,
    variations,
)

MMLU = ("The following are multiple choice questions (with answers) about {{subject}}.\n\n{{question.strip()}}\n"
        "A. {{choices[0]}}\nB. {{choices[1]}}\nC. {{choices[2]}}\nD. {{choices[3]}}\nAnswer:")


def test_parse_reads_fields_options_heading_and_cue():
    p = parse("Passage:\nThe sky is blue.\nQuestion - What colour?\nChoices:\n(A) red\n(B) blue\nAnswer:")
    assert p.blocks[0] == Field("Passage", ":\n", "The sky is blue.")
    assert p.blocks[1] == Field("Question", " - ", "What colour?")
    assert p.blocks[2] == Field("Choices", ":", "")  # a heading: the option list follows
    assert isinstance(p.blocks[3], Options) and p.blocks[3].labels == ("A", "B") and p.blocks[3].style == "({})"
    assert p.cue == Field("Answer", ":", "")


def test_plain_lines_and_lookalikes_stay_plain():
    p = parse("Re-read the text below.\nThe time is 3:45 now\nhttp://x.org\n1.5 is a number\nAnswer:")
    assert [b.descriptor for b in p.blocks] == [None, None, None, None, "Answer"]
    # labels must run from the first of their alphabet, two or more in one style
    assert not parse("B. one\nC. two").options and not parse("A. one").options
    assert parse("1) one\n2) two\n3) three").options[0].labels == ("1", "2", "3")


def test_render_changes_only_the_format():
    p = parse("Question: Why?\nA. yes\nB. no\nAnswer:")
    assert render(p, Format(numbering="1", label="[{}]", separator=":\n", casing="title")) == \
        "Question:\nWhy?\n[1] yes\n[2] no\nAnswer:"
    assert render(p, Format(numbering="i", joiner=" ")) == "Question: Why? i. yes\nii. no Answer:"


def test_cue_word_varies_only_without_an_option_list():
    assert grammar(parse("Q: x\nAnswer:"))["cue"] == [None, "A"]
    assert grammar(parse("Q: x\nA. a\nB. b\nAnswer:"))["cue"] == [None]
    assert grammar(parse("Q: x\nSolution:"))["cue"] == [None]


def test_numbering_only_when_relabel():
    p = parse("Q: x\nA. a\nB. b\nAnswer:")
    assert grammar(p)["numbering"] == [None]
    assert grammar(p, relabel=True)["numbering"] == [None, "a", "1", "I", "i"]  # "A" is as written
    for _, text in variations("Q: x\nA. a\nB. b\nAnswer:", 40, seed=3):
        assert re.search(r"A\W*\s*a\b", text) and re.search(r"B\W*\s*b\b", text), text


def test_nothing_to_vary_and_too_many():
    with pytest.raises(FormatError, match="no descriptors") as err:
        variations("What is the capital of France?", 2)
    assert err.value.maximum == 1
    with pytest.raises(FormatError, match="at most") as err:
        variations("Question: Why?\nAnswer:", 10_000)
    most = err.value.maximum
    assert len(variations("Question: Why?\nAnswer:", most)) == most  # exactly the maximum is given
    with pytest.raises(FormatError):
        variations("Question: Why?\nAnswer:", most + 1)


def test_same_seed_same_formats_other_seed_other_order():
    a = variations(MMLU, 20, seed=7)
    assert a == variations(MMLU, 20, seed=7)
    assert a[0][1] == MMLU and a[0][0] == Format()
    assert [t for _, t in a] != [t for _, t in variations(MMLU, 20, seed=8)]
    # a shorter list is the start of a longer one: asking for more never reshuffles
    assert variations(MMLU, 5, seed=7) == a[:5]


def test_template_blocks_kept_and_every_variant_renders_the_document():
    doc = {"subject": "anatomy", "question": " Where is the femur? ", "choices": ["arm", "leg", "head", "neck"]}
    env = jinja2.Environment()
    out = template_variations(MMLU, 100, seed=0)
    assert len({t for _, t in out}) == 100 and out[0][1] == MMLU
    blocks = mask_template(MMLU)[1]
    for _, template in out:
        assert re.findall(r"\{\{.*?\}\}", template) == blocks  # same fields, same order
        text = env.from_string(template).render(**doc)
        for piece in ("Where is the femur?", "arm", "leg", "head", "neck", "about anatomy."):
            assert piece in text
        assert re.search(r"\bA\W*\s*arm", text) and re.search(r"\bD\W*\s*neck", text)  # letters kept


def test_statements_before_a_line_are_kept():
    t = "{% if passage %}Passage: {{passage}}\n{% endif %}Question: {{q}}\nAnswer:"
    masked, blocks = mask_template(t)
    assert unmask(masked, blocks) == t
    p = parse(masked)
    assert [b.descriptor for b in p.blocks] == ["Passage", "Question", "Answer"]
    for _, v in template_variations(t, 10, seed=1):
        jinja2.Environment().parse(v)
        assert "{% if passage %}" in v and "{% endif %}" in v


# --- properties -----------------------------------------------------------------------------------

_words = st.text(alphabet=st.sampled_from("abcdefghij XYZ?.,'0123"), min_size=1, max_size=20).map(str.strip).filter(bool)
_descriptors = st.sampled_from(["Question", "Passage", "Context", "Correct answer", "Q", "Premise"])


@st.composite
def prompts(draw):
    """A prompt of fields, plain lines, maybe an option list, maybe a cue; and the texts in it."""
    parts, texts = [], []
    for _ in range(draw(st.integers(1, 3))):
        text = draw(_words)
        texts.append(text)
        if draw(st.booleans()):
            parts.append(draw(_descriptors) + draw(st.sampled_from([": ", " - ", ":\n", " :: "])) + text)
        else:
            parts.append(text)
    if draw(st.booleans()):
        opts = draw(st.lists(_words, min_size=2, max_size=5))
        style = draw(st.sampled_from(["{}.", "({})", "{})", "[{}]"]))
        letters = draw(st.sampled_from(["ABCDE", "abcde", "12345"]))
        parts.append("\n".join(style.format(letters[i]) + " " + o for i, o in enumerate(opts)))
        texts += opts
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(["Answer:", "A:", "Answer -", "Solution:"])))
    joiner = draw(st.sampled_from(["\n", "\n\n"]))
    return joiner.join(parts), texts


def _in_order(text: str, pieces: list[str]) -> bool:
    at = 0
    for piece in pieces:
        found = text.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=80))
def test_format_zero_gives_any_text_back(text):
    assert render(parse(text), Format()) == text


@settings(max_examples=120, deadline=None)
@given(prompts(), st.integers(2, 12), st.integers(0, 2**32), st.booleans())
def test_wording_kept_distinct_and_seeded(case, n, seed, relabel):
    prompt, texts = case
    try:
        out = variations(prompt, n, seed=seed, relabel=relabel)
    except FormatError as err:
        assert err.maximum is not None and err.maximum < n
        return
    assert len(out) == n and out[0][1] == prompt
    assert len({t for _, t in out}) == n  # distinct
    assert out == variations(prompt, n, seed=seed, relabel=relabel)  # seeded
    for fmt, text in out:
        assert _in_order(text, texts), (fmt, text)  # every text verbatim, in its place
        assert render(parse(prompt), fmt) == text
