"""The one place where scorekit reads users' files and writes its outputs.

Reading: :func:`read_bytes` / :func:`read_text` (a missing file, a folder, a symlink loop or a
read error is one :class:`~scorekit.errors.ScorekitError` naming the file), :func:`loads_json`
and :func:`load_json` (JSON with a UTF-8 BOM, NaN literals, integers of any length, and a clear
error for nesting deeper than :data:`JSON_DEPTH_MAX`).

Writing: :func:`check_output` (an empty ``--output``, a folder, or a path that is one of the
inputs is refused before any work), :func:`atomic_path` / :func:`write_bytes_atomic` /
:func:`write_text_atomic` (a temporary file moved into place: an existing file keeps its mode,
a new one gets the umask's, a symlink is written through to its target) and :func:`emit`
(a command's result to ``--output`` or standard output; text that cannot be encoded is written
with backslash escapes, and a failing standard output is one error line).
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from scorekit.errors import ScorekitError, one_line

JSON_DEPTH_MAX = 1024  # orjson's limit; the standard parser would recurse past Python's stack
_INT_DIGITS_MAX = 308  # longer integers are read as floats (inf beyond ~1.8e308): float(int) would overflow
_BOM = b"\xef\xbb\xbf"
STREAM_BYTES_MAX = 256 << 20  # read from a pipe or device (not a regular file): /dev/zero never ends


# --- reading ------------------------------------------------------------------------------


def missing_reason(path: str | os.PathLike[str]) -> str:
    """Why ``path`` cannot be opened: "symlink loop", "broken symlink to X" or "no such file or directory"."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop (a symbolic link that points back to itself)"
        if os.path.islink(path):
            return f"broken symlink to {os.readlink(path)}"
        if exc.errno == errno.ENOTDIR:
            return "not found (a part of the path is a file, not a folder)"
        if exc.errno not in (errno.ENOENT,):
            return exc.strerror or str(exc)
    return "no such file or directory"


def read_bytes(path: str | os.PathLike[str], *, expected: str = "a file", missing: str = "file not found") -> bytes:
    """The bytes of a user's file; a missing file, a folder, a symlink loop or a read error raises
    :class:`ScorekitError` naming the file (``missing`` / "is a directory, expected <expected>").
    A pipe or device (``<(...)``, ``/dev/stdin``) is read up to :data:`STREAM_BYTES_MAX` bytes;
    more is an error, so ``/dev/zero`` is refused instead of filling the memory."""
    try:
        with open(path, "rb") as fh:  # not Path(path): its object costs show on 5,000-file folders
            if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return fh.read()
            data = fh.read(STREAM_BYTES_MAX + 1)  # a pipe or a device: it may never end
            if len(data) > STREAM_BYTES_MAX:
                raise ScorekitError(
                    f"more than {STREAM_BYTES_MAX >> 20} MB from something that is not a regular file "
                    "(an endless device such as /dev/zero?)", path=path)
            return data
    except FileNotFoundError:
        reason = missing_reason(path)
        raise ScorekitError(missing if reason == "no such file or directory" else reason, path=path) from None
    except IsADirectoryError:
        raise ScorekitError(f"is a directory, expected {expected}", path=path) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ScorekitError(missing_reason(path), path=path) from None
        raise ScorekitError(f"cannot read: {exc.strerror or exc}", path=path) from None


def read_text(path: str | os.PathLike[str], *, expected: str = "a file", missing: str = "file not found") -> str:
    """:func:`read_bytes` decoded as UTF-8 (a leading BOM dropped) with universal newlines (as
    text-mode ``open``); text that is not UTF-8 raises :class:`ScorekitError` naming the line."""
    data = read_bytes(path, expected=expected, missing=missing)
    return decode_text(data, path)


def decode_text(data: bytes, path: str | os.PathLike[str] | None = None) -> str:
    """UTF-8 ``data`` as text: a leading BOM dropped, newlines made ``\\n``; bad bytes raise
    :class:`ScorekitError` naming the line and byte."""
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ScorekitError(f"not UTF-8 text (byte {exc.start})", path=path, where=f"line {line}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def nul_line(text: str) -> int | None:
    """The 1-based line of the first NUL character in ``text``, or None."""
    at = text.find("\0")
    return None if at < 0 else text.count("\n", 0, at) + 1


def _parse_int(digits: str) -> int | float:
    # Python refuses int() of more than 4300 digits; such numbers become floats (inf)
    return int(digits) if len(digits) <= _INT_DIGITS_MAX else float(digits)


def loads_json(data: bytes | str, path: str | os.PathLike[str] | None = None, *, line: int | None = None) -> Any:
    """Parse JSON ``data`` (a whole file, or one JSONL line ``line``) from ``path``.

    Accepts a UTF-8 BOM, NaN/Infinity literals (lm-eval writes them) and integers of any
    length (past 308 digits they are read as floats, i.e. ``inf``). Bad JSON, nesting deeper
    than :data:`JSON_DEPTH_MAX` and non-UTF-8 bytes raise :class:`ScorekitError` naming the
    file and the line (and column). orjson is tried first (several times faster); the standard
    parser is the fallback for what orjson refuses.
    """
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if data.startswith(_BOM):
        data = data[len(_BOM):]

    def where(lineno: int, colno: int) -> str:
        return f"line {line}" if line is not None else f"line {lineno} column {colno}"

    try:
        import orjson

        return orjson.loads(data)
    except ImportError:  # pragma: no cover - orjson is a dependency
        pass
    except orjson.JSONDecodeError as exc:
        if "depth" in exc.msg or "recursion" in exc.msg.lower():
            raise ScorekitError(f"invalid JSON: nested deeper than {JSON_DEPTH_MAX} levels", path=path,
                                where=where(exc.lineno, exc.colno)) from None
        # fall through: the standard parser accepts NaN, long integers and lone surrogates
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        lineno = data.count(b"\n", 0, exc.start) + 1
        raise ScorekitError(f"not UTF-8 text (byte {exc.start})", path=path, where=where(lineno, 0).replace(" column 0", "")) from None
    try:
        return json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        msg = exc.msg
        if msg.startswith("Invalid control character") and exc.pos < len(text):
            msg = f"control character {text[exc.pos]!r} inside a string"
        raise ScorekitError(f"invalid JSON: {msg}", path=path, where=where(exc.lineno, exc.colno)) from None
    except RecursionError:
        raise ScorekitError(f"invalid JSON: nested deeper than {JSON_DEPTH_MAX} levels", path=path,
                            where=None if line is None else f"line {line}") from None


def finite_number(value: Any) -> float | None:
    """A JSON value as a finite float; None for anything else (booleans, text, NaN, infinities)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(float(value)) else None


def load_json(path: str | os.PathLike[str]) -> Any:
    """Read and parse a JSON file (see :func:`loads_json`)."""
    return loads_json(read_bytes(path, expected="a JSON file"), path)


# --- writing ------------------------------------------------------------------------------


def check_output(
    value: str | os.PathLike[str] | None,
    inputs: Iterable[str | os.PathLike[str]] = (),
    *,
    option: str = "--output",
) -> Path | None:
    """Validate an output path before any work: None stays None (standard output).

    Refused with :class:`ScorekitError`: an empty value, an existing folder, a symlink loop, and
    a path that is one of ``inputs`` (symlinks resolved), which the output would replace.
    """
    if value is None:
        return None
    text = os.fspath(value)
    if not text.strip():
        raise ScorekitError(f"{option} is empty: name a file, or leave {option} out to print to standard output")
    path = Path(text)
    if path.is_dir():
        raise ScorekitError(f"cannot write output: {option} is a directory, expected a file", path=path)
    if os.path.islink(path) and missing_reason(path).startswith("symlink loop"):
        raise ScorekitError(f"{option}: {missing_reason(path)}", path=path)
    refuse_input_as_output(path, inputs, option=option)
    return path


def refuse_input_as_output(
    output: str | os.PathLike[str] | None, inputs: Iterable[str | os.PathLike[str]], *, option: str = "--output"
) -> None:
    """Raise :class:`ScorekitError` when ``output`` is one of the files in ``inputs`` (an
    existing output: the same file, i.e. the same device and inode, symlinks resolved and hard
    links included; an output not yet written: the same absolute path, e.g. --plot = --output)."""
    if output is None:
        return
    try:
        target = os.stat(output)
    except (OSError, ValueError):  # only a path not yet written (another output) can be it
        path = os.path.abspath(output)
        if any(os.path.abspath(source) == path for source in inputs):
            raise ScorekitError(f"{option} is one of the input files; writing it would replace that input", path=output) from None
        return
    for source in inputs:
        try:
            st = os.stat(source)  # one stat per input, not a realpath walk of each (0.08 s -> 0.006 s on 5,000)
        except (OSError, ValueError):  # not there: cannot be the existing output
            continue
        if st.st_ino == target.st_ino and st.st_dev == target.st_dev:
            raise ScorekitError(f"{option} is one of the input files; writing it would replace that input", path=output)


def _write_target(target: Path) -> Path:
    """The file to replace: a symlink's final target (written through), else ``target``."""
    if not os.path.islink(target):
        return target
    if missing_reason(target).startswith("symlink loop"):
        raise ScorekitError(f"cannot write output: {missing_reason(target)}", path=target)
    return Path(os.path.realpath(target))


@contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``target``; move it into place only on success.

    A failure inside the block leaves no partial output file behind. An existing ``target``
    keeps its permission bits; a new one gets ``0o666`` minus the umask, as ``open`` would give.
    A symlinked ``target`` is written through: its target file is replaced, the link stays. A
    target that cannot be written (missing permission, a file where a folder should be) raises
    :class:`ScorekitError`.
    """
    target = Path(target)
    real = _write_target(target)
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except OSError:
        mask = os.umask(0o022)  # read the umask: setting it is the only way
        os.umask(mask)
        mode = 0o666 & ~mask
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
        try:
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
    except OSError as exc:
        raise ScorekitError(f"cannot write output: {exc.strerror or exc}", path=target) from None
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        try:
            os.replace(tmp_path, real)
        except OSError as exc:
            raise ScorekitError(f"cannot write output: {exc.strerror or exc}", path=target) from None
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def _stat_or_none(target: str | os.PathLike[str]) -> os.stat_result | None:
    try:
        return os.stat(target)
    except (OSError, ValueError):
        return None


def is_standard_output(target: str | os.PathLike[str]) -> bool:
    """True when ``target`` (links followed) is the file standard output writes to:
    ``/dev/stdout``, a link to it, ``/proc/self/fd/1``."""
    st = _stat_or_none(target)
    if st is None:
        return False
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a StringIO (tests): the process's own
        fd = 1
    try:
        out = os.fstat(fd)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino)


def write_bytes_atomic(target: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``target`` atomically; a failed write (disk full, ...) raises
    :class:`ScorekitError` naming ``target`` and leaves nothing behind.

    A target that exists and is not a regular file (``/dev/stdout`` on a pipe or terminal, a
    FIFO, ``/dev/null``; links followed) cannot be replaced: it is opened and written as it is.
    """
    st = _stat_or_none(target)
    try:
        if st is not None and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
            try:
                sys.stdout.flush()  # what was printed before stays before
            except (OSError, ValueError):
                pass
            with open(target, "wb") as fh:
                fh.write(data)
        else:
            with atomic_path(target) as tmp:
                tmp.write_bytes(data)
    except OSError as exc:
        raise ScorekitError(f"cannot write output: {exc.strerror or exc}", path=target) from None


def write_text_atomic(target: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``target`` atomically as UTF-8 (a lone surrogate, e.g. from a
    non-UTF-8 folder name, is written as its ``\\udcxx`` escape); see :func:`write_bytes_atomic`."""
    write_bytes_atomic(target, text.encode("utf-8", "backslashreplace"))


def write_stdout(text: str) -> None:
    """Write ``text`` to standard output and flush. Characters its encoding cannot hold are
    written as backslash escapes; a write error (``/dev/full``, a closed pipe) raises
    :class:`ScorekitError` (:class:`BrokenPipeError` for a closed pipe) after pointing standard
    output at ``/dev/null``, so that Python's own flush at exit cannot fail a second time."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    safe = text.encode(encoding, "backslashreplace").decode(encoding, "replace")
    try:
        sys.stdout.write(safe)
        sys.stdout.flush()
    except OSError as exc:
        silence_stdout()
        if isinstance(exc, BrokenPipeError):
            raise
        raise ScorekitError(f"cannot write to standard output: {exc.strerror or exc}") from None


def silence_stdout() -> None:
    """Point file descriptor 1 at ``/dev/null`` after a failed write, so that Python's flush of
    standard output at exit cannot fail a second time (the recipe of Python's signal docs)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (tests' capture)
        pass


def emit(text: str, output: str | os.PathLike[str] | None) -> None:
    """A command's result: written atomically to ``output`` when given, else to standard output
    (also when ``output`` is standard output itself, e.g. ``/dev/stdout``)."""
    if output is not None and not os.fspath(output).strip():
        raise ScorekitError("--output is empty: name a file, or leave --output out to print to standard output")
    if output is None or is_standard_output(output):  # --output /dev/stdout (or a link to it): where print goes
        write_stdout(text)
    else:
        write_text_atomic(output, text)


def note(*lines: str, prefix: str = "scorekit: note: ") -> None:
    """Each line on standard error after ``prefix``, on one line (:func:`~scorekit.errors.one_line`)."""
    for line in lines:
        print(one_line(prefix + line), file=sys.stderr)
