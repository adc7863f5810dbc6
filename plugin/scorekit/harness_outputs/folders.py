"""Finding files: the folder walk every command reads by (rules in :mod:`scorekit.harness_outputs`)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field

from scorekit.errors import ScorekitError, listed
from scorekit.io import missing_reason

SKIP_HIDDEN = "hidden files and folders"
SKIP_NOT_REGULAR = "not regular files (FIFO, device, socket, broken link)"
SKIP_UNREADABLE = "unreadable folders"
SKIP_SEEN = "links to a file or folder read already"
WALK_SKIPS = (SKIP_HIDDEN, SKIP_NOT_REGULAR, SKIP_UNREADABLE, SKIP_SEEN)


@dataclass
class Walk:
    """What :func:`walk` found: ``files`` in walk order (paths as given or joined, not
    resolved), the ``explicit`` ones the user named, and everything left out, by reason
    (``skipped``)."""

    files: list[str] = field(default_factory=list)
    explicit: set[str] = field(default_factory=set)
    skipped: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, reason: str, path: str | os.PathLike[str]) -> None:
        self.skipped.setdefault(reason, []).append(os.fspath(path))

    def notes(self) -> list[str]:
        """One line per reason: how many were left out, and which."""
        return [f"left out {len(paths)} {reason}: {listed(paths)}" for reason, paths in self.skipped.items() if paths]


def walk(paths: Iterable[str | os.PathLike[str]]) -> Walk:
    """Expand files and folders into the regular files under them (see the module docstring).

    A path that does not exist, or a named path that is not a regular file or folder (a FIFO),
    raises :class:`ScorekitError`.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "m").mkdir(); (root / "m" / "results_1.json").write_text("{}")
    2
    >>> (root / ".ipynb_checkpoints").mkdir()
    >>> [pathlib.Path(p).name for p in walk([root]).files], walk([root]).notes()[0].startswith("left out 1 hidden")
    (['results_1.json'], True)
    """
    out = Walk()
    folders: set[tuple[int, int]] = set()  # (device, inode) of the folders walked
    files: dict[tuple[int, int], str] = {}  # (device, inode) -> the first name of each file
    again: list[str] = []  # files met again under another name (noted after the folders met again)
    for raw in paths:
        p = os.fspath(raw)
        try:
            st = os.stat(p)
        except OSError:
            raise ScorekitError(missing_reason(p), path=p) from None
        if stat.S_ISDIR(st.st_mode):
            _walk_folder(p, out, folders, files, again)
        elif stat.S_ISREG(st.st_mode):
            key = (st.st_dev, st.st_ino)
            if key not in files:
                files[key] = p
                out.files.append(p)
            out.explicit.update((p, files[key]))  # a file named by the user is explicit under its first name too
        else:
            raise ScorekitError("not a regular file or folder (a FIFO, device or socket)", path=p)
    for f in again:
        out.skip(SKIP_SEEN, f)
    return out


def _walk_folder(top: str, out: Walk, folders: set[tuple[int, int]], files: dict[tuple[int, int], str],
                 again: list[str]) -> None:
    """Add the files under ``top`` to ``out`` (``os.walk`` following links; a folder or file
    met before under another name is skipped with a note)."""
    for folder, subfolders, names in os.walk(top, followlinks=True, onerror=lambda e: out.skip(SKIP_UNREADABLE, e.filename)):
        st = os.stat(folder)
        if (st.st_dev, st.st_ino) in folders:
            out.skip(SKIP_SEEN, folder)
            subfolders.clear()
            continue
        folders.add((st.st_dev, st.st_ino))
        for name in sorted(subfolders + names):
            if name.startswith("."):
                out.skip(SKIP_HIDDEN, os.path.join(folder, name))
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        for name in sorted(n for n in names if not n.startswith(".")):
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:  # a broken link
                st = None
            if st is None or not stat.S_ISREG(st.st_mode):
                out.skip(SKIP_NOT_REGULAR, path)
            elif (st.st_dev, st.st_ino) in files:
                if files[(st.st_dev, st.st_ino)] != path:  # the same name, named by the user: read once, no note
                    again.append(path)
            else:
                files[(st.st_dev, st.st_ino)] = path
                out.files.append(path)
