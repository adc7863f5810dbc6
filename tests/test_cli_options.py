"""Option spellings shared by every command (scorekit.cli_options): lm-eval's spellings,
-o/-f, the folder output spelled --output-dir, old names with a note, one line for anything else.
The behaviour is checked through the real `scorekit` command (subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.cli import build_parser
from scorekit import cli_options as options
from scorekit.resources import configs_dir

SAMPLE = str(configs_dir() / "ranking_sample.txt")


def scorekit(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "scorekit", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=600)


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("scorekit: error: "), proc.stderr
    return proc.stderr


def test_lm_eval_output_path_and_short_options_write_the_output(tmp_path):
    proc = scorekit("rank", SAMPLE, "-f", "json", "--output_path", str(tmp_path / "r.json"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "r.json").read_text())[0]["rank"] == 1
    proc = scorekit("plan", "--difference", "0.05", "--discordance", "0.2", "--format", "json", "-o", str(tmp_path / "p.json"))
    assert proc.returncode == 0 and json.loads((tmp_path / "p.json").read_text())["questions"] == 658


@pytest.mark.parametrize("args,needle", [
    (["rank", SAMPLE, "--log_samples"], "unknown option --log_samples for scorekit rank (an lm_eval option"),
    (["leaderboard", "out", "--include_path", "x"], "unknown option --include_path for scorekit leaderboard (scorekit variants has --include-path)"),
    (["rank", SAMPLE, "--outptu", "x"], "(did you mean --output?)"),
    (["leaderboard", "out", "--output-dir", "x"], "(did you mean --output?)"),
    (["export", "run", "--output_path", "x"], "(did you mean --output or --output-dir?)"),
    (["compare", "run", "--model_args", "pretrained=x"], "an lm_eval option: scorekit reads the model"),
    (["rank", SAMPLE, "extra"], "unrecognized arguments for scorekit rank: extra"),
])
def test_unknown_options_are_one_line_naming_what_was_meant(args, needle):
    """Before: argparse's top-level usage and "unrecognized arguments", whatever the command."""
    assert needle in one_line_error(scorekit(*args))


@pytest.mark.slow
def test_variants_takes_lm_eval_spellings_and_its_old_output_option(tmp_path):
    """`--include_path` as lm-eval spells it, and `--output` (now `--output-dir`) with a note."""
    from tests.lm_eval.task_variants_fixtures import write_tasks

    tasks = write_tasks(tmp_path / "tasks")
    proc = scorekit("variants", "local_qa", "--family", "non_greedy", "--include_path", str(tasks),
                    "--output", str(tmp_path / "robust"))
    assert proc.returncode == 0, proc.stderr
    assert "scorekit variants --output is now --output-dir" in proc.stderr
    assert (tmp_path / "robust" / "robust_non_greedy_local_qa.yaml").is_file()
    args, _ = build_parser().parse_known_args(["variants", "t", "--family", "prompt", "--output_path", "there"])
    assert args.output == "there"  # lm-eval's --output_path: the command's one output, the folder


def test_every_hyphenated_option_has_its_underscore_spelling():
    parser = build_parser()
    for name, p in options.command_parsers(parser).items():
        for option, action in list(p._option_string_actions.items()):
            if option.startswith("--") and "-" in option[2:]:
                assert p._option_string_actions["--" + option[2:].replace("-", "_")] is action, (name, option)


def test_a_folder_output_is_spelled_output_dir_everywhere():
    """--output names a file, --output-dir a folder, -o is --output: in every command."""
    for name, p in options.command_parsers(build_parser()).items():
        visible = {s: a for a in p._actions for s in a.option_strings}
        if "--output" in visible:
            assert visible["--output"].metavar == "FILE" and visible.get("-o") is visible["--output"], name
        if "--output-dir" in visible:
            assert visible["--output-dir"].metavar in ("DIR", None), name
            assert "-o" not in visible or visible["-o"] is visible.get("--output"), name
    parser = build_parser()
    args, _ = parser.parse_known_args(["demo", "-o", "there"])
    assert args.output_dir == "there" and options.renamed_notes("demo", ["demo", "-o", "there"])
    args, _ = parser.parse_known_args(["variants", "t", "--family", "prompt", "--output", "there"])
    assert args.output == "there"
