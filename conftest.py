"""Collection rules for the whole checkout (the tests' own fixtures are in tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent / "plugin" / "scorekit"
_SHIM = "sys.modules[__name__] ="


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:  # noqa: ANN001
    """Old import paths kept for one release replace themselves in sys.modules by the module they
    were renamed to, which --doctest-modules would collect a second time under the old file name
    ("import file mismatch"): every such module of the package is left out, found by that line
    rather than listed, so a new shim cannot be missed."""
    if collection_path.suffix == ".py" and collection_path.is_relative_to(_PACKAGE):
        if _SHIM in collection_path.read_text(encoding="utf-8"):
            return True
    return None
