"""`scorekit rank`: percentile aggregation of per-leaderboard ranks."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest

from scorekit.leaderboards.rank import (
    compute_ranking,
    parse_rank_text,
    ranking_notes,
    render_ascii,
)
from scorekit.cli import main
from scorekit.errors import ScorekitError
from scorekit.resources import config_path

HAND = """\
# hand-computed example
A={"m1":1, "m2":2, "m3":None,
   "known_totals":4}
B={"m1":3, "m2":1, "known_totals":10}   # trailing comment
C={"m1":2, "m4":1,
   "known_totals":5}
    # indented comment line
# Credit cost per 1k tokens
{"m1":100, "m3":5}
"""

# m1: 1/4, 3/10, 2/5 -> mean 0.31667, no penalty, population std 0.06236
# m2: 2/4, 1/10      -> mean 0.3 + 0.10 = 0.4, std 0.2
# m4: 1/5            -> 0.2 + 0.25 = 0.45, std N/A
# m3: only None      -> left out
HAND_TABLE = """\
+----------------------------------------------------------------------------------------------------------------------------------------------+
| Rank  | Model                  | Avg Pctl | Std Dev  | # Benchmarks | Cost/1k | Avg Pctl 95% CI | Std Dev 95% CI | Rank range | Tied with best |
+----------------------------------------------------------------------------------------------------------------------------------------------+
| 1     | m1                     | 0.317    | 0.062    | 3            | 100     | [0.127, 0.506]  | [0.040, 0.480] | [1, 3]     | yes            |
| 2     | m2                     | 0.400    | 0.200    | 2            | N/A     | [0.100, 1.100]  | [0.126, 0.500] | [1, 3]     | yes            |
| 3     | m4                     | 0.450    | N/A      | 1            | N/A     | N/A             | N/A            | N/A        | N/A            |
+----------------------------------------------------------------------------------------------------------------------------------------------+
"""


def run_cli(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, text: str, name: str = "ranks.txt") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# --- computation ---------------------------------------------------------------------------


def test_penalties():
    ranks = {f"m{n}": [1] * n + [None] * (10 - n) for n in (1, 2, 3, 4, 10)}
    text = "".join(f"B{j}=" + repr({m: r[j] for m, r in ranks.items()} | {"known_totals": 4}) + "\n" for j in range(10))
    rows = {r.n_benchmarks: r for r in compute_ranking(parse_rank_text(text + "{}"))}
    assert [rows[n].penalty for n in (1, 2, 3, 4, 10)] == [0.25, 0.10, 0.0, 0.0, 0.0]
    assert all(r.score == r.mean + r.penalty for r in rows.values())


def test_notes_name_what_the_ranking_leaves_out():
    data = parse_rank_text(HAND.replace('{"m1":100, "m3":5}', '{"m1":100, "m3":5, "m9":1}'))
    assert ranking_notes(data, compute_ranking(data)) == [
        "1 model(s) have no rank in any benchmark (all None) and are left out: m3",
        "2 model(s) have a cost but no rank in any benchmark and are not shown: m3, m9",
        "1 model(s) are on one benchmark only: one percentile shows no spread, so they have no intervals (N/A) and are "
        "never counted as ahead of or behind another model: m4",
    ]


def test_hand_computed_example():
    rows = compute_ranking(parse_rank_text(HAND, "hand.txt"))
    assert [r.model for r in rows] == ["m1", "m2", "m4"]
    m1, m2, m4 = rows
    p1 = [1 / 4, 3 / 10, 2 / 5]
    mean1 = sum(p1) / 3
    assert m1.score == pytest.approx(mean1, abs=1e-15) and m1.penalty == 0.0
    assert m1.std == pytest.approx(math.sqrt(sum((p - mean1) ** 2 for p in p1) / 3), abs=1e-15)
    assert m1.std == pytest.approx(0.0623609564, abs=1e-9)  # population, not sample (0.0764)
    assert m1.cost == 100 and m1.n_benchmarks == 3
    assert m1.percentiles == {"A": 0.25, "B": 0.3, "C": 0.4}
    assert m2.mean == pytest.approx(0.3) and m2.penalty == 0.10 and m2.score == pytest.approx(0.4)
    assert m2.std == pytest.approx(0.2) and m2.cost is None
    assert m4.score == pytest.approx(0.45) and m4.std is None and m4.n_benchmarks == 1
    assert [r.position for r in rows] == [1, 2, 3]


def test_exact_ascii_table():
    assert render_ascii(compute_ranking(parse_rank_text(HAND))) == HAND_TABLE


def test_layout_widths():
    lines = HAND_TABLE.splitlines()
    # the border is two characters shorter than the rows
    assert len(lines[0]) == 144 and all(len(line) == 146 for line in lines[1:2] + lines[3:6])
    # the product spec's six columns come first, unchanged; the intervals follow
    assert lines[1].startswith("| Rank  | Model                  | Avg Pctl | Std Dev  | # Benchmarks | Cost/1k | ")


def test_long_names_widen_the_column():
    text = render_ascii(compute_ranking(parse_rank_text('a={"a-very-long-model-name-indeed-123":1, "known_totals":2}\n{}')))
    lines = text.splitlines()
    assert len({len(line) for line in lines[1:2] + lines[3:4]}) == 1
    assert len(lines[0]) == len(lines[1]) - 2
    assert "| a-very-long-model-name-indeed-123 |" in text


def test_tie_break_more_benchmarks_then_name():
    text = """
X={"q":2, "p":1, "b":4, "a":4, "known_totals":10}
Y={"q":2, "p":1, "b":5, "a":5, "known_totals":10}
Z={"q":2, "b":6, "a":6, "known_totals":10}
{}
"""
    rows = compute_ranking(parse_rank_text(text))
    # q: 0.2 on 3 benchmarks -> 0.2; p: 0.1 on 2 benchmarks + 0.10 -> 0.2 (tie, q has more);
    # a and b are identical -> by name
    assert [r.model for r in rows] == ["q", "p", "a", "b"]
    assert rows[0].score == pytest.approx(rows[1].score)


def test_sample_file_rows(capsys):
    code, out, err = run_cli(["rank", str(config_path("ranking_sample.txt"))], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[3].startswith("| 1     | opus                   | 0.019    | 0.009    | 4            | 850     | [")
    assert lines[4].startswith("| 2     | gemini                 | 0.048    | 0.046    | 4            | 370     | [")


# --- CLI ----------------------------------------------------------------------------------


def test_cli_table_and_notes(tmp_path, capsys):
    code, out, err = run_cli(["rank", str(write(tmp_path, HAND))], capsys)
    assert code == 0
    assert out == HAND_TABLE
    assert "m3" in err and "left out" in err  # nothing dropped silently


def test_cli_default_file_is_ranks_general(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, HAND, "ranks_general.txt")
    code, out, _ = run_cli(["rank"], capsys)
    assert code == 0 and out == HAND_TABLE


def test_cli_missing_file_message(tmp_path, capsys, monkeypatch):
    """One ``scorekit: error:`` line naming the file, with the spec's usage and example in it
    (it was five lines without that prefix)."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["rank"], capsys)
    assert code == 2 and out == ""
    sample = str(config_path("ranking_sample.txt"))
    assert err == ("scorekit: error: ranks_general.txt: file not found (usage: scorekit rank [FILE], FILE defaults "
                   f"to ranks_general.txt; for an example run: scorekit rank {sample})\n")
    code, out, err = run_cli(["rank", "nope.txt"], capsys)
    assert code == 2 and out == "" and err.startswith("scorekit: error: nope.txt: file not found (") and err.count("\n") == 1


def test_cli_formats(tmp_path, capsys):
    path = str(write(tmp_path, HAND))
    _, md, _ = run_cli(["rank", path, "--format", "markdown"], capsys)
    assert md.splitlines()[2] == "| 1 | m1 | 0.317 | 0.062 | 3 | 100 | [0.127, 0.506] | [0.040, 0.480] | [1, 3] | yes |"
    _, csv_text, _ = run_cli(["rank", path, "--format", "csv"], capsys)
    rows = [line.split(",") for line in csv_text.splitlines()]
    assert rows[0] == ["Rank", "Model", "Avg Pctl", "Std Dev", "# Benchmarks", "Cost/1k", "Avg Pctl_ci_low",
                       "Avg Pctl_ci_high", "Std Dev_ci_low", "Std Dev_ci_high", "Rank_ci_low", "Rank_ci_high",
                       "Tied with best"]
    assert rows[3] == ["3", "m4", "0.45", "", "1", ""] + [""] * 7
    assert rows[2][6:8] == ["0.1", "1.1"] and rows[2][10:] == ["1", "3", "yes"]
    _, js, _ = run_cli(["rank", path, "--format", "json"], capsys)
    data = json.loads(js)
    assert [d["model"] for d in data] == ["m1", "m2", "m4"]
    assert data[1]["penalty"] == 0.1 and data[2]["std_dev"] is None and data[1]["cost_per_1k"] is None
    assert data[0]["avg_percentile_ci_low"] < data[0]["avg_percentile"] < data[0]["avg_percentile_ci_high"]
    assert data[0]["rank_ci_low"] == 1 and data[0]["tied_with_best"] is True
    assert data[2]["avg_percentile_ci_low"] is None and data[2]["std_dev_ci_high"] is None
    assert data[2]["rank_ci_low"] is None and data[2]["tied_with_best"] is None
    _, tex, _ = run_cli(["rank", path, "--format", "latex"], capsys)
    assert "\\toprule" in tex and "[0.127, 0.506]" in tex
    _, html, _ = run_cli(["rank", path, "--format", "html"], capsys)
    assert ("<td>m2</td><td>0.400</td><td>0.200</td><td>2</td><td>N/A</td><td>[0.100, 1.100]</td>"
            "<td>[0.126, 0.500]</td><td>[1, 3]</td><td>yes</td>") in html


def test_cli_output_file(tmp_path, capsys):
    out_file = tmp_path / "sub" / "ranking.txt"
    code, out, _ = run_cli(["rank", str(write(tmp_path, HAND)), "--output", str(out_file)], capsys)
    assert code == 0 and out == ""
    assert out_file.read_text() == HAND_TABLE
    assert [p.name for p in out_file.parent.iterdir()] == ["ranking.txt"]  # no temp file left


# --- rejections -----------------------------------------------------------------------------

REJECT = [
    ('A={"m":0, "known_totals":5}\n{}', 1, "'A', model 'm': rank 0 is outside 1..5"),
    ('\nA={"m":6, "known_totals":5}\n{}', 2, "'A', model 'm': rank 6 is outside 1..5"),
    ('A={"m":2.0, "known_totals":5}\n{}', 1, "'A', model 'm': rank must be an integer or None, got 2.0"),
    ('A={"m":True, "known_totals":5}\n{}', 1, "'A', model 'm': rank must be an integer or None, got True"),
    ('A={"m":"3", "known_totals":5}\n{}', 1, "'A', model 'm': rank must be an integer"),
    ('A={"m":1, "known_totals":0}\n{}', 1, "'A': 'known_totals' must be a positive integer, got 0"),
    ('A={"m":1, "known_totals":True}\n{}', 1, "'known_totals' must be a positive integer, got True"),
    ('A={"m":1, "known_totals":5.0}\n{}', 1, "'known_totals' must be a positive integer, got 5.0"),
    ('A={"m":1, "known_totals":None}\n{}', 1, "'known_totals' must be a positive integer, got None"),
    ('A={"m":1}\nB={"m":1, "known_totals":3}\n{}', 1, "'A' has no 'known_totals'"),
    ('{"m":5}\nB={"m":1, "known_totals":3}\n{}', 1, "the cost dictionary (the only one without it) must be the last"),
    ('A={"m":1, "known_totals":3}\nB={"m":1, "known_totals":3}', 2, "the last one must be the cost dictionary"),
    ('A={"m":1, "x":2,\n "m":3, "known_totals":3}\n{}', 2, "'A': key 'm' appears twice (first at line 1)"),
    ('A={"m":1, "known_totals":3}\n{"m":1, "m":2}', 2, "key 'm' appears twice"),
    ('A={"m":1, "known_totals":3}\nA={"m":1, "known_totals":3}\n{}', 2, "benchmark 'A' is defined twice (first at line 1)"),
    ('A={1:1, "known_totals":3}\n{}', 1, "key 1 must be a string"),
    ('A={"m":1, "known_totals":3}\n{"m":-1}', 2, "cost dictionary, model 'm': cost must be a number >= 0"),
    ('A={"m":1, "known_totals":3}\n{"m":"cheap"}', 2, "cost must be a number >= 0 or None, got 'cheap'"),
    ('A={"m":1, "known_totals":3}\n{"m":1e999}', 2, "cost must be a number >= 0 or None, got inf"),
    ('A={"m":1, "known_totals":3,\n "n": [1]}\n{}', 1, "'A', model 'n': rank must be an integer or None, got [1]"),
    ('A={"m":1, "known_totals":3\n{}', 1, "not a dictionary file"),
    ('A={"m":1, "known_totals":3}\nB=[1, 2]\n{}', 2, "expected a {...} dictionary"),
    ('A={"m":1, "known_totals":3}\nx.y={"m":1}\n{}', 2, "assignments to a plain name"),
    ('A=B={"m":1, "known_totals":3}\n{}', 1, "assignments to a plain name"),
    ('A={"m":1, "known_totals":3}\nimport os\n{}', 2, "found an import"),
    ('A={"m":1, "known_totals":3}\n{"m": os.sep}', 2, "only literal values are allowed, found attribute access"),
    ('A={"m":n, "known_totals":3}\n{}', 1, "only literal values are allowed, found a name"),
    ('A={**B, "known_totals":3}\n{}', 1, "'**' unpacking is not allowed"),
    ("", None, "no dictionaries found"),
    ("# only a comment\n", None, "no dictionaries found"),
    ("{}", None, "no benchmark dictionaries"),
    ('A={"m":None, "known_totals":3}\n{}', None, "no model has a rank in any benchmark"),
]


@pytest.mark.parametrize("text,line,message", REJECT)
def test_rejections_via_cli(tmp_path, capsys, text, line, message):
    path = write(tmp_path, text)
    out_file = tmp_path / "out.txt"
    code, out, err = run_cli(["rank", str(path), "--output", str(out_file)], capsys)
    assert code == 2 and out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err  # one line, no traceback
    place = rf"line {line}( column \d+)?: " if line else ""
    assert re.match(re.escape(f"scorekit: error: {path}: ") + place, err), err
    assert message in err, err
    assert not out_file.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ranks.txt"]


def test_rejection_as_exception_names_place():
    with pytest.raises(ScorekitError) as info:
        parse_rank_text('A={"m":1, "known_totals":3}\nB={"x":9, "known_totals":3}\n{}', "f.txt")
    assert info.value.path == "f.txt" and info.value.where == "line 2"
    assert "'B', model 'x'" in str(info.value)


CODE_ATTEMPTS = [
    "x=__import__('os').system('touch PWNED')\n{}",
    'A={"a": (lambda: 1)(), "known_totals":3}\n{}',
    'A={"a": __import__("os").system("touch PWNED"), "known_totals":3}\n{}',
    '__import__("os").system("touch PWNED")\n{}',
    'A={"m":1, "known_totals":3}\nexec("open(\'PWNED\', \'w\').close()")\n{}',
    'A={"m":1, "known_totals":3}\n{"m": open("PWNED", "w")}',
    'A={"m":1, "known_totals":3}\nimport os; os.system("touch PWNED")\n{}',
    'def f():\n    open("PWNED", "w")\nA={"m":f(), "known_totals":3}\n{}',
    'A={"m":1, "known_totals":3}\n{"m": [c for c in ().__class__.__base__.__subclasses__()]}',
]


@pytest.mark.parametrize("text", CODE_ATTEMPTS)
def test_code_is_never_run(tmp_path, capsys, monkeypatch, text):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, text)
    code, out, err = run_cli(["rank", str(path)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{path}: line " in err
    assert not (tmp_path / "PWNED").exists()
    assert not os.path.exists("PWNED")


def test_cli_unwritable_output_is_one_line_error(tmp_path, capsys):
    target = tmp_path / "dir"
    target.mkdir()
    code, out, err = run_cli(["rank", str(write(tmp_path, HAND)), "--output", str(target)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "cannot write output" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "ranks.txt"]
