"""Reading lm-eval / lighteval results files: layout, model identity, merging, skipping, errors."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from scorekit.leaderboards.results_files import discover, load_results, merge, read_results_file
from scorekit.errors import ScorekitError
from scorekit.harness_outputs.kinds import LIGHTEVAL, LM_EVAL
from tests.leaderboards.leaderboard_fixtures.layouts import lm_eval_body, write_lighteval_results, write_lm_eval_results

VALUES = {
    "leaderboard_gpqa": {"acc_norm,none": 0.3},
    "leaderboard_musr_team_allocation": {"acc_norm,none": 0.4},
    "leaderboard_musr_object_placements": {"acc_norm,none": 0.25},
}


def test_reads_lm_eval_tracker_output(tmp_path):
    path = write_lm_eval_results(tmp_path / "out", lm_eval_body(VALUES, model="org/model-a"))
    # lm-eval's own layout: OUT/<model_name_sanitized>/results_<ISO time with - for :>.json
    assert path.parent.name == "org__model-a" and path.name.startswith("results_20")
    data = json.loads(path.read_text())
    for key in ("results", "groups", "group_subtasks", "configs", "versions", "n-shot", "higher_is_better",
                "n-samples", "config", "model_name", "model_name_sanitized", "date", "total_evaluation_time_seconds"):
        assert key in data, key
    rf = read_results_file(path)
    assert rf.harness == LM_EVAL and rf.model == "org/model-a"
    assert (rf.timestamp, rf.timestamp_source) == (data["date"], "date field")
    assert rf.tasks["leaderboard_gpqa"]["acc_norm,none"] == 0.3
    assert rf.tasks["leaderboard_musr"]["alias"] == "leaderboard_musr"  # group row kept as written
    assert rf.n_shot["leaderboard_gpqa"] == 0


def _lm_eval_file(path: Path, **top) -> Path:
    body = {"results": {"t": {"acc,none": 0.5}}, "versions": {"t": 1}, **top}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "top, expected",
    [
        ({"model_name": "org/m"}, "org/m"),
        ({"config": {"model": "hf", "model_args": "dtype=float16,pretrained=org/from-args,revision=main"}}, "org/from-args"),
        ({"config": {"model": "hf", "model_args": "pretrained=org/base,peft=org/adapter"}}, "org/adapter"),
        ({"config": {"model": "hf", "model_args": {"pretrained": "org/dict-args"}}}, "org/dict-args"),
        ({"config": {"model": "org/obj-name", "model_args": None}}, "org/obj-name"),
        ({"config": {}}, "folder__name"),
    ],
)
def test_lm_eval_model_identity(tmp_path, top, expected):
    path = _lm_eval_file(tmp_path / "folder__name" / "results_2024-01-01T00-00-00.000001.json", **top)
    assert read_results_file(path).model == expected


def test_timestamp_sources(tmp_path):
    named = _lm_eval_file(tmp_path / "a" / "results_2024-06-16T10-22-33.123456.json", model_name="m")
    rf = read_results_file(named)
    assert rf.timestamp == datetime(2024, 6, 16, 10, 22, 33, 123456).timestamp()
    dated = _lm_eval_file(tmp_path / "b" / "my_results.json", model_name="m", date=1718000000.5)
    assert (read_results_file(dated).timestamp, read_results_file(dated).timestamp_source) == (1718000000.5, "date field")
    # both: the date field (Unix seconds) wins over the name's local time
    both = _lm_eval_file(tmp_path / "d" / "results_2024-06-16T10-22-33.123456.json", model_name="m", date=1600000000.0)
    assert (read_results_file(both).timestamp, read_results_file(both).timestamp_source) == (1600000000.0, "date field")
    plain = _lm_eval_file(tmp_path / "c" / "plain.json", model_name="m")
    os.utime(plain, (1600000000, 1600000000))
    assert (read_results_file(plain).timestamp, read_results_file(plain).timestamp_source) == (1600000000, "modification time")


def test_lighteval_layout_and_keys(tmp_path):
    path = write_lighteval_results(
        tmp_path / "out", "org/light", {"ifeval|0": {"prompt_level_strict_acc": 0.5}, "musr:team_allocation|0": {"acc": 0.4}}
    )
    assert path.parent == tmp_path / "out" / "results" / "org" / "light"
    rf = read_results_file(path)
    assert rf.harness == LIGHTEVAL and rf.model == "org/light"
    assert set(rf.tasks) == {"ifeval|0", "musr:team_allocation|0"}  # "all" dropped
    assert rf.n_shot == {"ifeval|0": 0, "musr:team_allocation|0": 0}
    from scorekit.harness_outputs.keys import split_task_key

    assert split_task_key("musr:team_allocation|0") == (None, "musr:team_allocation", 0)
    assert split_task_key("leaderboard|gpqa:mc|5") == ("leaderboard", "gpqa:mc", 5)
    assert split_task_key("leaderboard_gpqa") == (None, "leaderboard_gpqa", None)


def test_merge_newest_wins_and_records_override(tmp_path):
    out = tmp_path / "out"
    old = write_lm_eval_results(out, lm_eval_body({"leaderboard_gpqa": {"acc_norm,none": 0.3}, "leaderboard_ifeval": {"prompt_level_strict_acc,none": 0.2}}, model="org/m"))
    new = write_lm_eval_results(out, lm_eval_body({"leaderboard_gpqa": {"acc_norm,none": 0.4}}, model="org/m"))
    other = write_lm_eval_results(out, lm_eval_body({"leaderboard_gpqa": {"acc_norm,none": 0.9}}, model="org/other"))
    # order of reading must not matter: merge sorts by time stamp
    models = merge([read_results_file(p) for p in (new, other, old)])
    m = models["org/m"]
    assert m.tasks["leaderboard_gpqa"].metrics["acc_norm,none"] == 0.4
    assert m.tasks["leaderboard_gpqa"].source == str(new)
    assert m.tasks["leaderboard_ifeval"].source == str(old)  # only in the older file: kept
    assert m.sources == [str(old), str(new)]
    assert [(o.kept, o.dropped) for o in m.overrides] == [(str(new), str(old))]
    assert "leaderboard_gpqa" in m.overrides[0].tasks
    assert models["org/other"].tasks["leaderboard_gpqa"].metrics["acc_norm,none"] == 0.9


def test_walk_skips_non_results_and_says_so(tmp_path):
    out = tmp_path / "out"
    write_lm_eval_results(out, lm_eval_body(VALUES, model="org/m"))
    model_dir = out / "org__m"
    (model_dir / "samples_leaderboard_gpqa_2024-06-16T10-22-33.jsonl").write_text('{"doc_id": 0}\n')
    (model_dir / "notes.txt").write_text("hello")
    (out / "other.json").write_text('{"some": "thing"}')
    (out / "broken_other.json").write_text("{not json")
    loaded = load_results([out])
    assert list(loaded.models) == ["org/m"]
    assert [Path(p).name for p in loaded.skipped["samples/JSONL files"]] == ["samples_leaderboard_gpqa_2024-06-16T10-22-33.jsonl"]
    assert [Path(p).name for p in loaded.skipped["other JSON files"]] == ["other.json"]
    assert [Path(p).name for p in loaded.skipped["unparsable JSON files"]] == ["broken_other.json"]
    summary = loaded.skipped_summary()
    assert summary.startswith("skipped 4 file(s) or folder(s) that are not results files")
    assert "other.json" in summary and "samples" in summary


def test_on_file_callback(tmp_path):
    out = tmp_path / "out"
    for i in range(3):
        write_lm_eval_results(out, lm_eval_body(VALUES, model=f"org/m{i}"))
    seen = []
    load_results([out], on_file=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "invalid JSON"),
        ("{\"results\": {\"t\": {\"acc,none\": 0.5}}, \"versions\": {}", "line 1 column"),
        ('{"results": [1, 2], "versions": {}}', 'results": expected a mapping of tasks, got list'),
        ('{"results": {"t": 0.5}, "versions": {}}', 'results["t"]: expected a mapping of metrics, got float'),
        ('{"results": {}, "versions": {}}', "holds no task results"),
        ('{"results": {"t": {}}, "versions": {}, "model_name": 7}', '"model_name": expected a string, got int'),
        ('{"results": {"t": {}}, "config_general": [1]}', '"config_general": expected a mapping, got list'),
        ('{"results": {"all": {"acc": 1}}, "config_general": {"model_name": "m"}}', "only \"all\""),
        ('[1, 2, 3]', "not an lm-eval or lighteval results file"),
        ('{"hello": "world"}', "not an lm-eval or lighteval results file"),
    ],
)
def test_explicit_bad_files_raise_naming_the_file(tmp_path, content, message):
    path = tmp_path / "x.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ScorekitError) as exc:
        load_results([path])
    assert str(exc.value).startswith(str(path) + ": ")
    assert message in str(exc.value)


def test_malformed_results_named_file_in_walk_is_an_error(tmp_path):
    bad = tmp_path / "out" / "org__m" / "results_2024-06-16T10-22-33.json"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"results": {"t": {"acc,none": 0.5}}, "versions": ', encoding="utf-8")
    with pytest.raises(ScorekitError, match="invalid JSON") as exc:
        load_results([tmp_path / "out"])
    assert str(bad) in str(exc.value)


def test_empty_inputs(tmp_path):
    with pytest.raises(ScorekitError, match="no input paths"):
        load_results([])
    with pytest.raises(ScorekitError, match="no lm-eval or lighteval results files found"):
        load_results([tmp_path])
    (tmp_path / "samples_x.jsonl").write_text("{}\n")
    with pytest.raises(ScorekitError, match=r"no lm-eval or lighteval results files found \(skipped 1 file"):
        load_results([tmp_path])
    with pytest.raises(ScorekitError, match="no such file or directory"):
        load_results([tmp_path / "missing"])


def test_discover_explicit_and_walk_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "a").mkdir()
    for p in ("b/results_2.json", "a/results_1.json", "a/z.parquet"):
        (tmp_path / p).write_text("{}")
    found, skipped = discover([tmp_path, tmp_path / "a" / "results_1.json"])
    # a file named on the command line is explicit even when a walk met it first
    assert [(Path(p).relative_to(tmp_path).as_posix(), e) for p, e in found] == [("a/results_1.json", True), ("b/results_2.json", False)]
    assert [Path(p).name for p in skipped["non-JSON files"]] == ["z.parquet"]


def test_nan_literal_parses_and_is_kept(tmp_path):
    # lm-eval's json.dumps writes NaN literals; reading must not fail (use is checked later)
    path = tmp_path / "results_2024-01-01T00-00-00.json"
    path.write_text('{"results": {"t": {"acc,none": NaN}}, "versions": {}, "model_name": "m"}')
    rf = read_results_file(path)
    assert rf.tasks["t"]["acc,none"] != rf.tasks["t"]["acc,none"]


def test_three_files_of_one_model_merge_newest_per_task(tmp_path):
    out = tmp_path / "out"
    body = lambda gpqa, ifeval: lm_eval_body(  # noqa: E731
        {k: v for k, v in {"leaderboard_gpqa": gpqa, "leaderboard_ifeval": ifeval}.items() if v}, model="org/m"
    )
    a = write_lm_eval_results(out, body({"acc_norm,none": 0.1}, {"prompt_level_strict_acc,none": 0.1}))
    b = write_lm_eval_results(out, body({"acc_norm,none": 0.2}, None))
    c = write_lm_eval_results(out, body(None, {"prompt_level_strict_acc,none": 0.3}))
    m = merge([read_results_file(p) for p in (c, a, b)])["org/m"]
    assert m.get("leaderboard_gpqa").source == str(b) and m.get("leaderboard_ifeval").source == str(c)
    assert m.get("leaderboard_gpqa").metrics["acc_norm,none"] == 0.2
    assert [(o.kept, o.dropped, o.tasks) for o in m.overrides] == [
        (str(b), str(a), ["leaderboard_gpqa"]),
        (str(c), str(a), ["leaderboard_ifeval"]),
    ]
    assert m.sources == [str(a), str(b), str(c)]


def test_walk_order_and_symlinks(tmp_path):
    root = tmp_path / "out"
    for rel in ["b/x.json", "b/c/y.jsonl", "a/z.txt", "r.json", "b/c/q.json", "B/u.json", "a/results_1.json"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("{}")
    os.symlink(root / "b", root / "link_dir")  # a link to a folder walked already: not walked twice
    os.symlink(root / "r.json", root / "link.json")  # a link to a file: read once, under the first name met
    found, skipped = discover([root])
    # a folder's files (sorted) come before its subfolders (sorted, uppercase first)
    assert [os.path.relpath(p, root) for p, _ in found] == [
        "link.json", "B/u.json", "a/results_1.json", "b/x.json", "b/c/q.json"
    ]
    assert [os.path.relpath(p, root) for p in skipped["links to a file or folder read already"]] == ["link_dir", "r.json"]
    assert [os.path.relpath(p, root) for p in skipped["samples/JSONL files"]] == ["b/c/y.jsonl"]
    assert [os.path.relpath(p, root) for p in skipped["non-JSON files"]] == ["a/z.txt"]
