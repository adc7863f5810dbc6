"""Session-wide test setup: offline mode, isolated caches, shared tiny model.

Sub-folders add their own conftest.py for fixtures only they need.
"""

from __future__ import annotations

import os

import pytest

# Nothing in the suite may reach the Hugging Face hub; these make a mistake fail fast
# instead of hanging on the network. Set before any harness import.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session", autouse=True)
def _isolated_hf_home(tmp_path_factory):
    """Give the whole session a private HF_HOME so no cached dataset or lighteval sample
    cache from an earlier run can be silently reused."""
    home = tmp_path_factory.mktemp("hf_home")
    old = os.environ.get("HF_HOME")
    os.environ["HF_HOME"] = str(home)
    yield home
    if old is None:
        os.environ.pop("HF_HOME", None)
    else:
        os.environ["HF_HOME"] = old


@pytest.fixture(scope="session")
def tiny_hf_model(tmp_path_factory):
    """Path of a ~30k-parameter random Llama + byte-level BPE tokenizer with a chat template,
    built once per session with the installed transformers (see tests/support/tiny_model.py)."""
    pytest.importorskip("torch", reason="needs the hf extra (torch)")
    from tests.support.tiny_model import build_tiny_llama

    return build_tiny_llama(tmp_path_factory.mktemp("tiny_llama"))


def pytest_sessionfinish(session, exitstatus):
    """In CI (CI=true) a skipped test is a failure: every extra is installed there, so a
    skip can only hide a missing install step or a broken import."""
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and session.exitstatus == 0:
        reporter.write_line(f"CI: {len(skipped)} test(s) skipped; failing the run (see -ra summary)", red=True)
        session.exitstatus = 1


def pytest_ignore_collect(collection_path, config):
    """--doctest-modules (pyproject.toml) is for the package's examples: under tests/, only
    test_*.py files are collected, never the support modules (scripted models, task files)."""
    if collection_path.suffix == ".py" and not collection_path.name.startswith(("test_", "conftest")):
        return True
    return None
