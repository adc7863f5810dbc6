"""How many of the installed lm-eval's task YAMLs ``scorekit variants --formats N`` can vary, and
how many formats their prompts give (docs/variants.md, "--formats N").

    python bench/formats_catalogue.py      # every task YAML under lm_eval/tasks (~1-2 minutes)

Each task's ``doc_to_text`` is read as ``scorekit variants`` reads it (lm-eval's YAML loader,
includes merged, ``!function`` unresolved) and sorted the way the command decides: Python, a
document field as it is, no ``doc_to_text``, nothing to vary, or variable with the exact number
of distinct formats its grammar gives (the prompt as written included).
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin"))

from scorekit.robustness.formats import FormatError, template_variations  # noqa: E402


def kind(text: object) -> str:
    if text is None:
        return "no doc_to_text"
    if not isinstance(text, str):
        return "not a string"
    if text.startswith("/") and Path(text.rsplit(".", 1)[0] + ".py").is_file():
        return "Python (!function)"
    if "{{" not in text and "{%" not in text and text.isidentifier():
        return "a document field"
    return "template"


def formats_of(text: str) -> int:
    """Exact number of distinct formats (1: nothing to vary)."""
    try:
        template_variations(text, 10**9)
    except FormatError as exc:
        return exc.maximum or 1
    raise AssertionError("unreachable")


def main() -> int:
    import lm_eval
    from lm_eval.tasks._yaml_loader import load_yaml

    root = Path(lm_eval.__file__).parent / "tasks"
    start = time.process_time()
    counts: collections.Counter[str] = collections.Counter()
    sizes: list[int] = []
    known: dict[str, int] = {}
    for path in sorted(root.rglob("*.yaml")):
        try:
            cfg = load_yaml(path, resolve_func=False)
        except Exception:  # noqa: BLE001 - a broken or partial YAML is not a task here
            continue
        if not isinstance(cfg.get("task"), str) or "class" in cfg:
            continue
        counts["tasks"] += 1
        text = cfg.get("doc_to_text")
        k = kind(text)
        if k != "template":
            counts[k] += 1
            continue
        if text not in known:
            known[text] = formats_of(text)
        n = known[text]
        counts["nothing to vary" if n <= 1 else "variable"] += 1
        if n > 1:
            sizes.append(n)
    sizes.sort()
    print(f"lm-eval {lm_eval.__version__}: {counts['tasks']} task YAMLs, {len(known)} distinct prompt templates")
    for key in ("variable", "nothing to vary", "Python (!function)", "a document field", "no doc_to_text", "not a string"):
        print(f"  {key:20} {counts[key]:6}  {counts[key] / counts['tasks']:.1%}")
    if sizes:
        print(f"formats per variable prompt: min {sizes[0]}, median {sizes[len(sizes) // 2]}, max {sizes[-1]}; "
              f"at least 100: {sum(s >= 100 for s in sizes)} tasks")
    print(f"CPU {time.process_time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
