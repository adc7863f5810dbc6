"""Errors that reach the user as one clear line (exit code 2 from the CLI)."""

from __future__ import annotations

from os import PathLike


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
