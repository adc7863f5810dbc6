"""At the process level: standard output on /dev/full and Ctrl-C at
any moment end with one line and the documented exit code, never a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile.support import RANK_TEXT, results_body, score_run, write_results

PLUGIN = str(Path(__file__).resolve().parents[2] / "plugin")


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = PLUGIN + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _argv(tmp_path: Path, command: str) -> list[str]:
    if command == "rank":
        path = tmp_path / "ranks.txt"
        path.write_text(RANK_TEXT)
        return ["rank", str(path)]
    if command == "robustness":
        return ["robustness", str(score_run(tmp_path / "run"))]
    if command in ("tasks-dir", "lighteval-offline"):
        return [command]
    return [command, str(write_results(tmp_path / "res", results_body()))]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", ["leaderboard", "scorecard", "rank", "robustness", "tasks-dir"])
def test_stdout_on_dev_full(tmp_path, command):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "scorekit", *_argv(tmp_path, command)], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=_env(), timeout=300)
    errors = [ln for ln in proc.stderr.splitlines() if not ln.startswith("scorekit: note:")]
    assert proc.returncode == 2, proc.stderr
    assert len(errors) == 1 and "No space left on device" in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr


def test_closed_pipe_is_quiet(tmp_path):
    argv = _argv(tmp_path, "rank")
    proc = subprocess.Popen([sys.executable, "-m", "scorekit", *argv, "--format", "json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env())
    proc.stdout.close()  # the reader went away (| head -0)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode in (0, 2) and b"Traceback" not in err and b"Exception ignored" not in err


def _wait_for_open_file(pid: int, folder: Path, timeout: float = 120.0) -> bool:
    """True once process ``pid`` has a file under ``folder`` open (it is inside scorekit's work)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(str(folder)):
                        return True
                except OSError:
                    continue
        except OSError:
            return False
        time.sleep(0.001)
    return False


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
@pytest.mark.parametrize("command", ["leaderboard", "scorecard"])
def test_sigint_while_reading(tmp_path, command):
    """Ctrl-C while scorekit reads its inputs: "scorekit: interrupted", exit 130. (A signal that
    arrives while Python itself is still starting, before any scorekit code runs, is Python's.)"""
    import json

    folder = tmp_path / "many"
    body = results_body()
    for i in range(400):
        write_results(folder / f"m{i:03d}", body)
    # one big file (valid JSON padded with 200 MB of blanks): reading it keeps a descriptor open
    # long enough for the poll below to see, and parsing it keeps the command busy afterwards
    big = next((folder / "m000").iterdir())
    big.write_bytes(json.dumps(body).encode() + b" " * 200_000_000)
    for attempt in range(3):
        proc = subprocess.Popen([sys.executable, "-m", "scorekit", command, str(folder)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=_env(), text=True)
        assert _wait_for_open_file(proc.pid, folder), "the command never opened an input"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=300)
        if proc.returncode != 0:
            break  # otherwise it finished between the check and the signal: try again
    assert proc.returncode == 130, err
    assert err == "scorekit: interrupted\n" and out == ""


def test_keyboard_interrupt_while_building_the_parser(monkeypatch):
    import importlib

    from tests.hostile.support import run

    real = importlib.import_module

    def interrupted(name, *args):
        if name.startswith("scorekit.commands."):
            raise KeyboardInterrupt
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", interrupted)
    assert run(["leaderboard", "x"]) == (130, "", "scorekit: interrupted\n")
