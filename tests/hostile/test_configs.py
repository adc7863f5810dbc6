"""The YAML configs a user gives (leaderboard --config, score
--config): duplicate keys are errors, and a scoring config runs no code unless --allow-code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from scorekit.resources import config_path
from tests.hostile.support import assert_one_line_error, results_body, run, write_results

SCORE_CONFIG = """\
normalizer: "{spec}"
categories:
  knowledge:
    benchmarks:
      gpqa:
        metrics:
          acc: {{key: {{task: leaderboard_gpqa, metric: "acc_norm,none"}}, good: 0.75, bad: 0.25}}
"""


@pytest.mark.parametrize("shipped,command", [("open_llm_leaderboard_v2.yaml", "leaderboard"),
                                             ("llm_benchmarks_scoring.yaml", "scorecard")])
def test_duplicate_key_anywhere_in_a_config(tmp_path, shipped, command):
    lines = config_path(shipped).read_text().splitlines()
    # repeat the first indented "key: value" line right after itself
    at = next(i for i, ln in enumerate(lines) if ln.startswith("  ") and ":" in ln and not ln.strip().startswith(("-", "#")))
    lines.insert(at + 1, lines[at])
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("\n".join(lines) + "\n")
    path = write_results(tmp_path / "r", results_body())
    assert_one_line_error(run([command, path, "--config", cfg]), f"{cfg}: line {at + 2}", "duplicate key")


@pytest.mark.parametrize("command", ("leaderboard", "scorecard"))
def test_second_top_level_key(tmp_path, command):
    shipped = "open_llm_leaderboard_v2.yaml" if command == "leaderboard" else "llm_benchmarks_scoring.yaml"
    text = config_path(shipped).read_text()
    top = next(ln.split(":")[0] for ln in text.splitlines() if ln and not ln.startswith((" ", "#")) and ":" in ln)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(text + f"\n{top}: {{}}\n")
    path = write_results(tmp_path / "r", results_body())
    assert_one_line_error(run([command, path, "--config", cfg]), str(cfg), f"duplicate key '{top}'")


def _module_beside(folder: Path, body: str) -> str:
    name = f"sk_hostile_{uuid.uuid4().hex[:8]}"
    (folder / f"{name}.py").write_text(textwrap.dedent(body))
    return name


def test_normalizer_beside_the_config_needs_allow_code(tmp_path):
    marker = tmp_path / "ran"
    mod = _module_beside(tmp_path, f"""\
        open({str(marker)!r}, "w").write("imported")
        def f(value, good, bad):
            return 0.5
        """)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(SCORE_CONFIG.format(spec=f"{mod}:f"))
    path = write_results(tmp_path / "r", results_body())
    assert_one_line_error(run(["scorecard", path, "--config", cfg]), f"{cfg}: line 1", "--allow-code", f"{mod}.py")
    assert not marker.exists()  # no code ran
    code, out, err = run(["scorecard", path, "--config", cfg, "--allow-code", "--format", "json"])
    assert code == 0, err
    assert marker.exists() and json.loads(out)["models"][0]["overall"] == 0.5


def test_normalizer_in_the_current_folder_is_not_installed(tmp_path):
    """`python -m scorekit` puts the current folder on sys.path; a module there is still a
    file beside the user, not an installed module."""
    marker = tmp_path / "ran"
    mod = _module_beside(tmp_path, f"open({str(marker)!r}, 'w').write('x')\ndef f(v, g, b):\n    return 0.5\n")
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    cfg = conf_dir / "cfg.yaml"
    cfg.write_text(SCORE_CONFIG.format(spec=f"{mod}:f"))
    path = write_results(tmp_path / "r", results_body())
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "plugin"))
    proc = subprocess.run([sys.executable, "-m", "scorekit", "scorecard", str(path), "--config", str(cfg)],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "cannot import normalizer module" in proc.stderr
    assert not marker.exists()


def test_installed_module_needs_no_flag(tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(SCORE_CONFIG.format(spec="builtins:max"))  # an installed function: max(value, 0.75, 0.25)
    path = write_results(tmp_path / "r", results_body())
    code, out, err = run(["scorecard", path, "--config", cfg, "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["models"][0]["overall"] == 0.75


@pytest.mark.parametrize("where", ["import", "call"])
@pytest.mark.parametrize("exit_code", [0, 3, "bye"])
def test_normalizer_raising_system_exit(tmp_path, where, exit_code):
    body = (f"raise SystemExit({exit_code!r})\n" if where == "import"
            else f"def f(value, good, bad):\n    raise SystemExit({exit_code!r})\n")
    mod = _module_beside(tmp_path, body)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(SCORE_CONFIG.format(spec=f"{mod}:f"))
    path = write_results(tmp_path / "r", results_body())
    out_file = tmp_path / "out.json"
    assert_one_line_error(run(["scorecard", path, "--config", cfg, "--allow-code", "--output", out_file]), str(cfg), "SystemExit")
    assert not out_file.exists()


def test_non_callable_normalizer_writes_nothing_to_stdout(tmp_path):
    """A module that prints while importing (as the standard library's ``this``
    does) named with a non-callable attribute: the error was right, but the print reached
    standard output too."""
    mod = _module_beside(tmp_path, "print('printed while importing')\nf = 3\n")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(SCORE_CONFIG.format(spec=f"{mod}:f"))
    path = write_results(tmp_path / "r", results_body())
    assert_one_line_error(run(["scorecard", path, "--config", cfg, "--allow-code"]), f"{cfg}: line 1", "is not callable")


def test_normalizer_printing_while_importing_keeps_stdout_the_result(tmp_path):
    mod = _module_beside(tmp_path, "print('printed while importing')\ndef f(value, good, bad):\n    return 0.5\n")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(SCORE_CONFIG.format(spec=f"{mod}:f"))
    path = write_results(tmp_path / "r", results_body())
    code, out, err = run(["scorecard", path, "--config", cfg, "--allow-code", "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["models"][0]["overall"] == 0.5  # stdout is the JSON alone
    assert "printed while importing" in err


@pytest.mark.parametrize("command", ("leaderboard", "scorecard"))
@pytest.mark.parametrize("old,new,where,what", [
    ("      GPQA:\n", "      Average:\n", "categories.leaderboard.benchmarks.Average", "a benchmark named 'Average'"),
    ("  leaderboard:\n", "  Overall:\n", "categories.Overall", "a category named 'Overall'"),
])
def test_a_benchmark_or_category_named_like_the_overall_column(tmp_path, command, old, new, where, what):
    """A benchmark named Average was accepted, and the leaderboard's overall Average wrote over
    its column (JSON scores["Average"] held one of the two); the same for a category named
    Overall in the scorecard."""
    text = config_path("open_llm_leaderboard_v2.yaml").read_text()
    assert old in text
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(text.replace(old, new))
    line = text[: text.index(old)].count("\n") + 1
    path = write_results(tmp_path / "r", results_body())
    assert_one_line_error(run([command, path, "--config", cfg]), f"{cfg}: line {line}, {where}", what, "rename")
