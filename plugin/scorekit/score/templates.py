"""SCORE's official prompt templates, read at run time from the installed lm-eval wheel.

They are not copied into scorekit: reading lm-eval's own ``prompt_templates.json`` keeps
scorekit's prompts byte-identical to the ones behind published SCORE numbers. The files are
found with ``importlib.util.find_spec`` so that nothing heavy (torch, the task registry) is
imported.
"""

from __future__ import annotations

import importlib.util
import json
import string
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from scorekit.errors import ScorekitError

# benchmark key used across scorekit -> folder under lm_eval/tasks/score/
BENCHMARK_DIRS: dict[str, str] = {"mmlu_pro": "mmlu_pro", "agieval": "agi_eval", "math": "math"}
FAMILY_KEYS: dict[str, str] = {
    "prompt": "prompt_robustness",
    "option_order": "option_order_robustness",
    "non_greedy": "non_greedy_robustness",
}
N_PROMPT_TEMPLATES = 10
_OPTION_FIELDS = {"letter", "option", "lower_case_letter"}


@dataclass(frozen=True)
class Template:
    """One SCORE prompt: ``prompt`` has ``{question}``, ``{options}``, ``{category}`` fields;
    ``options_format`` (multiple choice only) renders one option from ``{letter}``/``{option}``."""

    prompt: str
    options_format: str | None = None

    def render(self, question: str, options: list[str] | tuple[str, ...] = (), category: str = "") -> str:
        """The prompt text for one question with its options in display order."""
        rendered = ""
        if self.options_format is not None:
            rendered = "".join(
                self.options_format.format(letter=string.ascii_uppercase[i], lower_case_letter=string.ascii_lowercase[i], option=opt)
                for i, opt in enumerate(options)
            )
        return self.prompt.format(question=question, options=rendered, category=category)


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
    """Path of the installed ``prompt_templates.json`` for ``benchmark`` (mmlu_pro, agieval, math)."""
    if benchmark not in BENCHMARK_DIRS:
        raise ValueError(f"unknown SCORE benchmark {benchmark!r}; expected one of {sorted(BENCHMARK_DIRS)}")
    return upstream_score_dir() / BENCHMARK_DIRS[benchmark] / "prompt_templates.json"


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
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScorekitError("SCORE prompt templates not found in the installed lm-eval", path=path) from None
    except json.JSONDecodeError as exc:
        raise ScorekitError(f"invalid JSON: {exc.msg}", path=path, where=f"line {exc.lineno} column {exc.colno}") from None
    mc = benchmark != "math"
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


def get_template(benchmark: str, family: str, variant: int = 0) -> Template:
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
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ScorekitError(f"invalid JSON: {exc.msg}", path=path, where=f"line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, list):
        raise ScorekitError("expected a list of {problem, answer} objects", path=path)
    return {e["problem"]: str(e["answer"]) for e in data if isinstance(e, dict) and "problem" in e and "answer" in e}
