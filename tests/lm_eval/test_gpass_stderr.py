"""What the stderr lm-eval writes for scorekit's pass@k / G-Pass@k metrics covers.

lm-eval aggregates them with ``mean`` and writes ``<metric>_stderr`` = std(per-question values,
ddof=1) / sqrt(Q): the standard error over questions of the corpus value (it includes the
noise of the n samples as far as it shows in each question's value). This test runs the real
lm-eval on a scripted model, recomputes that figure by hand from the scripted correct counts,
and checks that the bootstrap over questions (scorekit.metrics.intervals) agrees with it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = pytest.mark.slow

N_DOCS, N_SAMPLES = 40, 8


def _correct_count(i: int) -> int:
    return (i * 3) % (N_SAMPLES + 1)  # 0..8 correct samples, spread over the questions


def test_lm_eval_stderr_is_the_standard_error_over_questions(tmp_path):
    import lm_eval
    from lm_eval.tasks import TaskManager

    from scorekit.metrics.intervals import bootstrap_interval
    from tests.support.fake_lm import ScriptedLM
    from tests.support.sampling_task import write_sampling_task

    tasks = write_sampling_task(tmp_path, "sk_gpass", n_docs=N_DOCS, n_samples=N_SAMPLES, metric_list="""\
          - metric: g_pass_at_k
            k: 4
            tau: 0.5
    """)

    def generate(context, gen_kwargs, doc):
        c = _correct_count(doc["i"])
        return [doc["answer"]] * c + ["wrong"] * (N_SAMPLES - c)

    res = lm_eval.simple_evaluate(model=ScriptedLM(generate=generate), tasks=["sk_gpass"],
                                  task_manager=TaskManager(include_path=str(tasks), include_defaults=False))["results"]
    value, stderr = res["sk_gpass"]["g-pass@4_0.5,all"], res["sk_gpass"]["g-pass@4_0.5_stderr,all"]

    def by_hand(c: int) -> float:  # P[X >= 2], X ~ Hypergeometric(8, c, 4)
        return sum(math.comb(c, i) * math.comb(N_SAMPLES - c, 4 - i) for i in range(2, 5)) / math.comb(N_SAMPLES, 4)

    per_question = np.array([by_hand(_correct_count(i)) for i in range(N_DOCS)])
    assert value == pytest.approx(per_question.mean(), abs=1e-12)
    assert stderr == pytest.approx(per_question.std(ddof=1) / math.sqrt(N_DOCS), rel=1e-9)
    boot = bootstrap_interval(per_question, n_boot=4000)
    assert (boot.ci_high - boot.ci_low) / (2 * 1.96) == pytest.approx(stderr, rel=0.15)
