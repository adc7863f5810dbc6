"""Both harness adapters provide every metric of scorekit.metric_specs under its names."""

from __future__ import annotations

import pytest

from scorekit.metric_specs import SPECS, column, spec


def test_specs_are_well_formed():
    import scorekit.metrics as M

    assert len({s.name for s in SPECS}) == len(SPECS)
    for s in SPECS:
        assert callable(getattr(M, s.function)), s.function
        assert s.kind in ("generate", "multiple_choice", "corpus") and s.aggregation in ("mean", "consistency_rate")
    assert column("pass_at_k", k=4) == "pass@4" and column("g_pass_at_k", k=4, tau="0.5") == "g-pass@4_0.5"
    with pytest.raises(KeyError, match="no scorekit metric"):
        spec("pass@k")


def test_lm_eval_adapter_follows_the_spec():
    from scorekit.lm_eval import metrics as LE
    from scorekit.lm_eval.registry import REGISTERED

    assert set(LE.METRICS) == set(REGISTERED) == {s.name for s in SPECS}
    samples = ["4", "4", "5", "4"]
    assert set(LE.pass_at_k(["4"], [samples], k=[1, 2])) == {"pass@1", "pass@2"}
    assert set(LE.g_pass_at_k(["4"], [samples], k=2, tau=[0.5, 1])) == {"g-pass@2_0.5", "g-pass@2_1.0"}
    assert set(LE.mg_pass_at_k(["4"], [samples])) == {"mg-pass@4"}
    assert set(LE.avg_at_k(["4"], [samples], k=2)) == {"avg@2"}
    assert set(LE.maj_at_k(["4"], [samples], k=3)) == {"maj@3"}
    assert set(LE.recall_at_k([0], [[-1.0, -2.0, -3.0]], k=2)) == {"recall@2"}
    assert set(LE.extractiveness(["the cat sat on the mat"], ["the cat sat"])) == {
        "extractiveness_coverage", "extractiveness_density", "extractiveness_compression"}


@pytest.mark.lighteval
def test_lighteval_factories_follow_the_spec():
    from lighteval.metrics.normalizations import LogProbCharNorm

    from scorekit.lighteval import metrics as LM

    assert set(LM.FACTORIES) == {s.name for s in SPECS}
    names = {
        "pass_at_k": LM.FACTORIES["pass_at_k"](4).metric_name,
        "g_pass_at_k": LM.FACTORIES["g_pass_at_k"](4, thresholds=(0.5,)).metric_name,
        "mg_pass_at_k": LM.FACTORIES["mg_pass_at_k"](4).metric_name,
        "avg_at_k": LM.FACTORIES["avg_at_k"](4).metric_name,
        "maj_at_k": LM.FACTORIES["maj_at_k"](4).metric_name,
        "recall_at_k": LM.FACTORIES["recall_at_k"](4).metric_name,
        "extractiveness": LM.FACTORIES["extractiveness"]().metric_name,
        "consistency_rate": LM.FACTORIES["consistency_rate"]().metric_name,
    }
    assert names == {
        "pass_at_k": "pass@4", "g_pass_at_k": ["g-pass@4_0.5", "mg-pass@4"], "mg_pass_at_k": ["mg-pass@4"],
        "avg_at_k": "avg@4", "maj_at_k": "maj@4", "recall_at_k": "recall@4",
        "extractiveness": [column("extractiveness", part=p) for p in ("coverage", "density", "compression")],
        "consistency_rate": ["consistency_rate"],
    }
    for name in ("exact_match_prefix", "exact_match_suffix", "bow_f1", "edit_similarity", "normalized_mc_probability",
                 "gold_probability", "loglikelihood_accuracy", "mrr"):
        metric = LM.FACTORIES[name]()
        assert metric.metric_name == column(name), name
        assert metric.higher_is_better is spec(name).higher_is_better
    # lighteval's normalization suffix stays a suffix of the spec name
    assert LM.FACTORIES["gold_probability"](LogProbCharNorm()).metric_name.startswith("gold_probability_")


def test_specs_live_beside_their_formulas():
    import scorekit.metrics as M
    from scorekit.metric_specs import specs_of

    for s in SPECS:
        assert s in specs_of(getattr(M, s.function)) and s.formula is getattr(M, s.function), s.name
    assert dict(spec("exact_match_prefix").options) == {"mode": "prefix"}
    standard = {s.name for s in SPECS if s.standard}
    assert standard == {"exact_match_prefix", "exact_match_suffix", "bow_f1", "edit_similarity",
                        "normalized_mc_probability", "gold_probability", "loglikelihood_accuracy", "mrr"}


def test_adapters_write_by_hand_only_what_a_spec_cannot_build():
    from scorekit.lm_eval import metrics as LE

    # built from the spec: the standard metrics; by hand: the k / tau families, extractiveness, consistency rate
    built = {n for n, f in LE.METRICS.items() if getattr(f, "spec", None) is spec(n)}
    assert built == {s.name for s in SPECS if s.standard}
    with pytest.raises(ValueError, match="by hand"):
        LE.from_spec(spec("pass_at_k"))


@pytest.mark.lighteval
def test_lighteval_builds_every_standard_spec():
    from scorekit.lighteval import metrics as LM

    for s in SPECS:
        factory = LM.FACTORIES[s.name]
        assert factory.__name__ == f"{s.name}_metric" and getattr(LM, f"{s.name}_metric") is factory
        assert (getattr(factory, "spec", None) is s) is s.standard, s.name
    with pytest.raises(ValueError, match="by hand"):
        LM.from_spec(spec("consistency_rate"))
