"""`scorekit leaderboard --config OLD --convert`: a config in the old leaderboard layout (a list
of columns) printed in the one layout, giving the leaderboard the old config gave.

The old shipped configs in tests/leaderboards/old_layout/ are the files of configs/ before the one
config engine (git f63c903^). "What the old config gave" is computed here by the old layout's
documented rule: a column is the mean over its parts (keys x metrics) of
max(0, (v - lower) / (1 - lower)) * 100, or that of the parts' mean with mean_raw; the Average
is the plain mean of the columns."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
import yaml

from scorekit.leaderboards.old_layout import convert_old_layout
from scorekit.leaderboards.scorecard_config import load_scorecard_config
from scorekit.cli import main
from scorekit.resources import config_path
from tests.leaderboards.leaderboard_fixtures.layouts import lm_eval_body, write_lighteval_results, write_lm_eval_results

OLD = Path(__file__).parent / "old_layout"


def old_rule(old: dict, values: dict[str, dict[str, float]]) -> dict[str, float]:
    """The columns and Average an old-layout config gave for ``values`` (task -> metric -> value)."""
    out = {}
    for col in old["benchmarks"]:
        def lower(spec: dict) -> float | None:
            return 1.0 / spec["num_choices"] if "num_choices" in spec else spec.get("lower")

        def metrics(spec: dict) -> list[str] | None:
            return [spec["metric"]] if "metric" in spec else spec.get("metrics")

        if "results_key" in col:
            entries = [(col["results_key"], {})]
        elif isinstance(col["subtasks"], list):
            entries = [(k, {}) for k in col["subtasks"]]
        else:
            entries = [(k, v or {}) for k, v in col["subtasks"].items()]
        parts = [(values[k][m], lower(spec) if lower(spec) is not None else lower(col))
                 for k, spec in entries for m in (metrics(spec) or metrics(col))]
        norm = [max(0.0, (v - lo) / (1 - lo)) * 100 for v, lo in parts]
        if col.get("aggregation") == "mean_raw":
            raw = sum(v for v, _ in parts) / len(parts)
            out[col["column"]] = max(0.0, (raw - parts[0][1]) / (1 - parts[0][1])) * 100
        else:
            out[col["column"]] = sum(norm) / len(norm)
    out["Average"] = sum(out.values()) / len(out)
    return out


def random_values(old: dict, rng: random.Random) -> dict[str, dict[str, float]]:
    values: dict[str, dict[str, float]] = {}
    for col in old["benchmarks"]:
        keys = [col["results_key"]] if "results_key" in col else list(col["subtasks"])
        for k in keys:
            spec = col["subtasks"][k] if isinstance(col.get("subtasks"), dict) and col["subtasks"][k] else {}
            names = ([spec["metric"]] if "metric" in spec else spec.get("metrics")) or (
                [col["metric"]] if "metric" in col else col["metrics"])
            for m in names:
                values.setdefault(k, {})[m] = round(rng.uniform(0.05, 0.95), 6)  # some below chance
    return values


def leaderboard(capsys, run_dir: Path, config: Path) -> dict:
    assert main(["leaderboard", str(run_dir), "--config", str(config), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["models"]


def convert(tmp_path: Path, old: Path) -> Path:
    new = tmp_path / f"new_{old.name}"
    new.write_text(convert_old_layout(old), encoding="utf-8")
    load_scorecard_config(new)  # the one layout, valid
    return new


@pytest.mark.parametrize("name", ["open_llm_leaderboard_v2", "score_demo_normalization", "odd_columns"])
def test_converted_lm_eval_config_gives_the_old_columns(tmp_path, capsys, name):
    old_path = OLD / f"{name}.yaml" if name != "odd_columns" else _odd_config(tmp_path)
    old = yaml.safe_load(old_path.read_text())
    new = convert(tmp_path, old_path)
    rng = random.Random(len(name))
    rows = []
    for i in range(6):
        values = random_values(old, rng)
        write_lm_eval_results(tmp_path / "out", lm_eval_body(values, model=f"org/m{i}"))
        rows.append((f"org/m{i}", old_rule(old, values)))
    got = {m["model"]: m for m in leaderboard(capsys, tmp_path / "out", new)}
    for model, expected in rows:
        assert got[model]["scores"] == pytest.approx(expected, abs=1e-9)
    if name != "odd_columns":  # the shipped config in the one layout gives the very same leaderboard
        assert leaderboard(capsys, tmp_path / "out", config_path(f"{name}.yaml")) == list(got.values())


def test_converted_lighteval_config_equals_the_shipped_one(tmp_path, capsys):
    old_path = OLD / "open_llm_leaderboard_v2_lighteval.yaml"
    old = yaml.safe_load(old_path.read_text())
    new = convert(tmp_path, old_path)
    values = random_values(old, random.Random(7))
    write_lighteval_results(tmp_path / "out", "org/le", {f"{k}|0": v for k, v in values.items()})
    got = leaderboard(capsys, tmp_path / "out", new)
    assert got[0]["scores"] == pytest.approx(old_rule(old, values), abs=1e-9)
    assert leaderboard(capsys, tmp_path / "out", config_path("open_llm_leaderboard_v2_lighteval.yaml")) == got


def _odd_config(tmp_path: Path) -> Path:
    """Every construct of the old layout: subtasks as a list and as a mapping with their own
    metrics and bounds, lower and num_choices, mean_raw, several metrics on one key."""
    path = tmp_path / "odd_columns.yaml"
    path.write_text("""\
name: odd
average: Average
benchmarks:
  - column: Pair
    results_key: task_pair
    metrics: ["a,none", "b,none"]
    lower: 0.5
    aggregation: mean_raw
  - column: Listed
    subtasks: [sub_x, sub_y]
    metric: "acc,none"
    num_choices: 3
  - column: Mapped
    metric: "acc,none"
    lower: 0
    subtasks:
      grp_one: {num_choices: 4}
      grp_two: {metrics: ["acc,none", "em,none"], lower: 0.5}
      grp_three:
""")
    return path


def test_cli_prints_or_writes_the_converted_config(tmp_path, capsys):
    old = OLD / "open_llm_leaderboard_v2.yaml"
    assert main(["leaderboard", "--config", str(old), "--convert"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("# open_llm_leaderboard_v2.yaml in the one layout") and err == ""
    target = tmp_path / "new.yaml"
    assert main(["leaderboard", "--config", str(old), "--convert", "--output", str(target)]) == 0
    assert target.read_text() == out
    assert load_scorecard_config(target).benchmarks[1].name == "BBH"


def test_the_refusal_of_an_old_config_names_the_convert_command(tmp_path, capsys):
    old = OLD / "score_demo_normalization.yaml"
    assert main(["leaderboard", str(tmp_path), "--config", str(old)]) == 2
    err = capsys.readouterr().err
    assert f"`scorekit leaderboard --config {old} --convert > new.yaml` writes it" in err and err.count("\n") == 1


@pytest.mark.parametrize("args,message", [
    (["--convert"], "--convert reads only --config OLD.yaml"),
    (["--convert", "--config", str(OLD / "score_demo_normalization.yaml"), "somewhere"], "no PATH"),
    (["--convert", "--config", "open_llm_leaderboard_v2"], "not the old leaderboard layout"),
    ([], "give the results files or folders to read"),
])
def test_cli_misuse_is_one_line(capsys, args, message):
    assert main(["leaderboard", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err


@pytest.mark.parametrize("text,where,message", [
    ("benchmarks:\n  - column: A\n    results_key: t\n    metric: m\n", "line 2, benchmarks[0] (A)", "no chance level"),
    ("benchmarks:\n  - column: A\n    results_key: t\n    metric: m\n    lower: 1.5\n", "line 5, benchmarks[0] (A).lower",
     "expected a number in [0, 1)"),
    ("benchmarks:\n  - column: A\n    subtasks: {t: {num_choices: 1}}\n    metric: m\n", "line 3, benchmarks[0] (A).subtasks.t.num_choices",
     "expected an integer >= 2"),
    ("benchmarks:\n  - column: A\n    results_key: t\n    metric: m\n    lower: 0\n    weight: 2\n",
     "line 6, benchmarks[0].weight", "unknown key 'weight'"),
    ("benchmarks:\n  - column: Average\n    results_key: t\n    metric: m\n    lower: 0\n", "line 2, benchmarks[0] (Average)",
     "would share the overall score's column"),
])
def test_a_broken_old_config_is_one_line_naming_the_place(tmp_path, capsys, text, where, message):
    old = tmp_path / "old.yaml"
    old.write_text(text)
    assert main(["leaderboard", "--config", str(old), "--convert"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and f"{old}: {where}: " in err and message in err, err


def test_average_renamed_or_absent_is_said_in_the_output(tmp_path):
    old = tmp_path / "old.yaml"
    old.write_text("average: null\nbenchmarks:\n  - column: A\n    results_key: t\n    metric: m\n    lower: 0\n")
    text = convert_old_layout(old)
    assert "# The old 'average: null (no average column)' has no equivalent" in text
    assert math.isclose(yaml.safe_load(text)["categories"]["leaderboard"]["benchmarks"]["A"]["metrics"]["m"]["bad"], 0.0)
