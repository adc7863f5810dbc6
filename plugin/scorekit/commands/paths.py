"""``scorekit tasks-dir`` and ``scorekit configs-dir``: print where shipped files live."""

from __future__ import annotations

import argparse

from scorekit import resources


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "tasks-dir",
        help="print the folder of scorekit's task definitions (for lm_eval --include_path)",
        description="Print the folder of scorekit's task definitions, e.g. "
        'lm_eval --tasks score_robustness_mmlu_pro --include_path "$(scorekit tasks-dir)".',
    )
    p.set_defaults(func=lambda args: print(resources.tasks_dir()))
    p = subparsers.add_parser("configs-dir",
                              help="print the folder of scorekit's shipped normalization and scoring configs")
    p.set_defaults(func=lambda args: print(resources.configs_dir()))
