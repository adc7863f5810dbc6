"""G-Pass@k inside lighteval's metric interface: scorekit's metric vs lighteval's built-in.

Both metrics get the same 10,000 docs x n = 16 generations (fixed seed; per-doc success
probability drawn uniformly, so every c in 0..16 occurs) through lighteval's own
``Metric.compute_sample`` and the corpus aggregation lighteval uses (``np.mean`` per name).
Same k list and thresholds. Prints both timings, the ratio, and the largest difference
between the two corpus values of every common metric (they must agree).

    python bench/bench_lighteval_gpass.py [--docs 10000] [--n 16] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def build_inputs(n_docs: int, n: int, seed: int):
    from lighteval.models.model_output import ModelResponse
    from lighteval.tasks.requests import Doc

    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, n_docs)
    correct = rng.uniform(0, 1, (n_docs, n)) < p[:, None]
    docs, responses = [], []
    for i in range(n_docs):
        gold = str(i % 97)
        docs.append(Doc(query=f"question {i}", choices=[gold], gold_index=0, id=str(i), task_name="bench|0"))
        responses.append(ModelResponse(text=[gold if ok else f"wrong {j}" for j, ok in enumerate(correct[i])]))
    return docs, responses, correct.sum(axis=1)


def run(make_metric, docs, responses) -> tuple[float, dict[str, float]]:
    metric = make_metric()  # fresh object per run: no state carried over between timed runs
    start = time.perf_counter()
    outputs = [metric.compute_sample(doc=d, model_response=r) for d, r in zip(docs, responses)]
    values: dict[str, list[float]] = {}
    for out in outputs:
        for k, v in out.items():
            values.setdefault(k, []).append(v)
    aggs = metric.get_corpus_aggregations()
    corpus = {k: float(aggs[k](v)) for k, v in values.items()}
    return time.perf_counter() - start, corpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=10_000)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--k", type=int, nargs="+", default=[1, 4, 8, 16])
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from lighteval.metrics.metrics_sample import GPassAtK
    from lighteval.metrics.utils.metric_utils import SampleLevelMetricGrouping
    from lighteval.tasks.requests import SamplingMethod

    from scorekit.lighteval.metrics import g_pass_at_k_metric

    thresholds = [0.0, 0.25, 0.5, 0.75, 1.0]

    def make_builtin():
        fn = GPassAtK(k=args.k, n=args.n, thresholds=thresholds, strip_strings=True)
        return SampleLevelMetricGrouping(
            metric_name=fn.metric_names, higher_is_better=dict.fromkeys(fn.metric_names, True),
            category=SamplingMethod.GENERATIVE, sample_level_fn=fn, corpus_level_fn=np.mean,
        )

    def make_ours():
        return g_pass_at_k_metric(args.k, args.n, thresholds=thresholds)

    assert list(make_ours().metric_name) == list(make_builtin().metric_name)

    docs, responses, c = build_inputs(args.docs, args.n, args.seed)
    print(f"{args.docs} docs x n={args.n}, k={args.k}, thresholds={thresholds}; "
          f"correct counts c span {c.min()}..{c.max()}")
    t_ours, v_ours = min(run(make_ours, docs, responses) for _ in range(args.repeat))
    t_builtin, v_builtin = min(run(make_builtin, docs, responses) for _ in range(args.repeat))
    diff = max(abs(v_ours[k] - v_builtin[k]) for k in v_builtin)
    print(f"lighteval GPassAtK : {t_builtin:8.3f} s  ({1e6 * t_builtin / args.docs:7.1f} us/doc)")
    print(f"scorekit GPassAtK  : {t_ours:8.3f} s  ({1e6 * t_ours / args.docs:7.1f} us/doc)")
    print(f"ratio lighteval / scorekit: {t_builtin / t_ours:.2f}x")
    print(f"max |difference| over {len(v_builtin)} corpus values: {diff:.3g}")
    for name in (f"g-pass@{args.k[-1]}_0.5", f"mg-pass@{args.k[-1]}"):
        print(f"  {name}: scorekit {v_ours[name]:.12f}  lighteval {v_builtin[name]:.12f}")


if __name__ == "__main__":
    main()
