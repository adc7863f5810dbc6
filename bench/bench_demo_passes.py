"""Benchmark: the padding of the demo's prompt-reading passes, the old spread against the new, in one run.

The demo's engine (:class:`scorekit.demo.engine.SharedPrefixHFLM`) reads a wave's distinct
prompts as a prefix tree, one forward pass per group of a tree level's runs whose lengths are
within ``pass_spread`` of the group's longest; every run is padded to that longest, and a padded
place costs a real token's work in every linear layer.

1. **Work** (counted, the same on any machine): the demo's 535 rows (planned by lm-eval as
   ``scorekit demo`` plans them, nothing generated), in waves of 128 in prompt order (the
   engine's first waves; later ones depend on when rows end): prompt tokens, tokens read after
   sharing, token places of the passes (with padding) and passes, for each spread.
2. **CPU seconds** of reading the prompts of waves ``--waves`` (default the 1st and 3rd), with the
   old spread (4/3) and the new one (:attr:`SharedPrefixHFLM.pass_spread`), interleaved over
   ``--rounds`` rounds in one process (same load, same threads), and the largest difference
   between the key/value caches they give.

    python bench/bench_demo_passes.py [--rounds 2] [--threads 1] [--dtype float32] [--waves 0,2]

Under the AVX2 float32 setting of docs/demo.md, prefix the command with
``ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2``. The CPU model
is printed with the figures.
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import time
import warnings
from pathlib import Path

OLD_SPREAD = (4, 3)
WAVE = 128  # the demo's --batch-size


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return "unknown CPU"


def planned_rows(dtype: str) -> list:
    """The rows the demo's engine answers: lm-eval's loop as ``scorekit demo`` runs it, with the
    engine's ``_answer`` recording the rows instead of generating."""
    from scorekit.demo import engine, pipeline
    from scorekit.demo.model import resolve_model

    seen: list = []
    saved = engine.SharedPrefixHFLM._answer

    def record(self, rows):
        seen.extend(rows)
        return [[] for _ in rows]

    engine.SharedPrefixHFLM._answer = record
    try:
        with tempfile.TemporaryDirectory() as tmp:
            pipeline.run_harness(Path(tmp), resolve_model(None, None, dtype=dtype), threads=1)
    finally:
        engine.SharedPrefixHFLM._answer = saved
    return seen


def pass_places(prompts: list[tuple[int, ...]], spread: tuple[int, int]) -> tuple[int, int, int]:
    """``(places, tokens, passes)`` of reading ``prompts`` as the engine groups them."""
    from scorekit.demo.engine import _prefix_tree

    nodes, _ = _prefix_tree(sorted(set(prompts)))
    places = tokens = passes = 0
    level = [i for i, node in enumerate(nodes) if node.parent is None]
    while level:
        runs = sorted(level, key=lambda i: -len(nodes[i].tokens))
        while runs:
            longest = len(nodes[runs[0]].tokens)
            chunk = [i for i in runs if spread[0] * len(nodes[i].tokens) >= spread[1] * longest]
            places += len(chunk) * longest
            tokens += sum(len(nodes[i].tokens) for i in chunk)
            passes += 1
            runs = runs[len(chunk):]
        read = set(level)
        level = [i for i, node in enumerate(nodes) if node.parent in read]
    return places, tokens, passes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    ap.add_argument("--waves", default="0,2", help="which waves of 128 to time (0-based, comma-separated)")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    import torch

    from scorekit.demo.engine import SharedPrefixHFLM, gguf_read_once
    from scorekit.demo.model import smollm2_gguf

    new_spread = SharedPrefixHFLM.pass_spread
    spreads = {"old": OLD_SPREAD, "new": new_spread}
    rows = planned_rows(args.dtype)
    torch.set_num_threads(args.threads)
    print(f"CPU: {_cpu()}, {args.threads} torch thread(s), torch {torch.__version__}, {args.dtype}")
    order = sorted(range(len(rows)), key=lambda i: rows[i].tokens)
    waves = [[rows[i].tokens[:-1] for i in order[k:k + WAVE]] for k in range(0, len(order), WAVE)]
    print(f"work: {len(rows)} rows, {sum(len(r.tokens) for r in rows)} prompt tokens, "
          f"{len(waves)} waves of {WAVE} in prompt order")
    for name, spread in spreads.items():
        counts = [pass_places(wave, spread) for wave in waves]
        places, tokens, passes = (sum(c[n] for c in counts) for n in range(3))
        print(f"work  {name} spread {spread[0]}/{spread[1]}: {tokens} tokens read, {places} token places "
              f"(padding {places / tokens - 1:.1%}), {passes} passes")

    path = smollm2_gguf()
    with gguf_read_once():
        lm = SharedPrefixHFLM.create_from_arg_string(
            f"pretrained={path.parent},gguf_file={path.name},dtype={args.dtype}", {"batch_size": WAVE, "device": "cpu"})
    places = [0]
    forward = lm.model.forward

    @functools.wraps(forward)  # the engine reads forward's signature
    def counted(*a, **k):
        places[0] += (a[0] if a else k["input_ids"]).numel()
        return forward(*a, **k)

    lm.model.forward = counted
    timed = [waves[int(k)] for k in args.waves.split(",")]
    cpu = {name: 0.0 for name in spreads}
    caches = {}
    for r in range(args.rounds):
        for name in (list(spreads) if r % 2 == 0 else list(spreads)[::-1]):
            lm.pass_spread, places[0] = spreads[name], 0
            started = time.process_time()
            with torch.inference_mode():
                caches[name] = [lm._prefill(wave) for wave in timed]
            spent = time.process_time() - started
            cpu[name] += spent
            print(f"round {r}  {name} spread {spreads[name][0]}/{spreads[name][1]}: cpu {spent:6.1f} s, "
                  f"{places[0]} token places", flush=True)
    diff = max((a[layer][j] - b[layer][j]).abs().max().item()
               for old, new in zip(caches["old"], caches["new"]) for prompt in old
               for a, b in [(old[prompt], new[prompt])] for layer in range(len(a)) for j in (0, 1))
    print(f"reading waves {args.waves}: old {cpu['old']:.1f} s, new {cpu['new']:.1f} s CPU over {args.rounds} round(s); "
          f"old/new {cpu['old'] / cpu['new']:.2f}x; largest key/value difference {diff:.3g}")


if __name__ == "__main__":
    main()
