"""``scorekit export RUN [RUN ...]``: every_eval_ever documents with scorekit's values and intervals."""

from __future__ import annotations

import argparse

from scorekit.checks import add_bootstrap

RELATIONSHIPS = ("first_party", "third_party", "collaborative", "other")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "export",
        help="write every_eval_ever documents (schema 0.3.0) of runs, with values, standard errors and intervals",
        description=(
            "Export each RUN (one model's output folder or file: lm-eval results/samples, lighteval "
            "results/details, Inspect or `lighteval eval` logs, SCORE tasks) as one every_eval_ever "
            "aggregate document (github.com/evaleval/every_eval_ever, eval.schema.json 0.3.0). Each task "
            "and metric with per-question values gets scorekit's value, standard error (means and 0/1 "
            "metrics) and confidence interval with its method, as in `scorekit compare --values`; "
            "metrics the harness reported without per-question values keep the harness's value and "
            "standard error (left out when the harness wrote none, such as lm-eval's \"N/A\"). "
            "Mapping: docs/export.md."
        ),
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders or files, one model each")
    p.add_argument("--output", "-o", metavar="FILE", help="write the one RUN's document to FILE (default: stdout)")
    p.add_argument("--output-dir", metavar="DIR", help="write each RUN's document to DIR/<uuid>.json")
    p.add_argument("--organization", default="unknown",
                   help="source_metadata.source_organization_name: who ran or publishes the runs (default: unknown)")
    p.add_argument("--evaluator-relationship", choices=RELATIONSHIPS, default="other",
                   help="the evaluator's relationship to the model's developer (default: other)")
    p.add_argument("--retrieved-timestamp", type=float, metavar="SECONDS",
                   help="retrieved_timestamp (Unix seconds) written into the documents (default: "
                        "$SOURCE_DATE_EPOCH when set, else now); fixed, the same runs give the same bytes")
    add_bootstrap(p, "bootstrap seed (default: 0)")
    p.set_defaults(func=run)


def _read(path: str):
    """(model, tasks, notes) of one run; a run without per-question files falls back to its
    results files (the harness's values and standard errors only)."""
    from scorekit.aggregate.results_files import load_results
    from scorekit.compare.inputs import read_run
    from scorekit.errors import ScorekitError

    try:
        return read_run(path)
    except ScorekitError as exc:
        if "no samples logs found" not in str(exc):
            raise
        try:
            loaded = load_results([path])
        except ScorekitError:
            raise exc from None  # neither per-question files nor results files: the first error says what is wanted
        if len(loaded.models) != 1:
            raise
        (model,) = loaded.models
        return model, {}, ["no per-question files (samples logs, details, Inspect logs): the harness's own values "
                           "and standard errors only"]


def run(args: argparse.Namespace) -> int:
    import json
    import os

    from scorekit.checks import check_bootstrap
    from scorekit.errors import ScorekitError
    from scorekit.files import check_output, emit, note, refuse_input_as_output, write_text_atomic
    from scorekit.harness_outputs.folders import walk

    check_bootstrap(args)
    if args.output and args.output_dir:
        raise ScorekitError("give --output or --output-dir, not both")
    if len(args.runs) > 1 and not args.output_dir:
        raise ScorekitError(f"{len(args.runs)} runs make {len(args.runs)} documents: give --output-dir")
    output = check_output(args.output, args.runs)
    if args.output_dir and os.path.exists(args.output_dir) and not os.path.isdir(args.output_dir):
        raise ScorekitError("--output-dir is not a folder", path=args.output_dir)
    documents, all_notes = _documents(args, _retrieved(args))
    inputs = walk(args.runs).files
    if args.output_dir:
        targets = [os.path.join(args.output_dir, name) for name in documents]
        for target in targets:
            refuse_input_as_output(target, inputs, option="--output-dir")
        os.makedirs(args.output_dir, exist_ok=True)
        for target, (_, doc) in zip(targets, documents.values()):
            write_text_atomic(target, json.dumps(doc, indent=2) + "\n")
            print(target)
    else:
        refuse_input_as_output(output, inputs)
        ((_, doc),) = documents.values()
        emit(json.dumps(doc, indent=2) + "\n", output)
    note(*all_notes)
    return 0


def _retrieved(args: argparse.Namespace) -> float:
    """``--retrieved-timestamp``, else ``SOURCE_DATE_EPOCH``, else now (seconds)."""
    import math
    import os
    import time

    from scorekit.errors import ScorekitError

    retrieved = args.retrieved_timestamp
    if retrieved is None:
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
        retrieved = float(epoch) if epoch.strip().isdigit() else time.time()
    if not math.isfinite(retrieved) or retrieved < 0:
        raise ScorekitError(f"--retrieved-timestamp must be a non-negative number of seconds, got {retrieved}")
    return retrieved


def _documents(args: argparse.Namespace, retrieved: float) -> tuple[dict[str, tuple[str, dict]], list[str]]:
    """``{file name: (run, document)}`` of every run, and the runs' notes."""
    from scorekit import __version__
    from scorekit.compare.core import Run, run_values
    from scorekit.errors import ScorekitError
    from scorekit.export.every_eval_ever import build_document, document_uuid
    from scorekit.export.sources import collect_facts
    from scorekit.harness_outputs.folders import walk
    from scorekit.harness_outputs.identity import display_names
    from scorekit.harness_outputs.registry import holds_questions

    documents: dict[str, tuple[str, dict]] = {}
    all_notes: list[str] = []
    read_all = [(path, *_read(path)) for path in args.runs]
    names = display_names([model for _, model, _, _ in read_all])  # as compare's tables name them
    for (path, model, tasks, notes), name in zip(read_all, names):
        values, _ = run_values([Run(name, model, path, tasks, notes)], confidence=args.confidence,
                               n_boot=args.n_boot, seed=args.seed)
        facts = collect_facts(path, model)
        read = [f for f in walk([path]).files if holds_questions(f)]
        if not values and not any(f.reported for f in facts.values()):
            raise ScorekitError("no values to export (no per-question numbers and no harness results)", path=path)
        doc = build_document(model=model, name=name, tasks=tasks,
                             values=values, facts=facts, notes=notes, source_files=read, confidence=args.confidence, n_boot=args.n_boot,
                             organization=args.organization, relationship=args.evaluator_relationship,
                             retrieved=retrieved, scorekit_version=__version__)
        name = document_uuid(doc["evaluation_id"]) + ".json"
        if name in documents:
            raise ScorekitError(f"{path} and {documents[name][0]} are the same evaluation ({doc['evaluation_id']}); "
                                "export each once")
        documents[name] = (path, doc)
        all_notes.extend(f"{path}: {n}" for n in notes)
    return documents, all_notes
