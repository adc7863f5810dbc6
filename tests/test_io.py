"""Outputs. An output that is an input is refused; an existing file
keeps its mode, a new one follows the umask; a symlinked --output is written through; side
outputs come after the main one; --output '' is an error; nothing partial is left behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.hostile.support import RANK_TEXT, assert_one_line_error, results_body, run, score_run, write_results


def _inputs(tmp_path, command):
    """(argv without --output, the input file a careless --output could name)."""
    if command == "rank":
        path = tmp_path / "ranks.txt"
        path.write_text(RANK_TEXT)
        return ["rank", path], path
    if command == "robustness":
        path = score_run(tmp_path / "run")
        return ["robustness", path], path
    if command == "compare":
        path = score_run(tmp_path / "run")
        other = score_run(tmp_path / "other")
        return ["compare", path, other], path
    if command == "export":
        path = score_run(tmp_path / "run")
        return ["export", path, "--retrieved-timestamp", "1795000000"], path  # same document twice
    path = write_results(tmp_path / "res", results_body())
    return [command, path], path


COMMANDS = ("leaderboard", "scorecard", "rank", "robustness", "compare", "export")


@pytest.mark.parametrize("command", COMMANDS)
def test_output_that_is_the_input_is_refused(tmp_path, command):
    argv, source = _inputs(tmp_path, command)
    before = source.read_bytes()
    assert_one_line_error(run([*argv, "--output", source]), "one of the input files")
    link = tmp_path / "link"
    os.symlink(source, link)
    assert_one_line_error(run([*argv, "--output", link]), "one of the input files")
    hard = tmp_path / "hard"
    os.link(source, hard)
    assert_one_line_error(run([*argv, "--output", hard]), "one of the input files")
    assert source.read_bytes() == before


@pytest.mark.parametrize("command", ("leaderboard", "scorecard", "robustness", "compare", "export"))
def test_output_that_is_a_file_found_in_an_input_folder_is_refused(tmp_path, command):
    argv, source = _inputs(tmp_path, command)
    before = source.read_bytes()
    folder_argv = [argv[0], source.parent, *argv[2:]]  # compare: the other run stays
    assert_one_line_error(run([*folder_argv, "--output", source]), "one of the input files")
    assert source.read_bytes() == before


@pytest.mark.parametrize("command", ("leaderboard", "scorecard"))
def test_output_that_is_the_config_is_refused(tmp_path, command):
    from scorekit.resources import config_path

    argv, _ = _inputs(tmp_path, command)
    cfg = tmp_path / "cfg.yaml"
    shipped = "open_llm_leaderboard_v2.yaml" if command == "leaderboard" else "llm_benchmarks_scoring.yaml"
    cfg.write_bytes(config_path(shipped).read_bytes())
    assert_one_line_error(run([*argv, "--config", cfg, "--output", cfg]), "one of the input files")
    assert cfg.read_bytes() == config_path(shipped).read_bytes()


def test_plot_that_is_an_input_is_refused(tmp_path):
    argv, source = _inputs(tmp_path, "leaderboard")
    png = source.parent / "x.png"
    assert_one_line_error(run([*argv, "--output", png, "--plot", png]), "--plot is one of the input files")


@pytest.mark.parametrize("command", COMMANDS)
def test_empty_output_is_an_error(tmp_path, command):
    argv, _ = _inputs(tmp_path, command)
    assert_one_line_error(run([*argv, "--output", ""]), "--output is empty")


def test_empty_plot_is_an_error(tmp_path):
    argv, _ = _inputs(tmp_path, "leaderboard")
    assert_one_line_error(run([*argv, "--plot", ""]), "--plot is empty")


@pytest.mark.parametrize("command", COMMANDS)
def test_existing_output_keeps_its_mode(tmp_path, command):
    argv, _ = _inputs(tmp_path, command)
    out = tmp_path / "out.txt"
    out.write_text("old")
    out.chmod(0o644)
    code, _, err = run([*argv, "--output", out])
    assert code == 0, err
    assert stat.S_IMODE(out.stat().st_mode) == 0o644 and out.read_text() != "old"
    out.chmod(0o640)
    assert run([*argv, "--output", out])[0] == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("umask", (0o022, 0o077, 0o002))
def test_new_output_follows_the_umask(tmp_path, command, umask):
    argv, _ = _inputs(tmp_path, command)
    out = tmp_path / "new" / "out.txt"
    old = os.umask(umask)
    try:
        code, _, err = run([*argv, "--output", out])
    finally:
        os.umask(old)
    assert code == 0, err
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("command", COMMANDS)
def test_symlinked_output_is_written_through(tmp_path, command):
    argv, _ = _inputs(tmp_path, command)
    target = tmp_path / "real" / "table.txt"
    target.parent.mkdir()
    target.write_text("old")
    target.chmod(0o604)
    link = tmp_path / "link.txt"
    os.symlink(target, link)
    code, _, err = run([*argv, "--output", link])
    assert code == 0, err
    assert os.path.islink(link) and os.readlink(link) == str(target)
    assert target.read_text() != "old" and link.read_text() == target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o604
    assert [p.name for p in target.parent.iterdir()] == ["table.txt"]  # no temp file left
    dangling = tmp_path / "dangling.txt"
    os.symlink(tmp_path / "real" / "new.txt", dangling)
    assert run([*argv, "--output", dangling])[0] == 0
    assert (tmp_path / "real" / "new.txt").read_text() == target.read_text()


@pytest.mark.parametrize("command", COMMANDS)
def test_symlink_loop_output(tmp_path, command):
    argv, _ = _inputs(tmp_path, command)
    loop = tmp_path / "loop.txt"
    os.symlink(loop, loop)
    assert_one_line_error(run([*argv, "--output", loop]), "symlink loop")
    assert os.path.islink(loop)


def test_plot_only_after_the_output_succeeded(tmp_path):
    pytest.importorskip("matplotlib")
    argv, _ = _inputs(tmp_path, "leaderboard")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    plot = tmp_path / "chart.png"
    assert_one_line_error(run([*argv, "--output", blocker / "out.txt", "--plot", plot]), "cannot write output")
    assert not plot.exists()
    code, _, err = run([*argv, "--output", tmp_path / "out.txt", "--plot", plot])
    assert code == 0, err
    assert plot.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("name", ["p.xyz", "p.PNGX", "p.json"])
def test_plot_with_an_unknown_format_is_refused_before_work(tmp_path, name):
    argv, _ = _inputs(tmp_path, "leaderboard")
    out = tmp_path / "out.txt"
    assert_one_line_error(run([*argv, "--plot", tmp_path / name, "--output", out]), "unknown image format")
    assert not out.exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_failed_run_leaves_existing_output_and_no_temp_file(tmp_path, command):
    argv, source = _inputs(tmp_path, command)
    source.write_bytes(source.read_bytes()[: len(source.read_bytes()) // 2])  # truncated input
    out = tmp_path / "out.txt"
    out.write_text("previous")
    code, _, err = run([*argv, "--output", out])
    assert code == 2 and err.count("\n") == 1
    assert out.read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".out.txt")) == []


@pytest.mark.parametrize("option,value,needle", [("--digits", "-1", "--digits must be between 0 and 15"),
                                                  ("--digits", "100000", "--digits must be between 0 and 15")])
@pytest.mark.parametrize("command", ("leaderboard", "scorecard"))
def test_argument_checks(tmp_path, command, option, value, needle):
    argv, _ = _inputs(tmp_path, command)
    assert_one_line_error(run([*argv, option, value]), needle)


@pytest.mark.parametrize("argv,needle", [
    (["--seed", "-1"], "--seed must be between 0 and 4294967295"),
    (["--seed", str(2**32)], "--seed must be between"),
    (["--batch-size", "lots"], "--batch-size must be a positive integer"),
    (["--batch-size", "0"], "--batch-size must be a positive integer"),
    (["--questions", "0"], "--questions must be at least 1"),
    (["--output-dir", ""], "--output-dir is empty"),
])
def test_demo_argument_checks(tmp_path, argv, needle):
    assert_one_line_error(run(["demo", "--model", "dummy", *argv], cwd=tmp_path), needle)
    assert list(tmp_path.iterdir()) == []  # nothing written before the arguments are checked


@pytest.mark.parametrize("command", ("tasks-dir", "configs-dir"))
def test_dir_commands(command):
    code, out, err = run([command])
    assert code == 0 and err == "" and os.path.isdir(out.strip())


@pytest.mark.parametrize("via_link", [False, True])
def test_output_onto_standard_output(tmp_path, via_link):
    """`--output /dev/stdout` (or a link to it) on a pipe failed with "No such file or
    directory" (the temporary file was to go beside /proc/self/fd/1's target, a pipe)."""
    import subprocess
    import sys

    rank_file = tmp_path / "ranks.txt"
    rank_file.write_text(RANK_TEXT)
    target = "/dev/stdout"
    if via_link:
        os.symlink("/dev/stdout", tmp_path / "out.csv")
        target = str(tmp_path / "out.csv")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "plugin"))
    proc = subprocess.run([sys.executable, "-m", "scorekit", "rank", str(rank_file), "--format", "csv", "--output", target],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("Rank,Model,") and len(proc.stdout.splitlines()) == 3
    if via_link:
        assert os.readlink(tmp_path / "out.csv") == "/dev/stdout"  # the link stays


def test_output_onto_a_fifo_is_written_through(tmp_path):
    """A named pipe cannot be replaced by a renamed file: it is written as it is."""
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    rank_file = tmp_path / "ranks.txt"
    rank_file.write_text(RANK_TEXT)
    code, out, err = run(["rank", rank_file, "--format", "csv", "--output", fifo])
    reader.join(timeout=60)
    assert code == 0, err
    assert out == "" and got and got[0].startswith("Rank,Model,")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
