"""What the stderr lighteval 0.13 writes for scorekit's pass@k / G-Pass@k / mG-Pass@k covers.

scorekit's sampling metrics aggregate with ``np.mean``; lighteval then picks its ``mean_stderr``
(``get_stderr_function`` looks for "mean" in the aggregation's name): std(per-question values,
ddof=1) / sqrt(Q), the standard error over questions of the corpus value. (An aggregation
without "mean" in its name would take lighteval's bootstrap branch, which returns the standard
deviation of the bootstrap draws divided by sqrt(number of draws), about 30x too small at 1000
draws -- scorekit's metrics never take it, checked here by value.) This runs the real lighteval
CLI on a scripted model, recomputes the figure by hand from the scripted correct counts, and
checks it against scorekit's bootstrap over questions and the ``scorekit compare`` values
report read from lighteval's details.
"""

from __future__ import annotations

import json
import math
import textwrap

import numpy as np
import pytest

from scorekit.cli import main
from scorekit.metrics import g_pass_at_k, mg_pass_at_k, pass_at_k
from scorekit.metrics.intervals import bootstrap_interval
from tests.lighteval.conftest import SCRIPTED_MODEL, results_file, run_lighteval

pytestmark = pytest.mark.slow

N_DOCS, N_SAMPLES = 36, 8

TASK_FILE = '''
from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc

from scorekit.lighteval.metrics import g_pass_at_k_metric, pass_at_k_metric


def prompt(line, task_name):
    return Doc(query=line["q"], choices=[line["a"]], gold_index=0, task_name=task_name, id=str(line["i"]),
               specific={{"score": {{"question_id": str(line["i"]), "family": "sampled", "variant": 0}}}})


TASKS_TABLE = [LightevalTaskConfig(
    name="sk_gpass", prompt_function=prompt, hf_repo="{data}", hf_subset="default",
    hf_avail_splits=["test"], evaluation_splits=["test"], generation_size=4,
    metrics=[g_pass_at_k_metric(4, n={n}, thresholds=[0.5, 1.0]), pass_at_k_metric(2, n={n})],
)]
'''


def _correct_count(i: int) -> int:
    return (i * 5) % (N_SAMPLES + 1)  # 0..8 correct samples, spread over the questions


def test_lighteval_stderr_is_the_standard_error_over_questions(tmp_path, lighteval_env, capsys):
    data = tmp_path / "data"
    data.mkdir()
    (data / "test.jsonl").write_text("".join(json.dumps({"q": f"question {i}", "a": f"a{i}", "i": i}) + "\n"
                                             for i in range(N_DOCS)))
    task_file = tmp_path / "sk_tasks.py"
    task_file.write_text(textwrap.dedent(TASK_FILE).format(data=data, n=N_SAMPLES))
    answers = {f"{i}|sampled|0": [f"a{i}"] * _correct_count(i) + ["wrong"] * (N_SAMPLES - _correct_count(i))
               for i in range(N_DOCS)}
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"answers": answers}))
    out = tmp_path / "out"
    run_lighteval(["custom", "scripted", str(SCRIPTED_MODEL), "sk_gpass|0", "--custom-tasks", str(task_file),
                   "--output-dir", str(out), "--save-details"],
                  {**lighteval_env, "SCOREKIT_LIGHTEVAL_SCRIPT": str(script)})
    res = results_file(out, "scripted")["results"]["sk_gpass|0"]

    counts = [_correct_count(i) for i in range(N_DOCS)]
    by_hand = {
        "g-pass@4_0.5": [g_pass_at_k(N_SAMPLES, c, 4, 0.5) for c in counts],
        "g-pass@4_1.0": [g_pass_at_k(N_SAMPLES, c, 4, 1.0) for c in counts],
        "mg-pass@4": [mg_pass_at_k(N_SAMPLES, c, 4) for c in counts],
        "pass@2": [pass_at_k(N_SAMPLES, c, 2) for c in counts],
    }
    # an independent check of one formula: G-Pass@4 at tau 0.5 is P[X >= 2], X hypergeometric
    hyper = [sum(math.comb(c, j) * math.comb(N_SAMPLES - c, 4 - j) for j in range(2, 5)) / math.comb(N_SAMPLES, 4)
             for c in counts]
    assert by_hand["g-pass@4_0.5"] == pytest.approx(hyper, abs=1e-12)
    for name, values in by_hand.items():
        v = np.array(values, dtype=np.float64)
        assert res[name] == pytest.approx(v.mean(), abs=1e-12), name
        se = v.std(ddof=1) / math.sqrt(N_DOCS)
        assert res[f"{name}_stderr"] == pytest.approx(se, rel=1e-9), name
        boot = bootstrap_interval(v, n_boot=4000)
        assert (boot.ci_high - boot.ci_low) / (2 * 1.96) == pytest.approx(se, rel=0.15), name

    # the values report of `scorekit compare` on the same details: the corpus value and its
    # bootstrap interval over questions, equal to the bootstrap of the hand-computed values
    assert main(["compare", str(out), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    shown = {v["metric"]: v for v in doc["values"] if v["task"] == "sk_gpass|0"}
    for name, values in by_hand.items():
        row = shown[name]
        boot = bootstrap_interval(values)
        assert row["n"] == N_DOCS and row["method"] == "bootstrap"
        assert row["value"] == pytest.approx(res[name], abs=1e-12)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((boot.ci_low, boot.ci_high), abs=1e-12)
