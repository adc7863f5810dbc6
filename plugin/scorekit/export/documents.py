"""``scorekit export``, built: every_eval_ever documents (:mod:`scorekit.export.every_eval_ever`)
of runs, with scorekit's values and intervals; the options are declared and checked here."""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

from scorekit.checks import add_bootstrap, check_bootstrap
from scorekit.errors import ScorekitError
from scorekit.files import check_output
from scorekit.harness_outputs.folders import walk

RELATIONSHIPS = ("first_party", "third_party", "collaborative", "other")


def add_arguments(p: argparse.ArgumentParser) -> None:
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


def check_options(args: argparse.Namespace) -> Path | None:
    """One line for options that cannot go together, before any work; ``--output`` checked."""
    check_bootstrap(args)
    if args.output and args.output_dir:
        raise ScorekitError("give --output or --output-dir, not both")
    if len(args.runs) > 1 and not args.output_dir:
        raise ScorekitError(f"{len(args.runs)} runs make {len(args.runs)} documents: give --output-dir")
    output = check_output(args.output, args.runs)
    if args.output_dir and os.path.exists(args.output_dir) and not os.path.isdir(args.output_dir):
        raise ScorekitError("--output-dir is not a folder", path=args.output_dir)
    return output


def _read(path: str):
    """(model, tasks, notes) of one run; a run without per-question files falls back to its
    results files (the harness's values and standard errors only)."""
    from scorekit.leaderboards.results_files import load_results
    from scorekit.compare.inputs import read_run

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


def _retrieved(args: argparse.Namespace) -> float:
    """``--retrieved-timestamp``, else ``SOURCE_DATE_EPOCH``, else now (seconds)."""
    retrieved = args.retrieved_timestamp
    if retrieved is None:
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
        retrieved = float(epoch) if epoch.strip().isdigit() else time.time()
    if not math.isfinite(retrieved) or retrieved < 0:
        raise ScorekitError(f"--retrieved-timestamp must be a non-negative number of seconds, got {retrieved}")
    return retrieved


def build_documents(args: argparse.Namespace) -> tuple[dict[str, tuple[str, str]], list[str], list]:
    """``{file name: (run, its document as JSON text)}`` of every run, the runs' notes and the files
    under the runs (which no output may replace)."""
    from scorekit import __version__
    from scorekit.compare.core import Run, run_values
    from scorekit.export.every_eval_ever import build_document, document_uuid
    from scorekit.export.sources import collect_facts
    from scorekit.harness_outputs.identity import display_names
    from scorekit.harness_outputs.registry import holds_questions

    retrieved = _retrieved(args)
    documents: dict[str, tuple[str, str]] = {}
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
        documents[name] = (path, json.dumps(doc, indent=2) + "\n")
        all_notes.extend(f"{path}: {n}" for n in notes)
    return documents, all_notes, walk(args.runs).files
