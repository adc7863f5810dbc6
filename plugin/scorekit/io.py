"""Small I/O helpers shared by the command line tools: atomic writes and checked reads."""

from __future__ import annotations

import json
import os
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


def write_text_atomic(target: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``target`` atomically (UTF-8)."""
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_bytes_atomic(target: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``target`` atomically."""
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def load_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file, raising :class:`ScorekitError` with line and column on bad input.

    Uses orjson when available (several times faster than the standard library); NaN and
    Infinity literals, which lm-eval can write, are accepted through the standard parser.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ScorekitError("file not found", path=path) from None
    except IsADirectoryError:
        raise ScorekitError("is a directory, expected a JSON file", path=path) from None
    except OSError as exc:
        raise ScorekitError(f"cannot read: {exc.strerror}", path=path) from None
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
