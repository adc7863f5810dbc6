"""Runs of the SCORE tasks that every test of "undefined is never 0" shares (built once a session):

- ``dummy``: ``scorekit demo --model dummy --prompt-budget 10`` (every template asked: the full
  SCORE run) on its 10 bundled questions per benchmark, i.e. the
  real lm-eval ``dummy`` model, which answers "lol" to everything: no answer parses, so every
  consistency rate is undefined and every accuracy is 0;
- ``scripted``: the same task files and data (the demo's own ``tasks/`` and ``data/``) run by
  lm-eval with :class:`tests.support.fake_lm.ScriptedLM` answering by
  :func:`tests.robustness.report_fixtures.build_logs.scorekit_policy` (parsed answers, a known
  mix of right and wrong), on the MMLU-Pro and AGIEval tasks (MATH is left to the dummy only).
"""

from __future__ import annotations

from pathlib import Path

SCRIPTED_TASKS = [
    "score_prompt_robustness_mmlu_pro", "score_option_order_robustness_mmlu_pro", "score_non_greedy_robustness_mmlu_pro",
    "prompt_robustness_agieval_aqua_rat", "option_order_robustness_agieval_aqua_rat",
    "non_greedy_robustness_agieval_aqua_rat",
]

_BUILT: dict[str, dict[str, Path]] = {}


def dummy_runs(tmp_path_factory) -> dict[str, Path]:
    """{"demo": the demo's folder, "dummy": its lm-eval output folder, "scripted": the scripted run's}."""
    if "runs" not in _BUILT:
        from scorekit.cli import main
        from tests.robustness.report_fixtures import build_logs

        root = tmp_path_factory.mktemp("dummy_runs")
        demo = root / "demo"
        assert main(["demo", "--model", "dummy", "--no-plots", "--prompt-budget", "10", "-o", str(demo)]) == 0
        (dummy,) = {p.parent for p in (demo / "lm_eval").rglob("samples_*.jsonl")}
        build_logs.run_lm_eval(root / "scripted", SCRIPTED_TASKS, demo / "tasks", build_logs.scorekit_policy, "acme/smol")
        (scripted,) = {p.parent for p in (root / "scripted").rglob("samples_*.jsonl")}
        _BUILT["runs"] = {"demo": demo, "dummy": dummy, "scripted": scripted}
    return _BUILT["runs"]
