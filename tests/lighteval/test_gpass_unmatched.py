"""G-Pass@k's default matching (exact after trimming spaces) against answers like "A." for gold
"A": before, every value was 0 with no word; now the run's log says why and what to pass, and
``scorer=GoldMatch(normalize=loose_text)`` scores them. Through the real lighteval CLI with the
scripted model on local rows."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.lighteval.conftest import SCRIPTED_MODEL, results_file, run_lighteval

TASK_FILE = '''
from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc

from scorekit.lighteval.metrics import GoldMatch, g_pass_at_k_metric, loose_text


def prompt(line, task_name):
    return Doc(query=line["q"], choices=[line["a"]], gold_index=0, task_name=task_name, id=str(line["i"]),
               specific={{"score": {{"question_id": str(line["i"]), "family": "sampled", "variant": 0}}}})


def config(name, **scorer):
    return LightevalTaskConfig(
        name=name, prompt_function=prompt, hf_repo="{data}", hf_subset="default",
        hf_avail_splits=["test"], evaluation_splits=["test"], generation_size=4,
        metrics=[g_pass_at_k_metric(2, n=4, thresholds=[0.5], **scorer)])


TASKS_TABLE = [config("sk_strict"), config("sk_loose", scorer=GoldMatch(normalize=loose_text))]
'''
GOLDS = ["A", "C", "B"]
# no generation equals its gold after trimming; 3, 3 and 2 of them do when case and punctuation are ignored
ANSWERS = [["A.", "A.", "B.", "A."], ["(C)", "c", "D", "C."], ["A.", "A", "b.", "B!"]]


@pytest.mark.slow
def test_default_matching_that_matches_nothing_is_said_and_loose_text_scores(tmp_path, lighteval_env):
    data = tmp_path / "data"
    data.mkdir()
    (data / "test.jsonl").write_text("".join(json.dumps({"q": f"question {i}", "a": g, "i": i}) + "\n"
                                             for i, g in enumerate(GOLDS)))
    task_file = tmp_path / "sk_tasks.py"
    task_file.write_text(textwrap.dedent(TASK_FILE).format(data=data))
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"answers": {f"{i}|sampled|0": a for i, a in enumerate(ANSWERS)}}))
    out = tmp_path / "out"
    proc = run_lighteval(["custom", "scripted", str(SCRIPTED_MODEL), "sk_strict|0,sk_loose|0", "--custom-tasks",
                          str(task_file), "--output-dir", str(out), "--save-details"],
                         {**lighteval_env, "SCOREKIT_LIGHTEVAL_SCRIPT": str(script)})
    res = results_file(out, "scripted")["results"]
    assert res["sk_strict|0"]["g-pass@2_0.5"] == 0.0
    # loose: 3/4, 3/4, 2/4 correct -> G-Pass@2 at tau 0.5 = P[X >= 1] = 1 - C(4-c, 2)/C(4, 2)
    assert res["sk_loose|0"]["g-pass@2_0.5"] == pytest.approx((1 - 0 / 6 + 1 - 0 / 6 + 1 - 1 / 6) / 3)
    warned = [line for line in proc.stderr.splitlines() if "none of the" in line]
    assert len(warned) == 1, proc.stderr[-3000:]
    assert "(sk_strict|0)" in warned[0] and "none of the 12 generations equals a gold" in warned[0]
    examples = ["'A.' for gold 'A'", "'(C)' for gold 'C'", "'b.' for gold 'B'"]  # lighteval shuffles the docs
    assert any(f"but 8 do when case and punctuation are ignored (e.g. {e})" in warned[0] for e in examples), warned[0]
    assert "scorer=GoldMatch(normalize=loose_text)" in warned[0]


def test_audit_is_silent_when_one_generation_matches_or_the_scorer_is_the_users():
    from lighteval.tasks.requests import Doc

    from scorekit.lighteval.metrics import GoldMatch, UnmatchedAudit, loose_text

    doc = Doc(query="q", choices=["A"], gold_index=0, task_name="t|0")
    strict = GoldMatch()
    audit = UnmatchedAudit()
    for text in ["A.", " (a) "]:
        audit.add(strict, doc, text, strict(doc, text))
    assert audit.note(["g-pass@2_0.5"]) is not None
    audit.add(strict, doc, " A ", strict(doc, " A "))  # one exact match in the run: no warning
    assert audit.note(["g-pass@2_0.5"]) is None
    own = UnmatchedAudit()
    loose = GoldMatch(normalize=loose_text)
    own.add(loose, doc, "B.", loose(doc, "B."))
    own.add(lambda d, t: 0.0, doc, "A.", 0.0)
    assert own.generations == 0 and own.note(["x"]) is None
    assert loose_text(" (A).") == "a" and loose_text("New  York, NY") == "new york ny"
