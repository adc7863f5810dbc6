"""A generation task whose ``doc_to_target`` gives several golds, end to end through lm-eval with a
scripted model. With ``ScorekitTask`` a sample is correct when it matches any gold; lm-eval 0.4's own
ConfigurableTask calls a metric once per gold and keeps 1 if any call is non-zero, so scorekit's
metrics refuse to run there, naming the task and the fix; lm-eval 0.5 hands a metric all golds at
once, so the task needs no class line there."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from scorekit.lm_eval.compat import SCORERS

DOCS = [  # golds "4" / "four"; scripted samples per question
    {"q": "2+2", "golds": ["4", "four"], "samples": ["4", "x", "y", "z"]},      # c = 1 of 4
    {"q": "1+3", "golds": ["4", "four"], "samples": ["four", "4", "no", "no"]},  # c = 2 of 4
]
METRICS = """\
metric_list:
  - metric: pass_at_k
    k: 2
  - metric: avg_at_k
  - metric: maj_at_k
  - metric: g_pass_at_k
    k: [1, 2]
    tau: 0.5
  - metric: bow_f1
"""


def _tasks(root: Path, with_class: bool) -> Path:
    data = root / "data.jsonl"
    data.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    folder = root / "tasks"
    folder.mkdir()
    (folder / "golds.yaml").write_text(textwrap.dedent(f"""\
        task: several_golds
        {"class: !function scorekit.lm_eval.ScorekitTask" if with_class else ""}
        dataset_path: json
        dataset_kwargs:
          data_files:
            test: {data}
        test_split: test
        output_type: generate_until
        doc_to_text: "Q: {{{{q}}}} A:"
        doc_to_target: golds
        repeats: 4
        generation_kwargs:
          until: ["\\n"]
        filter_list:
          - name: all
            filter:
              - function: take_first_k
                k: 4
    """) + METRICS)
    return folder


def _run(folder: Path) -> dict:
    import lm_eval
    from lm_eval.tasks import TaskManager

    import scorekit.lm_eval  # noqa: F401  (a YAML without the class line names the metrics only)
    from tests.support.fake_lm import ScriptedLM

    lm = ScriptedLM(generate=lambda context, gen_kwargs, doc: doc["samples"])
    out = lm_eval.simple_evaluate(model=lm, tasks=["several_golds"], bootstrap_iters=0,
                                  task_manager=TaskManager(include_path=[str(folder)], include_defaults=False))
    return {k.removesuffix(",all"): v for k, v in out["results"]["several_golds"].items()}


def test_scorekit_task_counts_a_sample_correct_when_it_matches_any_gold(tmp_path):
    r = _run(_tasks(tmp_path, with_class=True))
    # pass@2 = 1 - C(n-c, 2) / C(n, 2): 1 - 3/6 and 1 - 1/6
    assert r["pass@2"] == pytest.approx((0.5 + 5 / 6) / 2)
    assert r["avg@4"] == pytest.approx((0.25 + 0.5) / 2)
    # majority: "4" wins q1 (all tie at 1, earliest first); q2 "no" (2) beats "four" and "4" (1 each)
    assert r["maj@4"] == pytest.approx(0.5)
    assert r["g-pass@1_0.5"] == pytest.approx((0.25 + 0.5) / 2)  # G-Pass@1 = c / n
    assert r["g-pass@2_0.5"] == pytest.approx((0.5 + 5 / 6) / 2)  # at least 1 of 2 right
    # bag-of-words F1 per sample against the best gold: q1 1, 0, 0, 0; q2 1, 1, 0, 0
    assert r["bow_f1"] == pytest.approx((0.25 + 0.5) / 2)


def test_plain_task_without_the_class_line(tmp_path):
    if SCORERS:
        # lm-eval 0.5's scorers hand a metric every gold at once (multiple_targets): correct as is
        r = _run(_tasks(tmp_path, with_class=False))
        assert r["pass@2"] == pytest.approx((0.5 + 5 / 6) / 2)
        assert r["maj@4"] == pytest.approx(0.5)
        assert r["g-pass@2_0.5"] == pytest.approx((0.5 + 5 / 6) / 2)
        assert r["bow_f1"] == pytest.approx((0.25 + 0.5) / 2)
        return
    # lm-eval 0.4's ConfigurableTask calls a metric once per gold: scorekit's stop, naming the fix
    with pytest.raises(ValueError, match=r"task several_golds: doc_to_target gives several golds.*"
                                         r"class: !function scorekit\.lm_eval\.ScorekitTask"):
        _run(_tasks(tmp_path, with_class=False))
