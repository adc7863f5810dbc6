"""``scorekit export RUN [RUN ...]``: every_eval_ever documents with scorekit's values and intervals."""

from __future__ import annotations

import argparse

from scorekit.export.documents import add_arguments  # noqa: F401 - the options, their checks beside them


HELP = "write every_eval_ever documents (schema 0.3.0) of runs, with values, standard errors and intervals"
DESCRIPTION = (
    "Export each RUN (one model's output folder or file: lm-eval results/samples, lighteval "
    "results/details, Inspect or `lighteval eval` logs, SCORE tasks) as one every_eval_ever "
    "aggregate document (github.com/evaleval/every_eval_ever, eval.schema.json 0.3.0). Each task "
    "and metric with per-question values gets scorekit's value, standard error (means and 0/1 "
    "metrics) and confidence interval with its method, as in `scorekit compare --values`; "
    "metrics the harness reported without per-question values keep the harness's value and "
    "standard error (left out when the harness wrote none, such as lm-eval's \"N/A\"). "
    "Mapping: docs/export.md."
)


def main(args: argparse.Namespace) -> int:
    import os

    from scorekit.export.documents import build_documents, check_options
    from scorekit.files import emit, note, refuse_input_as_output, write_text_atomic

    output = check_options(args)
    documents, notes, inputs = build_documents(args)
    if args.output_dir:
        paths = {os.path.join(args.output_dir, name): text for name, (_, text) in documents.items()}
        for path in paths:
            refuse_input_as_output(path, inputs, option="--output-dir")
        os.makedirs(args.output_dir, exist_ok=True)
        for path, text in paths.items():
            write_text_atomic(path, text)
            print(path)
    else:
        refuse_input_as_output(output, inputs)
        ((_, text),) = documents.values()
        emit(text, output)
    note(*notes)
    return 0
