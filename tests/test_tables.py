"""Every user-supplied string is escaped in every renderer and format.

Model names come from results files (leaderboard, scorecard), rank files (rank) and run folders
(robustness); hypothesis draws names with markup brackets, pipes, HTML, control characters
and any other printable text, and each format must give back exactly the name (escaped for
its format), one row per model."""

from __future__ import annotations

import csv
import html
import io
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekit.tables import markdown_escape, text_escape
from tests.hostile.support import RANK_FORMATS, results_body, run, score_run, write_results

HOSTILE = ["org/model[v2]", "org/model[v3]", "m[/]", "[bold]x[/bold]", "a|b", "<script>x</script>", "tab\there",
           "new\nline", "esc\x1b[31mred", "back\\slash|", "$x^2$", "quote\"'", "=cmd()", "*star*_u_"]
# short enough, once escaped, that the terminal table never wraps the name
names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda s: s.strip() == s and s and len(text_escape(s)) <= 16)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _leaderboard_like(tmp_path, command, models, fmt):
    paths = []
    for i, model in enumerate(models):
        paths.append(write_results(tmp_path / f"m{i}", results_body(model)))
    return run([command, *paths, "--format", fmt])


def _rank(tmp_path, models, fmt):
    path = tmp_path / "ranks.txt"
    entries = ", ".join(f"{m!r}: {i + 1}" for i, m in enumerate(models))
    path.write_text(f"b1 = {{{entries}, 'known_totals': {len(models) + 1}}}\n{{}}\n")
    return run(["rank", path, "--format", fmt])


def _check(out: str, fmt: str, models: list[str]) -> None:
    if fmt == "json":
        doc = json.loads(out)
        rows = doc if isinstance(doc, list) else doc["models"]
        assert sorted(r["model"] for r in rows) == sorted(models)
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        assert sorted(r[rows[0].index("Model")] for r in rows[1:]) == sorted(models)
    elif fmt == "html":
        cells = [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", out)]
        for m in models:
            assert text_escape(m) in cells
        assert "<script>" not in out
    elif fmt == "markdown":
        lines = [ln for ln in out.splitlines() if ln.startswith("| ") and not ln.startswith("| ---")]
        assert len(lines) == 1 + len(models)
        width = len(re.findall(r"(?<!\\)\|", lines[0]))
        for ln, m in zip(lines[1:], sorted(models)):
            assert len(re.findall(r"(?<!\\)\|", ln.replace("\\\\", ""))) == width
        for m in models:
            assert markdown_escape(m) in out
    else:  # the terminal table: the escaped name, never rich markup or raw control characters
        for m in models:
            assert text_escape(m) in out, (m, out)
        assert "\x1b" not in out and "\t" not in out


@pytest.mark.parametrize("fmt", RANK_FORMATS)
@pytest.mark.parametrize("command", ("leaderboard", "scorecard"))
def test_known_hostile_names(tmp_path, command, fmt):
    code, out, err = _leaderboard_like(tmp_path, command, HOSTILE, fmt)
    assert code == 0, err
    _check(out, fmt, HOSTILE)


@pytest.mark.parametrize("fmt", RANK_FORMATS)
def test_known_hostile_names_rank(tmp_path, fmt):
    code, out, err = _rank(tmp_path, HOSTILE, fmt)
    assert code == 0, err
    if fmt == "table":  # the spec'd ASCII table (not rich): one line per model
        assert len(out.splitlines()) == 4 + len(HOSTILE)
        for m in HOSTILE:
            assert text_escape(m) in out
    else:
        _check(out, fmt, HOSTILE)


def test_markup_brackets_keep_names_apart(tmp_path):
    code, out, _ = _leaderboard_like(tmp_path, "leaderboard", ["org/model[v2]", "org/model[v3]"], "table")
    assert code == 0 and "org/model[v2]" in out and "org/model[v3]" in out


@pytest.mark.parametrize("fmt", ("table", "markdown", "html", "json"))
def test_robustness_model_from_folder_name(tmp_path, fmt):
    folder = tmp_path / "org__m[v2]|<b>"
    score_run(folder)
    code, out, err = run(["robustness", folder, "--format", fmt])
    assert code == 0, err
    name = folder.name  # robustness labels a samples-only run by its folder
    if fmt == "json":
        assert name in json.dumps(json.loads(out), ensure_ascii=False)
    elif fmt == "html":
        assert html.escape(name) in out and "<b>" not in out.replace("<body>", "")
    elif fmt == "markdown":
        assert markdown_escape(name) in out
    else:
        assert name in out


@SETTINGS
@given(models=st.lists(names, min_size=1, max_size=3, unique=True), fmt=st.sampled_from(RANK_FORMATS))
def test_any_model_name_leaderboard(tmp_path_factory, models, fmt):
    tmp = tmp_path_factory.mktemp("lb")
    code, out, err = _leaderboard_like(tmp, "leaderboard", models, fmt)
    assert code == 0, err
    _check(out, fmt, models)


@SETTINGS
@given(models=st.lists(names, min_size=1, max_size=3, unique=True), fmt=st.sampled_from(RANK_FORMATS))
def test_any_model_name_score(tmp_path_factory, models, fmt):
    tmp = tmp_path_factory.mktemp("sc")
    code, out, err = _leaderboard_like(tmp, "scorecard", models, fmt)
    assert code == 0, err
    _check(out, fmt, models)


@SETTINGS
@given(models=st.lists(names, min_size=1, max_size=4, unique=True), fmt=st.sampled_from(RANK_FORMATS[1:]))
def test_any_model_name_rank(tmp_path_factory, models, fmt):
    tmp = tmp_path_factory.mktemp("rk")
    code, out, err = _rank(tmp, models, fmt)
    assert code == 0, err
    _check(out, fmt, models)


@pytest.mark.parametrize("command", ("leaderboard", "scorecard"))
def test_notes_stay_one_line_each(tmp_path, command):
    code, _, err = _leaderboard_like(tmp_path, command, ["a\nb\x1b[2J"], "table")
    assert code == 0
    assert err and all(line.startswith("scorekit: note: ") for line in err.splitlines()), err
    assert "a\\nb\\x1b[2J" in err


@pytest.mark.parametrize("fmt", ("table", "markdown"))
def test_robustness_notes_escaped(tmp_path, fmt):
    folder = tmp_path / "org__m|x\ny"
    score_run(folder)
    code, out, err = run(["robustness", folder, "--format", fmt])
    assert code == 0, err
    assert "m|x\ny" not in out
