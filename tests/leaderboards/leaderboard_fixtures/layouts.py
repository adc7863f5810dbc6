"""Write results files the way the harnesses do, for the leaderboard tests.

``write_lm_eval_results`` hands a results dict with lm-eval's top-level keys (see
``lm_eval/evaluator.py`` and ``evaluator_utils.py``) to lm-eval's own ``EvaluationTracker``,
which adds the general-config keys (``model_name``, ``model_name_sanitized``,
``total_evaluation_time_seconds``, ...) and writes ``OUT/<model_name_sanitized>/results_<time>.json``.
``write_lighteval_results`` writes ``OUT/results/<model_name>/results_<time>.json`` with
lighteval's top-level keys (the real lighteval writer is exercised in one slow test).
"""

from __future__ import annotations

import json
import math
import time
from datetime import datetime
from pathlib import Path

BBH_SUBTASKS = [
    "boolean_expressions", "causal_judgement", "date_understanding", "disambiguation_qa",
    "formal_fallacies", "geometric_shapes", "hyperbaton", "logical_deduction_five_objects",
    "logical_deduction_seven_objects", "logical_deduction_three_objects", "movie_recommendation",
    "navigate", "object_counting", "penguins_in_a_table", "reasoning_about_colored_objects",
    "ruin_names", "salient_translation_error_detection", "snarks", "sports_understanding",
    "temporal_sequences", "tracking_shuffled_objects_five_objects",
    "tracking_shuffled_objects_seven_objects", "tracking_shuffled_objects_three_objects", "web_of_lies",
]
MUSR_SUBTASKS = ["murder_mysteries", "object_placements", "team_allocation"]
GROUPS = {
    "leaderboard_bbh": [f"leaderboard_bbh_{s}" for s in BBH_SUBTASKS],
    "leaderboard_gpqa": ["leaderboard_gpqa_diamond", "leaderboard_gpqa_extended", "leaderboard_gpqa_main"],
    "leaderboard_math_hard": [
        f"leaderboard_math_{s}_hard"
        for s in ["algebra", "counting_and_prob", "geometry", "intermediate_algebra", "num_theory", "prealgebra", "precalculus"]
    ],
    "leaderboard_musr": [f"leaderboard_musr_{s}" for s in MUSR_SUBTASKS],
}
METRIC = {"leaderboard_bbh": "acc_norm", "leaderboard_gpqa": "acc_norm", "leaderboard_math_hard": "exact_match", "leaderboard_musr": "acc_norm"}


def _entry(alias: str, metrics: dict[str, float], n: int) -> dict:
    out: dict = {"alias": alias}
    for key, value in metrics.items():
        name, filt = key.split(",")
        out[key] = value
        out[f"{name}_stderr,{filt}"] = math.sqrt(value * (1 - value) / (n - 1)) if isinstance(value, float) and 0 <= value <= 1 else "N/A"
    return out


def lm_eval_body(values: dict[str, dict[str, float]], *, model: str, model_args: str | None = None, n: int = 250) -> dict:
    """A results dict with lm-eval's keys. ``values`` maps task -> {"metric,filter": value};
    subtasks of the leaderboard groups present in ``values`` are laid out under their group
    (``group_subtasks``, ``groups``, ``configs``, ``n-shot``, ...) like a real run."""
    results: dict = {}
    group_subtasks: dict = {}
    groups: dict = {}
    for task, metrics in values.items():
        group = next((g for g, subs in GROUPS.items() if task in subs), None)
        alias = f" - {task}" if group else task
        results[task] = _entry(alias, metrics, n)
        if group:
            group_subtasks.setdefault(group, []).append(task)
    for group, subs in group_subtasks.items():
        if group not in values:
            # lm-eval's size-weighted group value (equal sizes here); never used by scorekit
            key = f"{METRIC[group]},none"
            vals = [values[s][key] for s in subs if key in values[s]]
            if vals:
                results[group] = _entry(group, {key: sum(vals) / len(vals)}, n)
        groups[group] = dict(results.get(group, {"alias": group}))
    for task in values:
        if not any(task in subs for subs in group_subtasks.values()) and task not in group_subtasks:
            group_subtasks[task] = []
    tasks = [t for t in values]
    configs = {
        t: {
            "task": t,
            "dataset_path": "local",
            "test_split": "test",
            "output_type": "multiple_choice",
            "doc_to_text": "{{question}}",
            "metric_list": [{"metric": k.split(",")[0], "aggregation": "mean", "higher_is_better": True} for k in values[t]],
            "num_fewshot": 0,
            "metadata": {"version": 1.0},
        }
        for t in tasks
    }
    return {
        "results": results,
        **({"groups": groups} if groups else {}),
        "group_subtasks": group_subtasks,
        "configs": configs,
        "versions": {t: 1.0 for t in tasks},
        "n-shot": {t: 0 for t in tasks},
        "higher_is_better": {t: {k.split(",")[0]: True for k in values[t]} for t in tasks},
        "n-samples": {t: {"original": n, "effective": n} for t in tasks},
        "config": {
            "model": "hf",
            "model_args": model_args or f"pretrained={model},dtype=float16",
            "model_num_parameters": 405334016,
            "model_dtype": "torch.float16",
            "batch_size": "auto",
            "batch_sizes": [64],
            "device": "cuda:0",
            "use_cache": None,
            "limit": None,
            "bootstrap_iters": 100000,
            "gen_kwargs": None,
            "random_seed": 0,
            "numpy_seed": 1234,
            "torch_seed": 1234,
            "fewshot_seed": 1234,
        },
        "git_hash": "abc1234",
        "date": time.time(),
        "pretty_env_info": "PyTorch version: 2.3.0",
        "transformers_version": "4.41.2",
        "lm_eval_version": "0.4.13",
        "upper_git_hash": None,
        "tokenizer_pad_token": ["<|endoftext|>", "0"],
        "tokenizer_eos_token": ["<|endoftext|>", "0"],
        "tokenizer_bos_token": ["<|endoftext|>", "0"],
        "eot_token_id": 0,
        "max_length": 2048,
    }


def write_lm_eval_results(out: Path, body: dict) -> Path:
    """Write ``body`` with lm-eval's EvaluationTracker; returns the new results file."""
    from lm_eval.loggers import EvaluationTracker

    tracker = EvaluationTracker(output_path=str(out))
    tracker.general_config_tracker.log_experiment_args(
        model_source="hf",
        model_args=body["config"]["model_args"],
        system_instruction=None,
        chat_template=None,
        fewshot_as_multiturn=False,
    )
    before = set(Path(out).rglob("results_*.json"))
    time.sleep(0.002)  # distinct microsecond time stamps in the file names
    tracker.save_results_aggregated(results=body, samples=None)
    (new,) = set(Path(out).rglob("results_*.json")) - before
    return new


def write_lighteval_results(
    out: Path, model: str, values: dict[str, dict[str, float]], *, when: datetime | None = None
) -> Path:
    """``OUT/results/<model>/results_<time>.json`` with lighteval 0.13's top-level keys;
    ``values`` maps "task|fewshots" -> {metric: value}; "all" is added like lighteval does."""
    all_metrics: dict[str, list[float]] = {}
    for metrics in values.values():
        for k, v in metrics.items():
            all_metrics.setdefault(k, []).append(v)
    results = dict(values)
    results["all"] = {k: sum(v) / len(v) for k, v in all_metrics.items()}
    doc = {
        "config_general": {
            "lighteval_sha": "?",
            "num_fewshot_seeds": 1,
            "max_samples": None,
            "job_id": "0",
            "start_time": 1234.5,
            "end_time": 1300.25,
            "total_evaluation_time_secondes": "65.75",
            "model_config": {"model_name": model, "generation_parameters": {}},
            "model_name": model,
        },
        "results": results,
        "versions": {},
        "config_tasks": {k: {"name": k.split("|")[0], "metrics": []} for k in values},
        "summary_tasks": {k: {"hashes": {}, "truncated": 0, "padded": 0} for k in values},
        "summary_general": {"hashes": {}, "truncated": 0, "padded": 0},
    }
    date_id = (when or datetime.now()).isoformat().replace(":", "-")
    path = Path(out) / "results" / model / f"results_{date_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


# A user's leaderboard config (the `scorekit scorecard` layout): GPQA and MuSR with the
# leaderboard's chance levels, MuSR's team allocation exactly 1/3.
GPQA_MUSR_CONFIG = """\
name: two columns
scale: 100
categories:
  leaderboard:
    benchmarks:
      GPQA:
        metrics:
          acc_norm: {key: {task: leaderboard_gpqa, metric: "acc_norm,none"}, good: 1.0, num_choices: 4}
      MUSR:
        metrics:
          murder_mysteries: {key: {task: leaderboard_musr_murder_mysteries, metric: "acc_norm,none"}, good: 1.0, num_choices: 2}
          object_placements: {key: {task: leaderboard_musr_object_placements, metric: "acc_norm,none"}, good: 1.0, num_choices: 5}
          team_allocation: {key: {task: leaderboard_musr_team_allocation, metric: "acc_norm,none"}, good: 1.0, num_choices: 3}
"""
