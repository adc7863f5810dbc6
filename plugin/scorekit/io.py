"""Small I/O helpers shared by the command line tools: atomic writes and checked reads."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from scorekit.errors import ScorekitError


@contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``target``; move it into place only on success.

    A failure inside the block leaves no partial output file behind. A target that cannot be
    written (missing permission, a file where a folder should be) raises :class:`ScorekitError`.
    """
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)
    except OSError as exc:
        raise ScorekitError(f"cannot write output: {exc.strerror or exc}", path=target) from None
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        try:
            os.replace(tmp_path, target)
        except OSError as exc:
            raise ScorekitError(f"cannot write output: {exc.strerror or exc}", path=target) from None
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def write_bytes_atomic(target: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``target`` atomically; a failed write (disk full, ...) raises
    :class:`ScorekitError` naming ``target`` and leaves nothing behind."""
    with atomic_path(target) as tmp:
        try:
            tmp.write_bytes(data)
        except OSError as exc:
            raise ScorekitError(f"cannot write output: {exc.strerror or exc}", path=target) from None


def write_text_atomic(target: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``target`` atomically (UTF-8); see :func:`write_bytes_atomic`."""
    write_bytes_atomic(target, text.encode("utf-8"))


def emit(text: str, output: str | os.PathLike[str] | None) -> None:
    """A command's result: written atomically to ``output`` when given, else to stdout."""
    if output:
        write_text_atomic(output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def read_bytes(path: str | os.PathLike[str], *, expected: str = "a file", missing: str = "file not found") -> bytes:
    """The bytes of a user's file; a missing file, a folder or a read error raises
    :class:`ScorekitError` naming the file (``missing`` / "is a directory, expected <expected>")."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise ScorekitError(missing, path=path) from None
    except IsADirectoryError:
        raise ScorekitError(f"is a directory, expected {expected}", path=path) from None
    except OSError as exc:
        raise ScorekitError(f"cannot read: {exc.strerror}", path=path) from None


def read_text(path: str | os.PathLike[str], *, expected: str = "a file", missing: str = "file not found") -> str:
    """:func:`read_bytes` decoded as UTF-8 with universal newlines (as text-mode ``open``);
    text that is not UTF-8 raises :class:`ScorekitError`."""
    data = read_bytes(path, expected=expected, missing=missing)
    try:
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        raise ScorekitError(f"not UTF-8 text (byte {exc.start})", path=path) from None


def load_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file, raising :class:`ScorekitError` with line and column on bad input.

    Uses orjson when available (several times faster than the standard library); NaN and
    Infinity literals, which lm-eval can write, are accepted through the standard parser.
    """
    data = read_bytes(path, expected="a JSON file")
    try:
        import orjson

        return orjson.loads(data)
    except ImportError:
        pass
    except ValueError:
        pass  # fall through: the standard parser gives the position and accepts NaN
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ScorekitError(f"not UTF-8 text (byte {exc.start})", path=path) from None
    except json.JSONDecodeError as exc:
        raise ScorekitError(f"invalid JSON: {exc.msg}", path=path, where=f"line {exc.lineno} column {exc.colno}") from None
