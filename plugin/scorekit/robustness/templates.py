"""SCORE's official prompt templates, read at run time from the installed lm-eval wheel.

They are not copied into scorekit: reading lm-eval's own ``prompt_templates.json`` keeps
scorekit's prompts byte-identical to the ones behind published SCORE numbers. The files are
found with ``importlib.util.find_spec`` so that nothing heavy (torch, the task registry) is
imported.
"""

from __future__ import annotations

import importlib.util
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from scorekit.errors import ScorekitError
from scorekit.files import load_json
from scorekit.robustness.records import N_PROMPT_TEMPLATES, Family

FAMILY_KEYS: dict[str, str] = {
    "prompt": "prompt_robustness", "option_order": "option_order_robustness", "non_greedy": "non_greedy_robustness",
}
_OPTION_FIELDS = {"letter", "option", "lower_case_letter"}


@dataclass(frozen=True)
class Template:
    """One SCORE prompt: ``prompt`` has ``{question}``, ``{options}``, ``{category}`` fields;
    ``options_format`` (multiple choice only) renders one option from ``{letter}``/``{option}``."""

    prompt: str
    options_format: str | None = None

    def render(self, question: str, options: Sequence[str] = (), category: str = "") -> str:
        """The prompt text for one question with its options in display order:
        ``prompt.format(question=, options="".join(options_format.format(letter=, lower_case_letter=,
        option=) per option), category=)``."""
        return _renderer(self.prompt, self.options_format)(question, options, category)


@lru_cache(maxsize=256)
def _renderer(prompt: str, options_format: str | None):
    """``render(question, options, category)`` for one template, with both format strings parsed
    once: the option text is joined from per-letter pieces and the prompt from its literal
    parts, which gives exactly what ``str.format`` gives (checked by the tests). Templates with
    other fields, conversions or format specs use ``str.format`` itself."""
    pieces = _option_pieces(options_format) if options_format is not None else None
    prompt_parts = _prompt_parts(prompt)

    def options_text(options: Sequence[str]) -> str:
        if options_format is None:
            return ""
        if pieces is not None and len(options) <= len(pieces[0]):
            if pieces[1]:  # text after the option: both pieces per option
                before, after = pieces
                return "".join([f"{b}{o}{a}" for b, o, a in zip(before, options, after)])
            return "".join([f"{b}{o}" for b, o in zip(pieces[0], options)])
        return "".join(
            options_format.format(letter=string.ascii_uppercase[i], lower_case_letter=string.ascii_lowercase[i], option=opt)
            for i, opt in enumerate(options)
        )

    if prompt_parts is None:
        def render(question: str, options: Sequence[str], category: str) -> str:
            return prompt.format(question=question, options=options_text(options), category=category)
        return render

    literals, slots = prompt_parts

    def render_parts(question: str, options: Sequence[str], category: str) -> str:
        values = (question, options_text(options), category)
        out = list(literals)
        for position, field in slots:
            out[position] = values[field]
        return "".join(out)

    return render_parts


_PROMPT_FIELDS = {"question": 0, "options": 1, "category": 2}


def _prompt_parts(prompt: str) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]] | None:
    """(parts with "" where a field goes, ((part index, field number), ...)) for a prompt whose
    fields are plain ``{question}``, ``{options}``, ``{category}``; None otherwise."""
    parts: list[str] = []
    slots: list[tuple[int, int]] = []
    try:
        parsed = list(string.Formatter().parse(prompt))
    except ValueError:  # malformed: let str.format raise its own error at render time
        return None
    for literal, name, spec, conversion in parsed:
        parts.append(literal)
        if name is None:
            continue
        if name not in _PROMPT_FIELDS or spec or conversion:
            return None
        slots.append((len(parts), _PROMPT_FIELDS[name]))
        parts.append("")
    return tuple(parts), tuple(slots)


@lru_cache(maxsize=64)
def _option_pieces(options_format: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(text before ``{option}`` per letter index, text after it per letter index), or None
    when ``{option}`` is not used exactly once as a plain field (no conversion or format spec).
    The "after" tuple is empty when there is never text after the option."""
    try:
        fields = [(name, spec, conv) for _, name, spec, conv in string.Formatter().parse(options_format) if name is not None]
    except ValueError:
        return None
    if [f for f in fields if f[0] == "option"] != [("option", "", None)]:
        return None
    marker = "\x00option\x00"
    while marker in options_format:
        marker += "\x00"
    before, after = zip(*(options_format.format(letter=upper, lower_case_letter=lower, option=marker).split(marker)
                          for upper, lower in zip(string.ascii_uppercase, string.ascii_lowercase)))
    return before, (after if any(after) else ())


def upstream_score_dir() -> Path:
    """``<site-packages>/lm_eval/tasks/score`` of the installed lm-eval (not imported)."""
    spec = importlib.util.find_spec("lm_eval")
    if spec is None or not spec.submodule_search_locations:
        raise ScorekitError("lm-eval is not installed; SCORE prompt templates ship inside it (pip install lm-eval)")
    for root in spec.submodule_search_locations:
        path = Path(root) / "tasks" / "score"
        if path.is_dir():
            return path
    raise ScorekitError(
        "this lm-eval has no tasks/score folder (SCORE templates need lm-eval >= 0.4.8)",
        path=next(iter(spec.submodule_search_locations)),
    )


def template_file(benchmark: str) -> Path:
    """Path of the installed ``prompt_templates.json`` of ``benchmark`` (its ``template_dir`` in
    :mod:`scorekit.robustness.benchmarks`)."""
    from scorekit.robustness.benchmarks import get

    return upstream_score_dir() / get(benchmark).template_dir / "prompt_templates.json"


def _template(entry: object, path: Path, where: str, multiple_choice: bool) -> Template:
    if not isinstance(entry, dict) or not isinstance(entry.get("prompt"), str):
        raise ScorekitError("expected an object with a string 'prompt'", path=path, where=where)
    fmt = entry.get("options_format")
    if multiple_choice:
        if not isinstance(fmt, str):
            raise ScorekitError("multiple-choice template lacks a string 'options_format'", path=path, where=where)
        used = {f for _, f, _, _ in string.Formatter().parse(fmt) if f}
        if not used <= _OPTION_FIELDS:
            # Numeral-labelled options would need numeral answers; no shipped template uses them.
            raise ScorekitError(f"unsupported option fields {sorted(used - _OPTION_FIELDS)} in options_format", path=path, where=where)
    return Template(prompt=entry["prompt"], options_format=fmt if multiple_choice else None)


@lru_cache(maxsize=None)
def load_templates(benchmark: str) -> dict[str, tuple[Template, ...]]:
    """``{family: templates}``: 10 for ``prompt``, 1 for ``option_order`` / ``non_greedy``
    (MATH has no option-order templates). Malformed files raise ScorekitError naming the key."""
    path = template_file(benchmark)
    if not path.is_file():
        raise ScorekitError("SCORE prompt templates not found in the installed lm-eval", path=path)
    data = load_json(path)
    from scorekit.robustness.benchmarks import get

    mc = get(benchmark).options > 0  # multiple choice: templates format the options
    out: dict[str, tuple[Template, ...]] = {}
    for family, key in FAMILY_KEYS.items():
        if key not in data:
            if family == "option_order" and not mc:
                continue
            raise ScorekitError(f"missing key {key!r}", path=path)
        entry = data[key]
        if family == "prompt":
            if not isinstance(entry, list) or len(entry) != N_PROMPT_TEMPLATES:
                raise ScorekitError(f"expected a list of {N_PROMPT_TEMPLATES} templates", path=path, where=key)
            out[family] = tuple(_template(e, path, f"{key}[{i}]", mc) for i, e in enumerate(entry))
        else:
            out[family] = (_template(entry, path, key, mc),)
    return out


def get_template(benchmark: str, family: Family, variant: int = 0) -> Template:
    """The template a variant is rendered with (prompt family: template ``variant``)."""
    templates = load_templates(benchmark)
    if family not in templates:
        raise ValueError(f"SCORE {benchmark} has no {family} family")
    return templates[family][variant if family == "prompt" else 0]


@lru_cache(maxsize=None)
def math_answer_corrections() -> dict[str, str]:
    """Gold answers SCORE corrected by hand for MATH problems whose solution boxes several
    different values (``math/to_be_fixed_questions.json`` in the installed lm-eval):
    ``{problem text: answer}``. Empty when the file is absent."""
    path = upstream_score_dir() / "math" / "to_be_fixed_questions.json"
    if not path.is_file():
        return {}
    data = load_json(path)
    if not isinstance(data, list):
        raise ScorekitError("expected a list of {problem, answer} objects", path=path)
    return {e["problem"]: str(e["answer"]) for e in data if isinstance(e, dict) and "problem" in e and "answer" in e}
