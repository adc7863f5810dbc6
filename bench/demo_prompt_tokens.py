"""How many prompt tokens the demo's model reads, for the bundled questions or another set.

Runs the demo's pipeline (``scorekit.demo.pipeline.run_harness``: the demo's tasks, lm-eval's
request building and SmolLM2's chat template, SmolLM2's tokenizer) with the demo's engine
answering nothing, so only the prompts are built and counted; no answer is generated. Reported
per benchmark and in all:

- answers: the rows the engine is asked for (the demo's 535 with its bundled data);
- prompt tokens: the sum over rows of their prompt tokens (what ``model.generate`` reads,
  without padding);
- distinct: the tokens of the distinct prompts (the five non-greedy samples share one);
- prefix tree: the tokens of the prefix tree of the distinct prompts taken in the engine's order
  in consecutive waves of ``--wave`` rows (the engine's first wave is the batch size, 128; later
  ones join when half the batch has ended, so the engine reads between the 128 and 64 figures).

    python bench/demo_prompt_tokens.py [--data-dir DIR]

``--data-dir`` holds files named as ``plugin/scorekit/demo/data`` (default: that folder).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def tree_tokens(prompts: list[tuple[int, ...]]) -> int:
    """Tokens in the prefix tree of ``prompts`` (each shared run counted once)."""
    from scorekit.demo.engine import _prefix_tree

    nodes, _ = _prefix_tree(sorted(set(prompts)))
    return sum(len(n.tokens) for n in nodes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=None)
    ap.add_argument("--wave", type=int, nargs="*", default=[128, 64])
    args = ap.parse_args()

    from scorekit.demo import engine, pipeline
    from scorekit.demo.model import resolve_model

    if args.data_dir is not None:
        pipeline.DATA_DIR = args.data_dir.resolve()
    seen: list = []

    def record(self, rows):  # the engine's rows, in lm-eval's request order; no answer
        seen.extend(rows)
        return [[] for _ in rows]

    engine.SharedPrefixHFLM._answer = record
    choice = resolve_model(None, None, dtype="float32")  # the tokens do not depend on it
    by_bench: dict[str, list] = {}
    for bench in pipeline.MAX_GEN_TOKS:  # one run per benchmark, so each row's benchmark is known
        seen.clear()
        with tempfile.TemporaryDirectory() as tmp:
            pipeline.run_harness(Path(tmp), choice, threads=1,
                                 tasks=[t for t in pipeline.DEMO_TASKS if pipeline.benchmark_of(t) == bench])
        by_bench[bench] = list(seen)
    print(f"data: {pipeline.DATA_DIR}")
    print(f"{'benchmark':10s} {'answers':>8s} {'prompt tokens':>14s} {'distinct':>9s} "
          + " ".join(f"{'tree/' + str(w):>9s}" for w in args.wave))
    everything = [r for rows in by_bench.values() for r in rows]
    for bench, rows in [*by_bench.items(), ("all", everything)]:
        prompts = [r.tokens for r in rows]
        order = sorted(prompts)  # the engine takes rows in the order of their prompt tokens
        trees = [sum(tree_tokens(order[i:i + w]) for i in range(0, len(order), w)) for w in args.wave]
        print(f"{bench:10s} {len(rows):8d} {sum(map(len, prompts)):14d} {sum(map(len, set(prompts))):9d} "
              + " ".join(f"{t:9d}" for t in trees))


if __name__ == "__main__":
    main()
