"""Run lighteval 0.13 without network access.

The problem: building lighteval's task registry imports every built-in task module, and
``lighteval/tasks/tasks/tiny_benchmarks.py`` calls ``requests.get(<github url>)`` at import
time (``TinyCorpusAggregator.download``) unless ``tinyBenchmarks.pkl`` already sits next to it in
site-packages. Offline that raises ``ConnectionError`` and every ``lighteval`` command fails.
(The downloaded file is never read back: the tiny tasks open
``extended_tasks/tiny_benchmarks/tinyBenchmarks.pkl`` relative to the working directory.)

Built-in modules are imported *before* a ``--custom-tasks`` module, so nothing inside scorekit's
task module can prevent the download. Two ways out, neither touches site-packages unasked:

* :func:`prepare_offline` (used by ``python -m scorekit.lighteval ...``, a drop-in for the
  ``lighteval`` command): imports ``tiny_benchmarks`` once with ``requests.get`` answering that
  single URL with a local "503 not fetched" response, so the module loads, writes nothing and
  stays cached in ``sys.modules`` for the registry. Every other request goes through unchanged,
  and ``requests.get`` is restored right after the import.
* :func:`install_placeholder` (``scorekit lighteval-offline --install``): for users who want the
  plain ``lighteval`` command to work offline, writes a small placeholder ``tinyBenchmarks.pkl``
  where lighteval looks for it (or copies a real one given with ``--from``). Only on request;
  :func:`remove_placeholder` undoes it.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path

from scorekit.errors import ScorekitError
from scorekit.files import read_bytes, write_bytes_atomic

logger = logging.getLogger(__name__)

TINY_BENCHMARKS_MODULE = "lighteval.tasks.tasks.tiny_benchmarks"
TINY_BENCHMARKS_URL = "https://raw.githubusercontent.com/felipemaiapolo/tinyBenchmarks/main/tinyBenchmarks/tinyBenchmarks.pkl"
PKL_NAME = "tinyBenchmarks.pkl"

# Fixed bytes, so remove_placeholder() can recognise its own file and never deletes a real one.
PLACEHOLDER_BYTES = pickle.dumps({
    "scorekit_placeholder": True,
    "note": "Written by `scorekit lighteval-offline --install` so that lighteval can build its task registry offline. "
            "Not the tinyBenchmarks IRT data; remove with `scorekit lighteval-offline --remove`.",
}, protocol=4)


def tiny_benchmarks_pkl_path() -> Path:
    """Where lighteval 0.13 looks for ``tinyBenchmarks.pkl`` (next to ``tiny_benchmarks.py``).

    Found without executing the module (which would trigger the download).
    """
    try:
        spec = importlib.util.find_spec(TINY_BENCHMARKS_MODULE)
    except ModuleNotFoundError:
        spec = None
    if spec is None or spec.origin is None:
        raise ScorekitError(f"cannot find {TINY_BENCHMARKS_MODULE}: is lighteval 0.13 installed? "
                            'Install it with: pip install "scorekit[lighteval]"')
    return Path(spec.origin).resolve().parent / PKL_NAME


def prepare_offline() -> bool:
    """Import lighteval's ``tiny_benchmarks`` module without its import-time download.

    Returns True when the download was intercepted, False when nothing had to be done (the
    module was already imported, or the pickle file exists). Call it before lighteval builds
    its ``Registry`` (``python -m scorekit.lighteval`` does). Writes no file anywhere.
    """
    if TINY_BENCHMARKS_MODULE in sys.modules or tiny_benchmarks_pkl_path().is_file():  # no download would happen
        return False
    import requests

    original_get = requests.get
    intercepted: list[str] = []

    def guarded_get(url, *args, **kwargs):
        if url == TINY_BENCHMARKS_URL:
            intercepted.append(url)
            response = requests.Response()
            response.status_code = 503  # anything but 200: lighteval then writes no file
            response.reason = "not fetched (scorekit offline mode)"
            response.url = url
            response._content = b""
            return response
        return original_get(url, *args, **kwargs)

    requests.get = guarded_get
    try:
        importlib.import_module(TINY_BENCHMARKS_MODULE)
    finally:
        requests.get = original_get
    if intercepted:
        logger.warning("scorekit: skipped lighteval's import-time download of %s (offline-safe; only the "
                       "tiny_* built-in tasks would use it)", PKL_NAME)
    return bool(intercepted)


def run_cli(argv: Sequence[str]) -> int:
    """Run lighteval's own command line (``lighteval <argv>``) after :func:`prepare_offline`.

    First the tasks of the command line are checked against scorekit's own task names
    (:mod:`scorekit.lighteval.task_names`): a forgotten ``--custom-tasks``, a mistyped SCORE task
    or ``lighteval eval`` with scorekit's tasks end with one ``scorekit: error:`` line, exit 2."""
    prepare_offline()
    import typer
    from lighteval.__main__ import app

    from scorekit.lighteval.task_names import check_tasks, command_tasks

    parsed = command_tasks(typer.main.get_command(app), argv)
    problem = check_tasks(*parsed) if parsed else None
    if problem:
        print(f"scorekit: error: {problem}", file=sys.stderr)
        return 2
    try:
        app(args=list(argv), prog_name="lighteval")
    except SystemExit as exc:  # typer/click always exits
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    return 0


def placeholder_status(path: Path | None = None) -> str:
    """``"missing"``, ``"placeholder"`` (ours) or ``"present"`` (some other file, e.g. the real one)."""
    path = tiny_benchmarks_pkl_path() if path is None else Path(path)
    if not path.is_file():
        return "missing"
    return "placeholder" if path.read_bytes() == PLACEHOLDER_BYTES else "present"


def install_placeholder(path: Path, *, source: str | os.PathLike[str] | None = None) -> Path:
    """Create lighteval's ``tinyBenchmarks.pkl`` at ``path`` so the plain ``lighteval`` command runs offline.

    With ``source`` the given file (a real tinyBenchmarks.pkl) is copied; otherwise the fixed
    placeholder is written. Never overwrites an existing file. Returns the path written.
    """
    if os.path.lexists(path):
        what = {"placeholder": "scorekit's placeholder", "present": "a file that is not scorekit's placeholder"}.get(
            placeholder_status(path), "a folder" if path.is_dir() else "something that is not a file")
        raise ScorekitError(f"already exists ({what}); nothing written", path=path)
    # the source is read first, so that a problem with it is said of it, not of the destination
    data = PLACEHOLDER_BYTES if source is None else read_bytes(source, expected="a tinyBenchmarks.pkl file")
    try:
        write_bytes_atomic(path, data)
    except ScorekitError as exc:
        if "Permission denied" not in str(exc):
            raise
        raise ScorekitError("permission denied; run with the rights of the Python environment's owner, or use "
                            "`python -m scorekit.lighteval ...`, which needs no file", path=path) from None
    return path


def remove_placeholder(path: Path) -> bool:
    """Delete the placeholder written by :func:`install_placeholder` at ``path``; True if a file was removed.

    A file that is not scorekit's placeholder (e.g. the real tinyBenchmarks data) is left alone.
    """
    status = placeholder_status(path)
    if status == "missing":
        if os.path.lexists(path):
            raise ScorekitError("is not a file (so not scorekit's placeholder); left in place", path=path)
        return False
    if status != "placeholder":
        raise ScorekitError("is not scorekit's placeholder; left in place", path=path)
    path.unlink()
    return True

