"""Benchmark: float32 matrix products of the demo's model (SmolLM2-135M), MKL against oneDNN.

torch computes a float32 ``linear`` with MKL's sgemm and a bfloat16 one with oneDNN. MKL picks
its code path by CPU vendor, oneDNN by instruction set, so on an AMD CPU the two may differ
where on an Intel CPU they do not. For each of the model's weight shapes (576 -> 576, 192,
1536; 1536 -> 576; the 576 -> 49,152 output layer) and rows per product (1,024 and 128 as
when reading prompts, 64 and 16 as in decoding steps), reported: GFLOP/s of
``torch.nn.functional.linear`` (MKL) and of oneDNN with the weight prepacked
(``torch.ops.mkldnn._reorder_linear_weight`` / ``_linear_pointwise``), their ratio, and the
largest difference of the results. CPU time (``process_time``), so a busy machine slows both
alike; run it under the environment being compared, e.g. AVX2 kernels:

    ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 \\
        python bench/bench_demo_linear.py [--threads N]
"""

from __future__ import annotations

import argparse
import time

SHAPES = [(576, 576), (576, 192), (576, 1536), (1536, 576), (576, 49152)]


def _per_call(fn, reps: int) -> float:
    fn()
    started = time.process_time()
    for _ in range(reps):
        fn()
    return (time.process_time() - started) / reps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {args.threads} thread(s); {torch.backends.cpu.get_cpu_capability()}")
    for rows in (1024, 128, 64, 16):
        for k, n in SHAPES:
            x, w = torch.randn(rows, k), torch.randn(n, k) / k ** 0.5
            packed = torch.ops.mkldnn._reorder_linear_weight(w, rows)
            mkl = lambda: torch.nn.functional.linear(x, w)  # noqa: E731
            onednn = lambda: torch.ops.mkldnn._linear_pointwise(x, packed, None, "none", [], "")  # noqa: E731
            reps = max(3, int(2e9 / (2 * rows * k * n)))
            a, b = _per_call(mkl, reps), _per_call(onednn, reps)
            flop = 2 * rows * k * n / 1e9
            print(f"rows {rows:5d}  {k:5d} -> {n:6d}  MKL {flop / a:6.1f} GFLOP/s  oneDNN {flop / b:6.1f} GFLOP/s  "
                  f"MKL/oneDNN time {a / b:4.2f}  max diff {(mkl() - onednn()).abs().max().item():.1e}", flush=True)


if __name__ == "__main__":
    main()
