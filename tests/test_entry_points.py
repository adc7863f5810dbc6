"""scorekit's lm-eval entry points, checked against the loading rule lm-eval merged (PR #4014)
and the task rule of PR #4015, on the wheel built from this checkout.

Why a wheel: the machine's scorekit is an editable install of another checkout, so the installed
metadata is not this pyproject.toml's; and ``scorekit.tasks`` (the task entry point's package)
exists only in a wheel, where tasks/ is copied to scorekit/tasks. The wheel is unpacked into a
folder that the simulation puts first on ``sys.path``, and only that distribution's entry points
are read (tests/support/lm_eval_plugin_rule.py states the rule).
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from scorekit.lm_eval.metrics import AGGREGATIONS, METRICS
from scorekit.metric_specs import SPECS
from scorekit.metric_specs import AGGREGATIONS as SPEC_AGGREGATIONS

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(REPO)],
                   check=True)
    (wheel,) = out.glob("scorekit-*.whl")
    site = tmp_path_factory.mktemp("site")
    zipfile.ZipFile(wheel).extractall(site)
    return site


@pytest.fixture(scope="module")
def entry_points(site):
    import importlib.metadata as md

    (dist,) = [d for d in md.distributions(path=[str(site)]) if d.metadata["Name"] == "scorekit"]
    return dist.entry_points


def test_one_entry_point_per_spec_metric_and_aggregation(entry_points):
    metrics = {ep.name: ep.value for ep in entry_points.select(group="lm_eval.metrics")}
    assert metrics == {s.name: f"scorekit.lm_eval.metrics:{s.name}" for s in SPECS}  # no drift, no bogus "scorekit"
    aggregations = {ep.name: ep.value for ep in entry_points.select(group="lm_eval.aggregations")}
    assert set(aggregations) == set(SPEC_AGGREGATIONS) == set(AGGREGATIONS)
    for name, value in aggregations.items():
        assert value == f"scorekit.lm_eval.metrics:{AGGREGATIONS[name].__name__}"
    assert not list(entry_points.select(group="lm_eval.filters"))  # scorekit has no filters
    assert {ep.value for ep in entry_points.select(group="lm_eval.tasks")} == {"scorekit.tasks"}


@pytest.mark.slow
def test_merged_loading_rule_finds_every_metric_aggregation_and_task(site):
    rule = REPO / "tests" / "support" / "lm_eval_plugin_rule.py"
    proc = subprocess.run([sys.executable, str(rule), str(site)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not out["imported_before"]
    assert out["aggregations"] == {"consistency_rate": "scorekit.lm_eval.metrics:consistency_rate_aggregation"}
    assert set(out["metrics"]) == set(METRICS)
    for s in SPECS:
        got = out["metrics"][s.name]
        assert got["object"] == f"scorekit.lm_eval.metrics:{s.name}"
        assert Path(got["file"]).is_relative_to(site)  # the wheel's code, not another checkout's
        want_agg = "lm_eval.api.metrics:mean" if s.aggregation == "mean" else out["aggregations"][s.aggregation]
        assert got["aggregation"] == want_agg, s.name
        assert got["higher_is_better"] is s.higher_is_better, s.name
    assert out["task_folders"] == [str(site / "scorekit" / "tasks")]
    assert {"score_robustness", "score_robustness_mmlu_pro", "score_prompt_robustness_mmlu_pro",
            "option_order_robustness_agieval_lsat_ar", "non_greedy_robustness_math_precalc"} <= set(out["tasks"])
