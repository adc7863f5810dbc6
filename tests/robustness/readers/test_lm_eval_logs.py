"""Readers on real lm-eval logs: scorekit's SCORE tasks and lm-eval's own (upstream) ones.

The logs are written by lm-eval itself (see report_fixtures/build_logs.py); answers come from
scripted policies, so every expected value below follows from the policy by hand.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.errors import ScorekitError
from scorekit.robustness.readers import classify_task, read_paths
from scorekit.robustness.records import as_record
from tests.robustness.report_fixtures import build_logs

pytestmark = pytest.mark.slow

# Fixture questions (report_fixtures/data/mmlu_pro.jsonl): question_id -> (n options, gold index)
MMLU = {"70": (10, 2), "71": (10, 7), "72": (4, 0), "73": (7, 2), "74": (10, 9), "75": (5, 3)}


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    return build_logs.upstream_logs(tmp_path_factory)


@pytest.fixture(scope="module")
def scorekit_logs(tmp_path_factory):
    return build_logs.scorekit_logs(tmp_path_factory)


def _sets(result):
    return {(s.model, s.task.name): s for s in result.samples}


def test_classify_task_names():
    t = classify_task("score_prompt_robustness_mmlu_pro")
    assert (t.benchmark, t.family, t.subset, t.is_group) == ("mmlu_pro", "prompt", None, False)
    t = classify_task("option_order_robustness_agieval_lsat_ar")
    assert (t.benchmark, t.family, t.subset) == ("agieval", "option_order", "lsat_ar")
    t = classify_task("non_greedy_robustness_math_counting_and_prob")
    assert (t.benchmark, t.family, t.subset) == ("math", "non_greedy", "counting_and_probability")
    assert classify_task("score_prompt_robustness_agieval").is_group
    for other in ("option_order_robustness_math_algebra", "score_robustness_mmlu_pro", "mmlu_pro",
                  "prompt_robustness_agieval_unknown", "leaderboard_mmlu_pro"):
        assert classify_task(other) is None, other


def test_upstream_logs_models_layouts_and_counts(upstream):
    sets = _sets(read_paths([upstream["upstream"]]))
    assert {m for m, _ in sets} == {"scripted/steady", "scripted/always-c", "scripted/mixed"}
    prompt = sets[("scripted/mixed", "score_prompt_robustness_mmlu_pro")]
    assert prompt.layout == "upstream"
    assert len(prompt.records) == 60
    assert {r.variant for r in prompt.records} == set(range(10))
    # MMLU-Pro option order: upstream writes 10 rows per question; rows past the last option are dropped
    oo = sets[("scripted/steady", "score_option_order_robustness_mmlu_pro")]
    assert len(oo.records) == sum(n for n, _ in MMLU.values())
    assert any("past the question's last option" in n for n in oo.notes)
    assert all(r.correct and r.answer == MMLU[r.question_id][1] for r in oo.records)
    # AGIEval ids follow scorekit's "<subset>/<row>" scheme; upstream tries positions A-D only
    ag = sets[("scripted/steady", "option_order_robustness_agieval_aqua_rat")]
    assert {r.question_id for r in ag.records} == {f"aqua_rat/{i}" for i in range(4)}
    assert {r.variant for r in ag.records} == {0, 1, 2, 3}
    assert any("never shown" in n for n in ag.notes)


def test_upstream_option_order_maps_letters_back_to_original_options(upstream):
    """Always answering letter C: the content picked is option_map[2] of each displayed order."""
    sets = _sets(read_paths([upstream["upstream"]]))
    oo = sets[("scripted/always-c", "score_option_order_robustness_mmlu_pro")]
    for r in oo.records:
        n, gold = MMLU[r.question_id]
        p = r.variant  # the gold was swapped into position p
        expected = gold if p == 2 else (p if gold == 2 else 2)
        assert r.answer == expected, r
        assert r.correct == (p == 2)


def test_upstream_five_seed_layout_is_merged_by_question(upstream):
    sets = _sets(read_paths([upstream["upstream_ng"]]))
    ng = sets[("scripted/sampler", "score_non_greedy_robustness_mmlu_pro")]
    assert ng.runs == [f"seed {s}" for s in range(1, 6)]
    assert len(ng.records) == 30 and {r.n_variants for r in ng.records} == {5}
    for r in ng.records:
        seed = r.variant + 1
        says_b = (int(r.question_id) + seed) % 3 == 0
        assert r.answer == (1 if says_b else MMLU[r.question_id][1])


def test_five_seed_merge_agrees_with_upstream_summarizer(upstream, tmp_path):
    """Upstream's own non_greedy_summarizer.py on the same seed_1..seed_5 folders."""
    from scorekit.robustness.analysis import summarize

    log_dir = tmp_path / "ng"
    shutil.copytree(upstream["upstream_ng"], log_dir, ignore=shutil.ignore_patterns("*_results_*.json"))
    proc = subprocess.run(
        [sys.executable, "-m", "lm_eval.tasks.score.non_greedy_summarizer", "--log_dir", str(log_dir), "--dataset", "mmlu_pro"],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (summary_file,) = log_dir.glob("mmlu_pro_results_*.json")
    upstream_values = json.loads(summary_file.read_text())["results"]["score_non_greedy_robustness_mmlu_pro"]
    ours = summarize(_sets(read_paths([upstream["upstream_ng"]]))[("scripted/sampler", "score_non_greedy_robustness_mmlu_pro")].records)
    assert ours.consistency_rate == pytest.approx(upstream_values["consistency_rate,none"])
    assert ours.consistency_rate == pytest.approx(28 / 60)
    for seed in range(1, 6):
        assert ours.variant_accuracy[seed - 1] == pytest.approx(upstream_values[f"seed_{seed}_accuracy,none"])


def test_scorekit_logs_recompute_exactly_what_the_run_logged(scorekit_logs):
    """Recomputing from doc + filtered_resps gives the records scorekit's process_results logged."""
    sets = _sets(read_paths([scorekit_logs["scorekit"]]))
    assert len(sets) == 6 and all(s.layout == "scorekit" for s in sets.values())
    for (model, task), s in sets.items():
        (path,) = [Path(p) for p in s.sources]
        logged = []
        for row in build_logs.read_rows(path):
            item = row[row["metrics"][0]]
            logged.extend(as_record(x) for x in (item if isinstance(item[0], list) else [item]))
        assert sorted(s.records) == sorted(logged), task
    ng = sets[("scripted/mixed", "score_non_greedy_robustness_mmlu_pro")]
    assert len(ng.records) == 30 and {r.variant for r in ng.records} == set(range(5))


def test_scorekit_logs_with_full_maps_read_the_same(scorekit_logs, tmp_path):
    """Logs written before the compact maps (full identity maps, ``variant_kind``) give the same
    records as the compact ones."""
    from scorekit.robustness.grading import original_index
    from scorekit.robustness.task_variants import swap_order

    empty_maps = shown_maps = files = 0
    for src in sorted(scorekit_logs["scorekit"].rglob("samples_*option_order*mmlu_pro*.jsonl")):
        dst = tmp_path / src.parent.name / src.name
        dst.parent.mkdir(exist_ok=True)
        shutil.copy(next(src.parent.glob("results_*.json")), dst.parent)
        rows = build_logs.read_rows(src)
        for row in rows:
            doc = row["doc"]
            n = len(doc["options"])
            full = [original_index(doc, d) for d in range(n)]
            gold = full[doc["gold_index"]]
            assert full == swap_order(n, gold, doc["variant"])
            empty_maps += doc["option_map"] == []
            shown_maps += doc["option_map"] != []
            doc.update(option_map=full, canonical_map=doc["canonical_map"] or list(range(n)), variant_kind="answer_position")
        dst.write_text("".join(json.dumps(r) + "\n" for r in rows))
        (new,) = read_paths([src]).samples
        (old,) = read_paths([dst]).samples
        assert old.layout == "scorekit" and old.records == new.records and len(old.records) == sum(n for n, _ in MMLU.values())
        files += 1
    assert files and empty_maps and shown_maps


def test_upstream_option_order_without_mapping_fields_is_said(upstream, tmp_path):
    """An upstream option-order log whose docs lack original_answer_index (rewritten from a real
    one): the records cannot be computed and the reader says why."""
    (src,) = (upstream["upstream"] / "scripted__always-c").glob("samples_score_option_order_robustness_mmlu_pro_*.jsonl")
    dst = tmp_path / "scripted__always-c" / src.name
    dst.parent.mkdir()
    rows = build_logs.read_rows(src)
    for row in rows:
        del row["doc"]["original_answer_index"]
    dst.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (s,) = read_paths([dst]).samples
    assert s.records == []
    assert any("original_answer_index" in n and "cannot be recomputed" in n for n in s.notes)


def test_malformed_jsonl_names_the_line(upstream, tmp_path):
    (src,) = (upstream["upstream"] / "scripted__mixed").glob("samples_score_prompt_robustness_mmlu_pro_*.jsonl")
    lines = src.read_text().splitlines(keepends=True)
    bad = tmp_path / src.name
    bad.write_text("".join(lines[:3]) + "{not json\n" + "".join(lines[3:]))
    with pytest.raises(ScorekitError) as exc:
        read_paths([bad])
    assert str(exc.value).startswith(f"{bad}: line 4: invalid JSON")


def test_hand_written_bad_inputs(tmp_path):
    empty = tmp_path / "samples_score_prompt_robustness_mmlu_pro_2024-01-01T00-00-00.000001.jsonl"
    empty.write_text("")
    with pytest.raises(ScorekitError, match="empty samples file"):
        read_paths([empty])
    not_score = tmp_path / "samples_arc_easy_2024-01-01T00-00-00.000001.jsonl"
    not_score.write_text('{"doc": {}, "resps": []}\n')
    with pytest.raises(ScorekitError, match="not a SCORE robustness task log"):
        read_paths([not_score])
    odd_doc = tmp_path / "samples_score_prompt_robustness_mmlu_pro_2024-01-02T00-00-00.000001.jsonl"
    odd_doc.write_text('{"doc": {"q": 1}, "filtered_resps": ["x"]}\n')
    with pytest.raises(ScorekitError, match=r"line 1: unknown layout"):
        read_paths([odd_doc])
    list_line = tmp_path / "samples_score_prompt_robustness_mmlu_pro_2024-01-03T00-00-00.000001.jsonl"
    list_line.write_text("[1, 2]\n")
    with pytest.raises(ScorekitError, match="line 1: expected a JSON object"):
        read_paths([list_line])
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    with pytest.raises(ScorekitError, match="unknown layout"):
        read_paths([other])
    config = tmp_path / "config.json"
    config.write_text('{"a": 1}')
    with pytest.raises(ScorekitError, match="not an lm-eval results file"):
        read_paths([config])
    with pytest.raises(ScorekitError, match="no input"):
        read_paths([])
    folder = tmp_path / "nothing_here"
    folder.mkdir()
    (folder / "readme.txt").write_text("x")
    with pytest.raises(ScorekitError, match="no SCORE robustness results or samples found"):
        read_paths([folder])


def _first_text(resps):
    """The one answer of a line: lm-eval 0.4 writes ``["text"]``, 0.5 ``[["text"]]``."""
    while isinstance(resps, list):
        resps = resps[0]
    return resps


def test_scorekit_log_records_are_record_for_line_by_line(scorekit_logs):
    """A samples log's records are the records record_for gives line by line."""
    from scorekit.robustness.grading import record_for

    checked = 0
    for src in sorted(scorekit_logs["scorekit"].rglob("samples_*prompt*mmlu_pro*.jsonl")):
        (sample_set,) = read_paths([src]).samples
        want = [record_for(row["doc"], _first_text(row["filtered_resps"])) for row in build_logs.read_rows(src)]
        assert list(sample_set.records) == want and len(want) == 10 * len(MMLU)
        checked += 1
    assert checked


def test_a_variant_beyond_64_bits_is_one_line_naming_the_line(tmp_path):
    """A doc whose variant and n_variants do not fit the analysis' 64-bit integers: exit 2 and
    one line naming the file and line, no traceback (as for any other unscorable sample)."""
    import json
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    src = Path(__file__).parents[2] / "conformance/corpus/lm-eval-0.4.13/score-scorekit/corpus-org__scripted-api"
    (log,) = src.glob("samples_score_prompt_robustness_mmlu_pro_*.jsonl")
    shutil.copy(next(src.glob("results_*.json")), tmp_path)
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    rows[1]["doc"].update(variant=10**20, n_variants=10**21)
    bad = tmp_path / log.name
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "scorekit", "robustness", str(bad)], capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and bad.name in lines[0] and "line 2" in lines[0] and "Traceback" not in proc.stderr
