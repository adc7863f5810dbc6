"""scorekit's SCORE robustness tasks for lighteval, loadable by file path:

    lighteval accelerate "model_name=..." "score_prompt_robustness_mmlu_pro|0" \
        --custom-tasks "$(scorekit tasks-dir)/lighteval/score_suite.py"

Identical to ``--custom-tasks scorekit.lighteval.score_suite`` (the task and metric classes live in
that importable module, so lighteval can pickle them); see its docstring for names and data.
"""

from scorekit.lighteval.score_suite import TASKS_TABLE

__all__ = ["TASKS_TABLE"]
