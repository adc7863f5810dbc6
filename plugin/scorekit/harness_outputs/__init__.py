"""Facts about the files lm-eval and lighteval write: the one place every command reads them from.

``scorekit leaderboard``, ``scorecard``, ``robustness`` and ``compare`` (and anything else that
reads harness output folders) use these functions, so that they agree on what a file says. The
layouts behind each rule are surveyed, version by version, in ``docs/harness-outputs.md``. One
module per rule: :mod:`~scorekit.harness_outputs.folders` (finding files),
:mod:`~scorekit.harness_outputs.kinds` (telling files apart),
:mod:`~scorekit.harness_outputs.identity` (model identity),
:mod:`~scorekit.harness_outputs.samples` (reading samples), :mod:`~scorekit.harness_outputs.runs`
(run time) and :mod:`~scorekit.harness_outputs.keys` (task keys). The functions the table of
``docs/harness-outputs.md`` names are importable from here; everything else from its module.

Each harness format is one module: :mod:`~scorekit.harness_outputs.lm_eval`,
:mod:`~scorekit.harness_outputs.lighteval` and :mod:`~scorekit.harness_outputs.inspect_logs`,
reading into the values of :mod:`~scorekit.harness_outputs.values` through the interface of
:mod:`~scorekit.harness_outputs.formats`. Every command asks the registry
(:mod:`~scorekit.harness_outputs.registry`, :func:`~scorekit.harness_outputs.registry.register_format`)
which format a file is.

Finding files (:func:`walk`)
    Paths named by the user are taken as given. Folders are walked recursively in sorted order
    (a folder's files, then its sub-folders). Symbolic links are followed once: a folder or file
    already met (the same device and inode, under any name: a link, a hard link) is not read
    again (no loops, no double counting). Only
    regular files are returned (a FIFO, a device such as ``/dev/zero`` or a socket is never
    opened). Hidden files and folders (``.name``: ``.ipynb_checkpoints``, ``.git``, atomic-write
    temporaries) are not entered. Every file or folder left out is listed in
    :attr:`Walk.skipped` with its reason, for a note.

Telling files apart (:func:`file_kind`, :func:`results_harness`)
    lm-eval results: a JSON object with ``results`` and one of lm-eval's bookkeeping keys;
    lighteval results: a JSON object with ``config_general`` and ``results``; lm-eval samples:
    ``*.jsonl`` (JSON lines, or 0.4.2's JSON array); lighteval details: ``details_*.parquet``.

Model identity (:func:`model_identity`, :func:`details_model`)
    lm-eval: ``model_name``, unless empty or lm-eval's random 8-character stand-in (written
    when ``model_args`` names no model); then the first of ``model_args``'s ``peft``,
    ``delta``, ``pretrained``, ``model``, ``path``, ``engine`` (lm-eval's own order) and
    ``base_model`` (exact keys of the dict, or of the ``key=value,...`` string); then, when
    there are no ``model_args`` at all (a model object passed in Python), ``config.model``;
    then the folder holding the file.
    lighteval: ``config_general.model_name``, else ``config_general.model_config.model_name``,
    else the folders between ``results/`` (or ``details/``) and the file. A model given by
    absolute local path keeps its path as its name (``/models/local/Llama-3``), whether it is
    read from the file or from lighteval's folders (which drop the leading ``/``).

Reading samples (:func:`iter_samples`, :func:`run_samples_file`)
    lm-eval samples files are JSON lines, one object per document and filter; 0.4.2 wrote one
    JSON array (indent 2) under the same ``.jsonl`` suffix. Both are read. The samples of a
    task written by the same run as a results file (0.4.5+ names) sit in the same folder with
    the same time stamp: ``samples_<task>_<time>.jsonl`` next to ``results_<time>.json``
    (0.5: ``samples_<group>::<task>_<time>.jsonl``).

Run time (:func:`run_time`)
    lm-eval's ``date`` (Unix seconds: one clock wherever the run was made), else the time stamp
    in the file name (``results_2024-06-16T10-22-33.123456.json``, the local time of the
    machine that ran it), else the file's modification time. A samples or details file has the
    run time of its run's results file (same folder and time stamp), else its own. The newest
    run is the one with the largest run time; ties go to the later path.

Task keys (:func:`split_task_key`, :func:`key_matches`, :func:`find_task_key`)
    A key is ``[suite|]task[|fewshots]`` (lighteval) or ``[group::]task`` (lm-eval 0.5).
    A wanted key matches a file's key when the task names are equal, the suites are equal
    where both have one, and the few-shot counts are equal where the wanted key has one. When
    several keys match (``ifeval|0`` from one run, ``ifeval|5`` from another), the newest is
    used and the others are named.
"""

from __future__ import annotations

from scorekit.harness_outputs.folders import walk
from scorekit.harness_outputs.identity import details_model, model_identity
from scorekit.harness_outputs.keys import find_task_key, key_matches, split_task_key
from scorekit.harness_outputs.kinds import file_kind, results_harness
from scorekit.harness_outputs.runs import run_time
from scorekit.harness_outputs.samples import iter_samples

__all__ = ["walk", "file_kind", "results_harness", "iter_samples", "model_identity", "details_model", "run_time",
           "split_task_key", "key_matches", "find_task_key"]
