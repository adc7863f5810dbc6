"""``scorekit variants --family prompt --formats N [--seed S]``: the prompt family's templates are N
format variations of each task's own ``doc_to_text`` (:mod:`scorekit.robustness.formats`,
docs/variants.md "Format variations"). The option and its checks are in
:mod:`scorekit.robustness.task_variants_options`."""

from __future__ import annotations

import argparse
import ast
from typing import Any

from scorekit.errors import ScorekitError, shown
from scorekit.lm_eval.task_variants_yaml import _is_function


def task_templates(args: argparse.Namespace, name: str, cfg: dict[str, Any], default: list[str]) -> list[str]:
    """The prompt family's templates for task ``name``: ``default`` (``--templates``) unless
    ``--formats`` asks for the formats of the task's own ``doc_to_text``."""
    if args.formats is None:
        return default
    from scorekit.robustness.formats import FormatError, template_variations

    where = f"task {name}"
    text = cfg.get("doc_to_text")
    if text is None:
        raise ScorekitError("has no doc_to_text, so there is no prompt of its own to write in other formats", where=where)
    if _is_function(text):
        raise ScorekitError(f"its prompt is Python (doc_to_text: !function {str(text).rsplit('/', 1)[-1]}), which "
                            "scorekit cannot write in other formats; give the prompt family --templates FILE", where=where)
    if not isinstance(text, str):
        raise ScorekitError(f"its doc_to_text is {shown(text)}, not a prompt template; --formats varies a template",
                            where=where)
    if "{{" not in text and "{%" not in text and text.isidentifier():
        raise ScorekitError(f"its prompt is the document field {text!r} as it is: no format of its own to vary; "
                            "give the prompt family --templates FILE", where=where)
    relabel = cfg.get("output_type", "generate_until") == "multiple_choice" and _scored_on_texts(cfg.get("doc_to_choice"), text)
    try:
        return [t for _, t in template_variations(text, args.formats, seed=args.seed or 0, relabel=relabel)]
    except FormatError as exc:
        if exc.maximum is not None and exc.maximum > 1:
            raise ScorekitError(f"--formats {args.formats}: the format grammar of its prompt gives at most "
                                f"{exc.maximum} formats (the prompt as written included)", where=where) from None
        raise ScorekitError(f"its prompt {shown(text, 60)} has no descriptors (\"Question:\"), answer cue, option list "
                            "or separate lines whose format could vary; give the prompt family --templates FILE",
                            where=where) from None


def annotate(text: str, args: argparse.Namespace) -> str:
    """A prompt-family task file ``text`` with a comment after its first line saying how its
    templates were made, when ``--formats`` made them (template 0 is the task's own prompt)."""
    if args.formats is None:
        return text
    head, _, rest = text.partition("\n")
    return (f"{head}\n# templates: --formats {args.formats} --seed {args.seed or 0}, format variations of the task's own "
            f"doc_to_text (template 0, as written); docs/variants.md, Format variations\n{rest}")


def _scored_on_texts(choice: Any, prompt: str) -> bool:
    """Whether a multiple-choice task scores option texts rather than labels, so that its shown
    labels may be renumbered (``A`` -> ``1``): a literal list of texts, or choices read from
    document fields that the prompt reads too (``{{choices}}`` beside ``A. {{choices[0]}}``), no
    name in them saying label or letter. Labels (``["A", "B"]``), Python and anything else keep
    their letters.

    >>> p = "Q: {{q}}\\nA. {{choices[0]}}\\nB. {{choices[1]}}\\nAnswer:"
    >>> [_scored_on_texts(c, p) for c in (["A", "B"], "{{['(A)', '(B)']}}", "{{choices}}", ["red", "blue"], "{{choices.label}}", "{{other}}")]
    [False, False, True, True, False, False]
    """
    import re

    from jinja2 import Environment, TemplateSyntaxError, meta

    from scorekit.robustness.shown_options import labels_of

    if choice is None or _is_function(choice):
        return False
    literal: Any = choice if isinstance(choice, (list, dict)) else None
    text = choice.strip() if isinstance(choice, str) else ""
    if text.startswith("{{") and text.endswith("}}"):
        try:
            literal = ast.literal_eval(text[2:-2].strip())
        except (ValueError, SyntaxError):
            literal = None
    if isinstance(literal, dict):
        literal = list(literal.values())
    if isinstance(literal, (list, tuple)):
        return labels_of([str(c) for c in literal]) is None
    if not text or re.search(r"label|letter", text, re.I):
        return False
    try:
        env = Environment()
        needs = meta.find_undeclared_variables(env.parse(text if "{" in text else "{{" + text + "}}"))
        reads = meta.find_undeclared_variables(env.parse(prompt))
    except TemplateSyntaxError:
        return False
    return bool(needs) and needs <= reads
