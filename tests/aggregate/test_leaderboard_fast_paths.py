"""The leaderboard's fast paths (values picked while parsing, fractions checked in one numpy
pass, lazily built per-model task maps, the scandir walk) give exactly what the general,
model-by-model lookup gives: the same rows, the same errors, the same merge."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from scorekit.aggregate import leaderboard as lb
from scorekit.aggregate.results_files import ABSENT, discover, load_results, merge, read_results_file
from scorekit.errors import ScorekitError
from tests.aggregate.leaderboard_fixtures.layouts import lm_eval_body, write_lighteval_results, write_lm_eval_results

GOLDEN_PATH = Path(__file__).parent / "leaderboard_fixtures" / "oll-golden-pythia-410m.json"


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN_PATH.read_text(encoding="utf-8"))


def _models(golden, out: Path, n: int, scale=lambda i: 1.0 - i / 50) -> list[Path]:
    """n single-file models with the golden task set, values scaled per model."""
    paths = []
    for i in range(n):
        values = {t: {m: v * scale(i) if isinstance(v, float) else v for m, v in ms.items()} for t, ms in golden["results"].items()}
        paths.append(write_lm_eval_results(out, lm_eval_body(values, model=f"org/m{i}")))
    return paths


def _rows(paths, *, pick: bool, lean: bool = False):
    config = lb.shipped_config(lb.DEFAULT_CONFIG)
    loaded = load_results(paths, pick=lb.picks([config]) if pick else None, lean=lean)
    return [r.to_json() | {"notes": r.notes, "missing_detail": r.missing_detail} for r in lb.compute_leaderboard(loaded.models.values(), config)]


def _error(paths, *, pick: bool, lean: bool = False) -> str:
    with pytest.raises(ScorekitError) as info:
        _rows(paths, pick=pick, lean=lean)
    return str(info.value)


def _everything(paths, *, lean: bool):
    """Rows, notes and merge bookkeeping as the leaderboard command computes them (per-harness
    configs), with the general lookup (lean=False: nothing picked) or lean files."""
    configs = {"lm-eval": lb.shipped_config(lb.DEFAULT_CONFIG), "lighteval": lb.shipped_config(lb.DEFAULT_LIGHTEVAL_CONFIG)}
    loaded = load_results(paths, pick=lb.picks([configs["lm-eval"]]) if lean else None, lean=lean)
    rows = lb.compute_leaderboard(loaded.models.values(), configs)
    return (
        [r.to_json() | {"notes": r.notes, "missing_detail": r.missing_detail, "config": r.config} for r in rows],
        lb.override_notes(loaded.models.values()),
        lb.missing_notes(rows),
        {m.model: (m.sources, sorted(m.harnesses)) for m in loaded.models.values()},
    ), loaded


def test_picked_rows_equal_the_general_lookup(tmp_path, golden):
    out = tmp_path / "out"
    _models(golden, out, 6)
    # a second file for one model (merged; not the one-file fast path) and one incomplete model
    incomplete = {t: v for t, v in golden["results"].items() if not t.startswith("leaderboard_bbh")}
    write_lm_eval_results(out, lm_eval_body(incomplete, model="org/partial"))
    write_lm_eval_results(out, lm_eval_body({"leaderboard_gpqa": {"acc_norm,none": 0.5}}, model="org/m1"))
    fast, general = _rows([out], pick=True), _rows([out], pick=False)
    assert fast == general
    assert [r["model"] for r in fast][-1] == "org/partial" and fast[-1]["missing"] == ["BBH"]
    assert next(r for r in fast if r["model"] == "org/m1")["raw"]["GPQA"] == 0.5


def test_picked_values_and_absent_marker(tmp_path):
    path = write_lm_eval_results(tmp_path / "out", lm_eval_body({"leaderboard_gpqa": {"acc_norm,none": 0.3}}, model="org/m"))
    pairs = [("leaderboard_gpqa", "acc_norm,none"), ("leaderboard_gpqa", "acc,none"), ("leaderboard_ifeval", "x")]
    rf = read_results_file(path, pick=pairs)
    assert rf.picked == (0.3, ABSENT, ABSENT) and rf.picked_pairs == tuple(pairs)
    assert rf.tasks["leaderboard_gpqa"]["acc_norm,none"] == 0.3  # tasks stay complete
    assert "alias" in rf.tasks["leaderboard_gpqa"]
    assert read_results_file(path).picked is None


@pytest.mark.parametrize("raw", ["1.5", "-0.25", "NaN", '"0.3"', "null", "true"])
def test_bad_value_in_one_of_many_single_file_models_same_error(tmp_path, golden, raw):
    paths = _models(golden, tmp_path / "out", 5)
    for k in (3, 1):  # two bad models: the error must name the one the general lookup names
        text = json.loads(paths[k].read_text())
        text["results"]["leaderboard_musr_team_allocation"]["acc_norm,none"] = "__BAD__"
        paths[k].write_text(json.dumps(text).replace('"__BAD__"', raw))
    fast, general = _error([tmp_path / "out"], pick=True), _error([tmp_path / "out"], pick=False)
    assert fast == general
    assert 'results["leaderboard_musr_team_allocation"]["acc_norm,none"]' in fast


def test_whole_numbers_are_fractions_too(tmp_path, golden):
    # JSON 0 / 1 parse as int: not the float fast path, but still valid values
    paths = _models(golden, tmp_path / "out", 3)
    text = json.loads(paths[2].read_text())
    text["results"]["leaderboard_gpqa"]["acc_norm,none"] = 1
    text["results"]["leaderboard_math_hard"]["exact_match,none"] = 0
    paths[2].write_text(json.dumps(text))
    fast, general = _rows([tmp_path / "out"], pick=True), _rows([tmp_path / "out"], pick=False)
    assert fast == general
    row = next(r for r in fast if r["model"] == "org/m2")
    assert row["raw"]["GPQA"] == 1.0 and row["raw"]["MATH Lvl 5"] == 0.0


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
    assert [(o.kept, o.dropped, o.tasks) for o in m.overrides] == [
        (str(b), str(a), ["leaderboard_gpqa"]),
        (str(c), str(a), ["leaderboard_ifeval"]),
    ]
    assert [f.path for f in m.files] == [str(a), str(b), str(c)]
    single = merge([read_results_file(a)])["org/m"]
    assert single.task_files == {"leaderboard_gpqa": single.files[0], "leaderboard_ifeval": single.files[0]}


def test_walk_matches_os_walk_order_and_symlink_rules(tmp_path):
    root = tmp_path / "out"
    for rel in ["b/x.json", "b/c/y.jsonl", "a/z.txt", "r.json", "b/c/q.json", "B/u.json", "a/results_1.json"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("{}")
    os.symlink(root / "b", root / "link_dir")  # listed by os.walk among the folders, not entered
    os.symlink(root / "r.json", root / "link.json")
    found, skipped = discover([root])
    expected_json, expected_jsonl, expected_other = [], [], []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(folder, name)
            (expected_json if name.endswith(".json") else expected_jsonl if name.endswith(".jsonl") else expected_other).append(full)
    assert [p for p, _ in found] == expected_json
    assert skipped == {"samples/JSONL files": expected_jsonl, "non-JSON files": expected_other}
    assert not any("link_dir" in p for p, _ in found)


def test_lean_files_give_the_same_rows_notes_and_merge(tmp_path, golden):
    out = tmp_path / "out"
    _models(golden, out, 5)
    complete = lambda i: _models(golden, out, i + 1)[-1]  # noqa: E731 - another file for org/m<i>
    incomplete = {t: v for t, v in golden["results"].items() if not t.startswith("leaderboard_bbh")}
    complete(1)  # two complete files: the same (shared) task keys, every task overridden
    write_lm_eval_results(out, lm_eval_body({"leaderboard_gpqa": {"acc_norm,none": 0.5}}, model="org/m2"))  # newest not lean
    write_lm_eval_results(out, lm_eval_body(incomplete, model="org/m9"))  # oldest not lean, newest lean
    write_lm_eval_results(out, lm_eval_body(golden["results"], model="org/m9"))
    complete(0), complete(0)  # three files
    write_lm_eval_results(out, lm_eval_body(incomplete, model="org/partial"))
    write_lighteval_results(out, "org/light", {"ifeval|0": {"prompt_level_strict_acc": 0.5, "inst_level_strict_acc": 0.6}})
    general, _ = _everything([out], lean=False)
    lean, loaded = _everything([out], lean=True)
    assert lean == general
    rows, overrides, missing, _ = lean
    assert any("org/m1: " in line and "(" in line for line in overrides) and any(line.startswith("org/m9: ") for line in overrides)
    assert {r["model"]: r["config"] for r in rows}["org/light"] != rows[0]["config"]
    lean_files = [f for f in loaded.files if f.lean]
    assert 0 < len(lean_files) < len(loaded.files)
    assert all(f.harness == "lm-eval" and ABSENT not in f.picked and f.n_shot == {} for f in lean_files)
    assert len({id(f.tasks) for f in lean_files}) == 1 and set(lean_files[0].tasks.values()) == {None}
    assert not any(f.lean for f in loaded.files if f.model in ("org/partial", "org/light"))


@pytest.mark.parametrize("raw", ["1.5", "NaN", '"0.3"', "null"])
@pytest.mark.parametrize("newest", [True, False])
def test_bad_value_in_a_lean_file_same_error(tmp_path, golden, raw, newest):
    out = tmp_path / "out"
    paths = _models(golden, out, 3)
    paths.append(_models(golden, out, 2)[-1])  # a second file of org/m1
    bad = paths[3] if newest else paths[1]
    text = json.loads(bad.read_text())
    text["results"]["leaderboard_gpqa"]["acc_norm,none"] = "__BAD__"
    text["results"]["leaderboard_bbh_snarks"]["acc_norm,none"] = "__BAD__"
    bad.write_text(json.dumps(text).replace('"__BAD__"', raw))
    general = _error([out], pick=False) if newest else _rows([out], pick=False)
    lean = _error([out], pick=True, lean=True) if newest else _rows([out], pick=True, lean=True)
    assert lean == general
    if newest:
        assert 'results["leaderboard_bbh_snarks"]["acc_norm,none"]' in lean and str(bad) in lean


def test_lean_needs_pick_and_keeps_only_complete_lm_eval_files(tmp_path, golden):
    (path,) = _models(golden, tmp_path / "out", 1)
    assert not any(f.lean for f in load_results([path], lean=True).files)  # nothing picked: whole files
    pairs = lb.picks([lb.shipped_config(lb.DEFAULT_CONFIG)])
    (rf,) = load_results([path], pick=pairs, lean=True).files
    assert rf.lean and rf.picked == read_results_file(path, pick=pairs).picked
    assert list(rf.tasks) == list(golden["results"])
