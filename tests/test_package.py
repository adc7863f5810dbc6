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
