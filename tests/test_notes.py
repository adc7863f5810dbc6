"""Notes that list names stay readable: ten names, then "and N more"; `-v` lists every one.
(A note of `scorekit rank` on 100,000 models was 760 KB on one line.)"""

from __future__ import annotations

import shutil

import pytest

from scorekit import errors
from scorekit.errors import listed
from tests.hostile.support import LM_EVAL_RESULTS, run, score_run


def test_listed():
    names = [f"m{i}" for i in range(25)]
    assert listed(names) == ", ".join(names[:10]) + " and 15 more (-v lists all)"
    assert listed(names[:10]) == ", ".join(names[:10])
    assert listed(names, 3) == "m0, m1, m2 and 22 more (-v lists all)"
    assert listed(["a\nb"]) == "a\\nb"  # one line


def test_rank_note_and_verbose(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("A={" + ", ".join(f'"model{i:02d}": {i + 1}' for i in range(25)) + ', "known_totals": 25}\n{}\n')
    code, out, err = run(["rank", path])
    assert code == 0
    assert "25 model(s) are on one benchmark only" in err
    assert "model09 and 15 more (-v lists all)" in err and "model10" not in err
    code, out, err_v = run(["rank", path, "-v"])
    assert code == 0 and "model24" in err_v and "more" not in err_v
    assert run(["rank", path])[2] == err  # -v of one command does not stay on for the next


def _hidden_beside(runs, fill) -> None:
    fill(runs / "run")
    for i in range(12):
        (runs / f".hidden{i:02d}").mkdir(parents=True)


@pytest.mark.parametrize("command", ["leaderboard", "robustness", "compare"])
def test_left_out_folders_are_capped_and_listed_with_verbose(tmp_path, command):
    runs = tmp_path / "in"
    if command == "leaderboard":
        _hidden_beside(runs, lambda d: shutil.copytree(LM_EVAL_RESULTS.parent, d))
    else:
        _hidden_beside(runs, score_run)
    code, out, err = run([command, runs])
    assert code == 0, err
    text = out + err
    assert "12 hidden files and folders" in text and ".hidden09" in text and ".hidden10" not in text
    assert "and 2 more (-v lists all)" in text
    code, out, err = run([command, runs, "--verbose"])
    assert code == 0 and ".hidden11" in out + err and "-v lists all" not in out + err


def test_names_shown_is_restored_after_an_error(tmp_path):
    assert run(["rank", tmp_path / "absent.txt", "-v"])[0] == 2
    assert errors.NAMES_SHOWN == 10
