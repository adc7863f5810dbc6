"""Benchmark: the demo's two speed choices, each side by side with lm-eval's own path, in one run.

1. **Loading** SmolLM2-135M-Instruct from its GGUF file into lm-eval's ``hf`` model: plain, and
   inside :func:`scorekit.demo.engine.gguf_read_once` (the file read once). Reported: CPU and
   wall seconds; the loaded weights are checked equal. ``--load`` loads only, three ways
   (lm-eval's plain load; gguf's reader read once, the demo before 2026-11-29; the demo's
   :class:`scorekit.demo.gguf_file.GGUFFile` read once), ``--rounds`` times in turn, the order
   reversed every other round, and checks weights, config and tokenizer equal.
2. **Generating** the demo's answers: lm-eval's ``HFLM`` (``model.generate``) and
   :class:`scorekit.demo.engine.SharedPrefixHFLM` on the same requests (the demo's 535 by
   default, from a samples folder of an earlier ``scorekit demo`` run; ``--every K`` keeps every
   K-th), batch size 128 (the demo's), float32 unless ``--dtype bfloat16``. Reported: CPU and
   wall seconds and how many greedy answers are the same text.

3. **Stages** (``--stages``: the demo's engine only, lm-eval's path skipped): CPU seconds of
   loading, reading prompts (prefix-tree forward passes), building the batch when a wave joins,
   decoding steps and choosing tokens, and the thread count before each wave when
   ``--follow`` sets it as the demo does (:class:`scorekit.demo.threads.ThreadFollower`).

    python bench/bench_demo.py DEMO_OUTPUT_DIR [--every K] [--threads N] [--dtype bfloat16] [--stages [--follow]]
    python bench/bench_demo.py --load [--rounds R]

Run it on an idle machine; the CPU model is printed with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import glob
import platform
import time
import warnings
from pathlib import Path


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return platform.processor()


def _timed(fn):
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("demo_dir", nargs="?", help="output folder of an earlier `scorekit demo` run (its lm_eval/ samples)")
    ap.add_argument("--load", action="store_true", help="load the model only, three ways side by side")
    ap.add_argument("--rounds", type=int, default=3, help="with --load: rounds of the three loads")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    ap.add_argument("--stages", action="store_true", help="the demo's engine only, CPU seconds per stage")
    ap.add_argument("--follow", action="store_true", help="with --stages: threads set before each wave as the demo does")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    import torch
    from lm_eval.models.huggingface import HFLM

    from scorekit.demo.engine import SharedPrefixHFLM, gguf_read_once
    from scorekit.demo.model import smollm2_gguf

    torch.set_num_threads(args.threads)
    path = smollm2_gguf()
    model_args = f"pretrained={path.parent},gguf_file={path.name},dtype={args.dtype}"
    print(f"CPU: {_cpu()}, {args.threads} torch thread(s), torch {torch.__version__}, {args.dtype}")

    if args.stages:
        _stages(args, model_args)
        return
    if args.load:
        _loads(args, model_args)
        return
    if args.demo_dir is None:
        ap.error("DEMO_OUTPUT_DIR is needed unless --load")
    loaded = {}
    for name, cls, ctx in (("lm-eval HFLM, plain load", HFLM, contextlib.nullcontext),
                           ("SharedPrefixHFLM, gguf_read_once", SharedPrefixHFLM, gguf_read_once)):
        def load(cls=cls, ctx=ctx):
            with ctx():
                return cls.create_from_arg_string(model_args, {"batch_size": 128, "device": "cpu"})
        loaded[name], cpu, wall = _timed(load)
        print(f"load  {name:36s} cpu {cpu:6.1f} s  wall {wall:6.1f} s")
    plain, ours = loaded.values()
    same = all(torch.equal(a, b) for a, b in zip(plain.model.state_dict().values(), ours.model.state_dict().values()))
    print(f"load  same weights: {same}")

    instances, requests = _requests(args)
    answers = {}
    for name, lm in (("lm-eval HFLM (model.generate)", plain), ("SharedPrefixHFLM", ours)):
        torch.manual_seed(1234)
        answers[name], cpu, wall = _timed(lambda lm=lm: lm.generate_until(instances, disable_tqdm=True))
        print(f"generate {len(instances)} answers  {name:30s} cpu {cpu:6.1f} s  wall {wall:6.1f} s")
    greedy = [i for i, (_, gen) in enumerate(requests) if not gen.get("do_sample")]
    a, b = answers.values()
    print(f"generate  same greedy text: {sum(a[i] == b[i] for i in greedy)} of {len(greedy)}")


@contextlib.contextmanager
def _gguf_reader_read_once():
    """The demo's load before 2026-11-29: gguf's own reader, read once (and the name map)."""
    import gguf

    saved = gguf.GGUFReader, gguf.get_tensor_name_map
    gguf.GGUFReader = functools.lru_cache(maxsize=None)(gguf.GGUFReader)
    gguf.get_tensor_name_map = functools.lru_cache(maxsize=None)(gguf.get_tensor_name_map)
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = saved


def _loads(args, model_args: str) -> None:
    """Load the model three ways, ``--rounds`` times in turn; CPU and wall seconds of each, and
    whether the three give the same weights, config and tokenizer."""
    import torch
    from lm_eval.models.huggingface import HFLM

    from scorekit.demo.engine import SharedPrefixHFLM, gguf_read_once

    ways = [("lm-eval HFLM, plain load", HFLM, contextlib.nullcontext),
            ("gguf's reader, read once", SharedPrefixHFLM, _gguf_reader_read_once),
            ("GGUFFile, read once (the demo)", SharedPrefixHFLM, gguf_read_once)]
    times: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in ways}
    loaded = {}
    for r in range(args.rounds):
        for name, cls, ctx in (ways if r % 2 == 0 else ways[::-1]):
            def load(cls=cls, ctx=ctx):
                with ctx():
                    return cls.create_from_arg_string(model_args, {"batch_size": 128, "device": "cpu"})
            loaded[name], cpu, wall = _timed(load)
            times[name].append((cpu, wall))
            print(f"round {r + 1}  load  {name:32s} cpu {cpu:6.1f} s  wall {wall:6.1f} s", flush=True)
    for name, got in times.items():
        cpus = sorted(c for c, _ in got)
        print(f"load  {name:32s} cpu median {cpus[len(cpus) // 2]:6.1f} s  (all: {', '.join(f'{c:.1f}' for c in cpus)})")
    first, *others = loaded.values()
    same = all(
        all(torch.equal(a, b) for a, b in zip(first.model.state_dict().values(), o.model.state_dict().values()))
        and first.model.config.to_dict() == o.model.config.to_dict()
        and first.tokenizer.backend_tokenizer.to_str() == o.tokenizer.backend_tokenizer.to_str()
        and first.tokenizer.chat_template == o.tokenizer.chat_template
        for o in others)
    print(f"load  same weights, config and tokenizer: {same}")


def _requests(args):
    """The demo's generate_until requests from an earlier run's samples (every ``--every``-th)."""
    import json

    from lm_eval.api.instance import Instance

    requests = []
    for file in sorted(glob.glob(str(Path(args.demo_dir) / "lm_eval" / "*" / "samples_*.jsonl"))):
        for line in open(file, encoding="utf-8"):
            row = json.loads(line)
            gen = row["arguments"]["gen_args_0"]
            requests += [(gen["arg_0"], gen["arg_1"])] * len(row["resps"][0])
    requests = requests[:: args.every]
    return [Instance("generate_until", None, r, i) for i, r in enumerate(requests)], requests


def _stages(args, model_args: str) -> None:
    """CPU seconds per stage of the demo's engine on the demo's requests (``--stages``)."""
    import collections

    import torch

    from scorekit.demo.engine import SharedPrefixHFLM, gguf_read_once
    from scorekit.demo.threads import ThreadFollower, usable_processors

    cpu: collections.Counter = collections.Counter()

    def counted(name, fn):
        @functools.wraps(fn)  # the engine reads forward's signature
        def wrapped(*a, **k):
            started = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                cpu[name] += time.process_time() - started
        return wrapped

    with gguf_read_once():
        lm, cpu["load"], _ = _timed(lambda: SharedPrefixHFLM.create_from_arg_string(
            model_args, {"batch_size": 128, "device": "cpu"}))
    follower = ThreadFollower(usable_processors(), args.threads) if args.follow else None
    lm.before_wave = follower
    for name in ("_prefill", "_join", "_choose"):  # on the instance: the class stays as it is
        setattr(lm, name, counted(name, getattr(lm, name)))
    lm.model.forward = counted("forward", lm.model.forward)
    instances, _ = _requests(args)
    torch.manual_seed(1234)
    _, total, wall = _timed(lambda: lm.generate_until(instances, disable_tqdm=True))
    prefill, join, choose = cpu["_prefill"], cpu["_join"] - cpu["_prefill"], cpu["_choose"]
    decode = cpu["forward"] - prefill  # the forward passes outside reading prompts are decoding steps
    print(f"stages ({len(instances)} answers, CPU s): load {cpu['load']:.1f}; generate {total:.1f} "
          f"(wall {wall:.1f}) = read prompts {prefill:.1f} + join waves {join:.1f} + decode steps {decode:.1f} "
          f"+ choose tokens {choose:.1f} + rest {total - prefill - join - decode - choose:.1f}")
    if follower is not None:
        print(f"threads before each wave: {' -> '.join(map(str, follower.used))}")


if __name__ == "__main__":
    main()
