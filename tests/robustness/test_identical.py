"""robustness.identical: the identical-sample rate and its warning, raised or logged."""

from __future__ import annotations

import logging
import warnings

import pytest

from scorekit.robustness.identical import identical_rate_with_warning, identical_sample_note


def test_high_rate_warns_with_the_label_and_the_note():
    flags = [True, True, False]
    with pytest.warns(RuntimeWarning) as got:
        rate = identical_rate_with_warning(flags, "task x")
    assert rate == pytest.approx(2 / 3)
    assert str(got[0].message) == "task x: " + identical_sample_note(2 / 3, 3)


def test_with_a_logger_the_same_line_is_logged_and_nothing_raised(caplog):
    logger = logging.getLogger("scorekit.test_identical")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with caplog.at_level(logging.WARNING, logger=logger.name):
            rate = identical_rate_with_warning([True, True], "SCORE non-greedy (mmlu_pro)", logger)
    assert rate == 1.0
    assert [r.getMessage() for r in caplog.records] == ["SCORE non-greedy (mmlu_pro): " + identical_sample_note(1.0, 2)]


def test_low_rate_neither_warns_nor_logs(caplog):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with caplog.at_level(logging.WARNING):
            assert identical_rate_with_warning([True, False, False], "x", logging.getLogger("x")) == pytest.approx(1 / 3)
            assert identical_rate_with_warning([False], "x") == 0.0
    assert not caplog.records
