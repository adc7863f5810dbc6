"""The package installs, imports lightly and finds its shipped folders."""

import subprocess
import sys

import scorekit
from scorekit import resources
from scorekit.cli import main


def test_import_is_light():
    code = (
        "import sys, scorekit, scorekit.metrics, scorekit.cli, scorekit.resources;"
        "heavy = [m for m in ('torch', 'transformers', 'lighteval') if m in sys.modules];"
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_version_and_help(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert scorekit.__version__ in capsys.readouterr().out
    try:
        main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0
    assert "tasks-dir" in capsys.readouterr().out


def test_shipped_folders_exist():
    assert resources.tasks_dir().is_dir()
    assert resources.configs_dir().is_dir()


def test_console_script_prints_tasks_dir():
    out = subprocess.run(["scorekit", "tasks-dir"], check=True, capture_output=True, text=True).stdout
    assert out.strip() == str(resources.tasks_dir())


def test_unwritable_output_is_one_line_exit_2(tmp_path, capsys):
    """Every command writes through scorekit.files's atomic writer: a target under a regular file
    cannot be created, which is reported on one line with exit code 2."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rank_file = tmp_path / "ranks.txt"
    rank_file.write_text('A={"m": 1, "known_totals": 2}\n{"m": 3}\n')
    assert main(["rank", str(rank_file), "--output", str(blocker / "out.txt")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("scorekit: error:") and "cannot write output" in err and "\n" not in err
    assert not (blocker.parent / "out.txt").exists()
