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



@pytest.mark.parametrize("name", scorekit.metrics.__all__)
def test_every_public_function_has_an_example(name):
    import inspect

    assert ">>> " in (inspect.getdoc(getattr(scorekit.metrics, name)) or ""), name
