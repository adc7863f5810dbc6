"""A user's lighteval custom-tasks file for the variants tests, on the local data in
``robust_data/``: ``local_mc`` (choices scored as continuations, never shown: the shape of lighteval's
``arc``, a cloze task), ``local_shown`` (the same rows with the options of ``choices.text`` listed
in the query, scored as continuations), ``local_labels`` (options written into the query, the labels " A".." D" scored, the
shape of lighteval's ``mmlu`` with log-likelihoods) and ``local_qa`` (generation, exact match) and ``local_letters`` (the labels shape generated and
scored by exact match, as lighteval's ``mmlu`` and ``hellaswag``); ``local_budget`` (the labels shape
on 30 rows, for the budgeted variants)."""

from __future__ import annotations

from pathlib import Path
from string import ascii_uppercase

from lighteval.metrics.metrics import Metrics
from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc

DATA = Path(__file__).resolve().parent / "robust_data"


def mc_prompt(line, task_name=None):
    return Doc(task_name=task_name, query=f"Question: {line['question']}\nAnswer:",
               choices=[f" {c}" for c in line["choices"]["text"]],
               gold_index=line["choices"]["label"].index(line["answerKey"]))


def labels_prompt(line, task_name=None):
    query = f"Question: {line['question']}" + "".join(f"\n{k}. {c}" for k, c in zip(ascii_uppercase, line["choices"]))
    return Doc(task_name=task_name, query=query + "\nAnswer:", choices=[f" {k}" for k in "ABCD"],
               gold_index=int(line["answer"]), instruction="")


def shown_prompt(line, task_name=None):
    """The options of the nested field ``choices.text`` listed in the query and scored as continuations."""
    opts = line["choices"]["text"]
    query = f"Question: {line['question']}" + "".join(f"\n{k}. {c}" for k, c in zip(ascii_uppercase, opts))
    return Doc(task_name=task_name, query=query + "\nAnswer:", choices=[f" {c}" for c in opts],
               gold_index=line["choices"]["label"].index(line["answerKey"]))


def qa_prompt(line, task_name=None):
    return Doc(task_name=task_name, query=f"Question: {line['question']}\nAnswer:", choices=[line["answer"]], gold_index=0)


def _config(name, prompt, folder, metric, generation_size=None):
    return LightevalTaskConfig(name=name, prompt_function=prompt, hf_repo=str(DATA / folder), hf_subset="default",
                               hf_avail_splits=["test"], evaluation_splits=["test"], few_shots_split=None,
                               few_shots_select=None, metrics=[metric], generation_size=generation_size,
                               stop_sequence=["\n"], version=0)


TASKS_TABLE = [
    _config("local_mc", mc_prompt, "mc", Metrics.loglikelihood_acc),
    _config("local_labels", labels_prompt, "labels", Metrics.loglikelihood_acc),
    _config("local_shown", shown_prompt, "mc", Metrics.loglikelihood_acc),
    _config("local_qa", qa_prompt, "qa", Metrics.exact_match, generation_size=16),
    _config("local_letters", labels_prompt, "labels", Metrics.exact_match, generation_size=4),
    _config("local_budget", labels_prompt, "budget", Metrics.loglikelihood_acc),
]
