"""The ``>>>`` examples in scorekit.metrics' docstrings run and give what they show."""

import doctest
import importlib
import pkgutil

import pytest

import scorekit.metrics

MODULES = sorted(m.name for m in pkgutil.iter_modules(scorekit.metrics.__path__, "scorekit.metrics."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, raise_on_error=False)
    assert result.failed == 0
    if name.rsplit(".", 1)[1] in ("consistency", "intervals", "math_answers", "logprob", "sampling"):
        assert result.attempted > 0

