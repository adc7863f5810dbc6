"""Benchmark: the padding of the demo's prompt-reading passes, and flushing denormals, side by side in one run.

The demo's engine (:class:`scorekit.demo.engine.SharedPrefixHFLM`) reads a wave's distinct
prompts as a prefix tree, one forward pass per group of a tree level's runs whose lengths are
within ``pass_spread`` of the group's longest; every run is padded to that longest, and a padded
place costs a real token's work in every linear layer.

1. **Work** (counted, the same on any machine): the demo's rows (planned by lm-eval as
   ``scorekit demo`` plans them, nothing generated: 295 with its prompt budget of 2 of 10
   templates, 535 before it), in waves of 128 in prompt order (the
   engine's first waves; later ones depend on when rows end): prompt tokens, tokens read after
   sharing, token places of the passes (with padding) and passes, for the engine's spread
   (:attr:`SharedPrefixHFLM.pass_spread`, 4/3) and a tighter one (``--spread``, default 16/15).
2. **CPU seconds** of reading the prompts of waves ``--waves`` (default the 1st) three ways:
   the engine as it is, with the tighter spread, and as it is under ``torch.set_flush_denormal(True)``
   (denormal floats read as zero: whether a slow path for them costs time); interleaved over
   ``--rounds`` rounds in one process (same load, same threads), and the largest difference
   between the key/value caches each gives and the engine's.

3. **The whole generation, counted** (``--full``, instead of 2): the engine answers all the rows
   once (as the demo does, batch 128) and every forward pass is counted: token places of the
   prompt-reading passes and of the decoding steps against the tokens they hold (prompt tokens
   after sharing; the answers' tokens, an ended row keeping its place until an eighth of the batch
   has ended), key/value places attended, and the float32 work in FLOP (SmolLM2-135M: 212.3 MFLOP
   per token place in the 30 layers' products, 56.6 MFLOP more per decoding place for the output
   layer, 69 kFLOP per attended place).

    python bench/bench_demo_passes.py [--rounds 2] [--threads 1] [--dtype float32] [--waves 0] [--spread 16/15]
    python bench/bench_demo_passes.py --full [--threads 1]

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
    ap.add_argument("--waves", default="0", help="which waves of 128 to time (0-based, comma-separated)")
    ap.add_argument("--spread", default="16/15", help="the tighter spread, as LONGEST/SHORTEST")
    ap.add_argument("--full", action="store_true", help="count the forward passes of the whole generation")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    import torch

    from scorekit.demo.engine import SharedPrefixHFLM, gguf_read_once
    from scorekit.demo.model import smollm2_gguf

    tight = tuple(int(n) for n in args.spread.split("/"))
    spreads = {"engine": SharedPrefixHFLM.pass_spread, "tight": tight}
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
    if args.full:
        _full(lm, rows)
        return
    timed = [waves[int(k)] for k in args.waves.split(",")]
    variants = {"engine": (spreads["engine"], False), "tight spread": (tight, False),
                "engine, flush denormals": (spreads["engine"], True)}
    cpu = {name: 0.0 for name in variants}
    caches = {}
    for r in range(args.rounds):
        for name in (list(variants) if r % 2 == 0 else list(variants)[::-1]):
            (lm.pass_spread, flush), places[0] = variants[name], 0
            torch.set_flush_denormal(flush)
            started = time.process_time()
            try:
                with torch.inference_mode():
                    caches[name] = [lm._prefill(wave) for wave in timed]
            finally:
                torch.set_flush_denormal(False)
            spent = time.process_time() - started
            cpu[name] += spent
            print(f"round {r}  {name:24s} cpu {spent:6.1f} s, {places[0]} token places", flush=True)
    for name in variants:
        diff = max((a[layer][j] - b[layer][j]).abs().max().item()
                   for ref, other in zip(caches["engine"], caches[name]) for prompt in ref
                   for a, b in [(ref[prompt], other[prompt])] for layer in range(len(a)) for j in (0, 1))
        print(f"reading waves {args.waves}, {name:24s} {cpu[name]:6.1f} s CPU over {args.rounds} round(s), "
              f"engine/this {cpu['engine'] / cpu[name]:.2f}x, largest key/value difference from the engine's {diff:.3g}")


def _full(lm, rows: list) -> None:
    """Answer every row once, counting each forward pass's places (``--full``)."""
    import torch

    layers, hidden, vocab = lm.model.config.num_hidden_layers, lm.model.config.hidden_size, lm.model.config.vocab_size
    products = 2 * sum(p.numel() for n, p in lm.model.model.layers.named_parameters() if n.endswith("proj.weight"))
    output, attention = 2 * hidden * vocab, 4 * hidden * layers
    kinds = {"read": [0, 0, 0, 0], "decode": [0, 0, 0, 0]}  # passes, places, tokens held, attended places
    reading = [False]
    forward = lm.model.forward

    @functools.wraps(forward)
    def counted(*a, **k):
        ids, mask = (a[0] if a else k["input_ids"]), k["attention_mask"]
        count = kinds["read" if reading[0] else "decode"]
        count[0] += 1
        count[1] += ids.numel()
        count[3] += ids.shape[0] * ids.shape[1] * mask.shape[1]
        if reading[0]:
            count[2] += int(mask[:, -ids.shape[1]:].sum())
        return forward(*a, **k)

    prefill = lm._prefill

    def read(*a, **k):
        reading[0] = True
        try:
            return prefill(*a, **k)
        finally:
            reading[0] = False

    lm.model.forward, lm._prefill = counted, read
    torch.manual_seed(1234)
    started, wall = time.process_time(), time.perf_counter()
    new = lm._answer(rows)
    spent, wall = time.process_time() - started, time.perf_counter() - wall
    kinds["decode"][2] = sum(map(len, new))
    flop = 0.0
    for kind, (passes, places, tokens, attended) in kinds.items():
        work = places * (products + (output if kind == "decode" else 0)) + attended * attention
        flop += work
        print(f"full  {kind:6s}: {passes} passes, {places} token places holding {tokens} tokens "
              f"(waste {places / tokens - 1:.1%}), {attended} attended places, {work / 1e12:.2f} TFLOP")
    print(f"full  {len(rows)} rows: {flop / 1e12:.2f} TFLOP in {spent:.1f} CPU s, {wall:.1f} s wall "
          f"({flop / spent / 1e9:.0f} GFLOP per CPU second, {flop / wall / 1e9:.0f} per second)")


if __name__ == "__main__":
    main()
