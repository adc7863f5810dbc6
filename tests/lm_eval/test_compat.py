"""scorekit.lm_eval.compat: the shapes each lm-eval line hands scorekit (0.4.13 and 0.5.0.dev1;
CI runs this file under both). End-to-end runs are in test_registry.py."""

from __future__ import annotations

import importlib.metadata

import pytest

from scorekit.lm_eval import compat
from scorekit.lm_eval.metrics import pass_at_k, recall_at_k


def test_flag_follows_the_installed_lm_eval():
    version = importlib.metadata.version("lm-eval")
    assert compat.SCORERS == (not version.startswith("0.4.")), version


def test_document_outputs_reads_both_shapes():
    assert compat.document_outputs([["a", "b", "c"]]) == ["a", "b", "c"]  # 0.4: one request, its repeats
    assert compat.document_outputs(["a", "b", "c"]) == ["a", "b", "c"]    # 0.5: flat
    assert compat.document_outputs(["a"]) == ["a"]                        # a filter kept one


def test_document_values_keeps_a_list_value_whole():
    values = {"cr": [("q", 1), ("q", 2)], "rate": 1.0}
    out = compat.document_values(values)
    if compat.SCORERS:  # 0.5 would read the list as one score per repeat
        assert out == {"cr": [[("q", 1), ("q", 2)]], "rate": 1.0}
    else:
        assert out is values


def test_scorer_call_scores_all_repeats_of_a_document_at_once():
    call = compat.scorer_call(pass_at_k, "generate_until")
    # 0.5: references=[gold], predictions=one entry per repeat; 2 of 4 correct -> pass@1 = 0.5
    assert call(["4"], ["4", "x", "4", "y"]) == {"pass@1": [0.5]}
    assert call(["4"], ["4", "x", "4", "y"], k=[1, 4]) == {"pass@1": [0.5], "pass@4": [1.0]}
    assert call([["4", "four"]], ["four", "x"], multiple_targets=True) == {"pass@1": [0.5]}  # any gold
    with pytest.raises(TypeError):
        call(["4"], ["4"], kk=1)  # an unknown metric argument is an error, not dropped
    assert call.scorekit_fn is pass_at_k


def test_scorer_call_multiple_choice_reads_the_log_likelihoods():
    class LLResults:  # the one attribute 0.5's LLResults gives a metric
        lls = [-2.0, -1.0, -3.0]

    call = compat.scorer_call(recall_at_k, "multiple_choice")
    assert call(0, LLResults()) == {"recall@1": 0.0} and call(1, LLResults()) == {"recall@1": 1.0}  # gold index
    assert call(0, LLResults(), k=[1, 2]) == {"recall@1": 0.0, "recall@2": 1.0}


def test_registered_metrics_are_scorekit_functions():
    import scorekit.lm_eval  # noqa: F401

    assert compat.registered_function("pass_at_k") is pass_at_k
    assert compat.registered_function("recall_at_k") is recall_at_k
    assert compat.registered_function("no_such_metric_here") is None
