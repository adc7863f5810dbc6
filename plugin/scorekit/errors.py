"""Errors that reach the user as one clear line (exit code 2 from the CLI)."""

from __future__ import annotations

from os import PathLike
from typing import Iterable


class ScorekitError(Exception):
    """A problem with the user's input: the message names the file and the place.

    The CLI prints ``scorekit: error: <message>`` and exits with status 2, without a
    traceback. Library callers can catch it like any exception.
    """

    def __init__(self, message: str, *, path: str | PathLike[str] | None = None, where: str | None = None):
        self.path = None if path is None else str(path)
        self.where = where
        prefix = ""
        if self.path is not None:
            prefix = self.path + (f": {where}" if where else "") + ": "
        elif where:
            prefix = where + ": "
        super().__init__(prefix + message)


def one_line(text: str) -> str:
    """``text`` on one line: newlines, tabs and other control characters as backslash escapes,
    so a user's string inside a message can neither break the line nor drive the terminal.

    >>> one_line("a\\nb\\x1b[31m")
    'a\\\\nb\\\\x1b[31m'
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def shown(value: object, limit: int = 80) -> str:
    """A short ``repr`` of a user's value for a message: at most ``limit`` characters, one line,
    and safe for integers too long for ``repr`` (Python refuses more than 4300 digits).

    >>> shown(10 ** 5000)
    'an integer of about 5001 digits'
    >>> shown("x" * 100, limit=10)
    "'xxxxxx..."
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 1000:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    import reprlib

    brief = reprlib.Repr()  # containers: their first items, three levels deep
    brief.maxstring = brief.maxother = limit
    brief.maxlevel = 3
    try:
        text = brief.repr(value) if isinstance(value, (list, dict, tuple)) else repr(value)
    except (ValueError, RecursionError, MemoryError):
        return f"a {type(value).__name__}"
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# Names a note lists before "and N more"; None lists every one (the CLI's -v / --verbose).
NAMES_SHOWN: int | None = 10


def listed(names: Iterable[object], limit: int | None = None) -> str:
    """``names`` for a message: the first ``limit`` (default :data:`NAMES_SHOWN`) joined by ", ",
    then "and N more" for the rest, each on one line (:func:`one_line`), so a note about
    100,000 models stays readable. With :data:`NAMES_SHOWN` None (``-v``) every name is listed.

    >>> listed(["a", "b", "c"], limit=2)
    'a, b and 1 more (-v lists all)'
    >>> listed(["a", "b"])
    'a, b'
    """
    names = list(names)
    limit = NAMES_SHOWN if limit is None or NAMES_SHOWN is None else limit
    if limit is None or len(names) <= limit:
        return ", ".join(one_line(str(n)) for n in names)
    return ", ".join(one_line(str(n)) for n in names[:limit]) + f" and {len(names) - limit} more (-v lists all)"
