"""Every public function of scorekit.metrics shows a ``>>>`` example (pytest runs the examples
themselves with --doctest-modules over the package, see pyproject.toml)."""

import inspect

import pytest

import scorekit.metrics


@pytest.mark.parametrize("name", scorekit.metrics.__all__)
def test_every_public_function_has_an_example(name):
    assert ">>> " in (inspect.getdoc(getattr(scorekit.metrics, name)) or ""), name
