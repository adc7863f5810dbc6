"""lm-eval's ``consistency_rate`` metric counts a filter's fallback (``[invalid]``: nothing
extracted) as unparsed, as ``scorekit robustness`` does, and is undefined (NaN) when nothing parses.

The task is README's own ScorekitTask example (regex filter, 16 repeats), read from README.md,
with ``consistency_rate`` added to its ``metric_list`` and a local dataset."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_task(root: Path, *, fallback_step: str = "", metric_extra: str = "") -> Path:
    """README's ``my_math`` YAML plus ``- metric: consistency_rate`` (and ``metric_extra`` lines
    under it), a ``fallback`` key on its regex step when given, over 3 questions; the tasks folder."""
    (block,) = re.findall(r"```yaml\n(task: my_math\n.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert "repeats: 16" in block and "function: regex" in block
    if fallback_step:
        block = block.replace("      - function: regex\n", f"      - function: regex\n        fallback: {fallback_step}\n")
    data = root / "data.jsonl"
    data.write_text("".join(json.dumps({"q": f"What is {i} + {i}?", "answer": str(2 * i)}) + "\n" for i in range(3)))
    tasks = root / "tasks"
    tasks.mkdir()
    (tasks / "my_math.yaml").write_text(
        block + "  - metric: consistency_rate\n" + metric_extra
        + f"dataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {data}\ntest_split: test\n"
        + 'doc_to_text: "{{q}}"\ndoc_to_target: answer\n')
    return tasks


def test_fallback_is_unparsed_in_the_metric():
    from scorekit.lm_eval.metrics import consistency_rate

    assert consistency_rate([None], [["[invalid]", " 4 ", "", "4"]]) == [None, "4", None, "4"]
    assert consistency_rate([None], [["none", " no  answer ", "4"]], fallback=["none", "no answer"]) == [None, None, "4"]


def _run(tasks: Path, answers: dict[str, list[str]]) -> dict[str, float]:
    import lm_eval
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    lm = ScriptedLM(generate=lambda context, gen_kwargs, doc: answers[doc["answer"]])
    tm = TaskManager(include_path=str(tasks), include_defaults=False)
    res = lm_eval.simple_evaluate(model=lm, tasks=["my_math"], task_manager=tm)["results"]["my_math"]
    return {k.split(",")[0]: v for k, v in res.items() if k.endswith(",all")}


# 16 samples per question: 8 parsed "4" and 8 with no "answer is N" ([invalid]); 16 unparsed;
# 4 "0", 4 "1" and 8 unparsed. Pairs: 28, 0, 6 + 6 agreeing of 120 each.
ANSWERS = {"0": ["The answer is 0"] * 4 + ["The answer is 1"] * 4 + ["I cannot tell"] * 8,
           "2": ["I cannot tell"] * 16,
           "4": ["The answer is 4", "no idea"] * 8}


@pytest.mark.slow
def test_readme_task_counts_regex_fallbacks_as_unparsed(tmp_path):
    got = _run(readme_task(tmp_path), ANSWERS)
    assert got["consistency_rate"] == pytest.approx((28 + 0 + 12) / 360)  # was (56 + 120 + 40) / 360
    assert got["pass@1"] == pytest.approx((4 / 16 + 0 + 8 / 16) / 3)  # the other metrics as before


@pytest.mark.slow
def test_a_filter_step_fallback_is_unparsed_too(tmp_path):
    # the regex step writes "none" for no match: ScorekitTask hands the task's fallbacks to the metric
    assert _run(readme_task(tmp_path, fallback_step='"none"'), ANSWERS)["consistency_rate"] == pytest.approx(40 / 360)


@pytest.mark.slow
def test_a_fallback_given_in_the_metric_list_wins(tmp_path):
    # "The answer is 1" is extracted as "1"; the metric is told "1" means nothing was found
    tasks = readme_task(tmp_path, metric_extra='    fallback: ["[invalid]", "1"]\n')
    assert _run(tasks, ANSWERS)["consistency_rate"] == pytest.approx((28 + 0 + 6) / 360)


@pytest.mark.slow
def test_dummy_model_gives_undefined_not_one(tmp_path):
    # lm-eval's dummy model answers "lol": the regex never matches, every answer is [invalid]
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "lm_eval", "--model", "dummy", "--tasks", "my_math", "--include_path",
                           str(readme_task(tmp_path)), "--output_path", str(out), "--log_samples"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (results,) = out.glob("*/results_*.json")
    value = json.loads(results.read_text())["results"]["my_math"]["consistency_rate,all"]
    assert math.isnan(value)  # was 1.0
    (samples,) = out.glob("*/samples_my_math_*.jsonl")
    row = json.loads(samples.read_text().splitlines()[0])
    assert row["filtered_resps"] == [["[invalid]"] * 16] and row["consistency_rate"] == [None] * 16
