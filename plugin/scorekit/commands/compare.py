"""``scorekit compare A B [C ...]``: paired differences between runs on their shared questions."""

from __future__ import annotations

import argparse

from scorekit.commands.checks import add_bootstrap
from scorekit.tables import FORMATS


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "compare",
        help="paired comparison of two or more runs (difference, interval and p that agree, Holm, minimum "
             "detectable difference); "
             "each run's values with their intervals",
        description=(
            "Compare runs on the questions they share, task by task, from the samples logs "
            "(lm-eval --log_samples, lighteval --save-details; SCORE tasks of either). Each RUN is "
            "one model's output folder or samples file. 0/1 metrics (acc, acc_norm, exact_match, "
            "SCORE per-prompt and per-position accuracy) get the exact McNemar p-value and the interval "
            "inverted from the same test; other per-question metrics and consistency rates the paired "
            "bootstrap interval and the p-value inverted from it; accuracy spreads the box of the two "
            "runs' spread intervals and its p-value. Each comparison also gives the smallest difference "
            "it could detect with 80% power and, in a column of its own, the p-value Holm-adjusted over "
            "the comparisons of the metrics in the logs (pass@k rows derived from epochs are adjusted "
            "among themselves, in a table of their own). With more than two runs every pair is compared, "
            "and a third p column is Holm-adjusted over the pairs of each task and metric. An undefined "
            "value (the consistency rate of unparsed answers) is never 0: it is shown as missing, not "
            "compared, and a note says why; so is an interval of zero width or one resampled from fewer "
            "than 10 questions. "
            "With one RUN, or --values, each run's own values on all its questions are shown instead, "
            "with 95% intervals over questions (Wilson for 0/1 metrics; for spreads the spread of the "
            "per-prompt Wilson intervals; bootstrap for the rest, such as corpus pass@k, G-Pass@k and "
            "mG-Pass@k); JSON always holds both lists. "
            "Methods and their weak spots: docs/uncertainty.md."
        ),
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folders or samples files")
    p.add_argument("--values", action="store_true",
                   help="show each run's values with their intervals instead of the paired comparisons")
    p.add_argument("--label", action="append", metavar="NAME",
                   help="name a run in the tables (once per RUN, in order; default: its model, a local path "
                        "shown by its last folder; JSON keeps the full model name)")
    p.add_argument("--format", "-f", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    add_bootstrap(p, "bootstrap seed (default: 0; results are reproducible)")
    p.set_defaults(func=run)


def _p_text(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


COMPARISON_FIELDS = ["task", "metric", "a", "b", "n_paired", "a_value", "b_value", "difference", "ci_low", "ci_high",
                     "p_value", "p_value_adjusted_pairs", "p_value_adjusted", "family", "test",
                     "min_detectable_difference", "kind", "a_only", "b_only", "note"]
VALUE_FIELDS = ["task", "metric", "run", "model", "n", "value", "ci_low", "ci_high", "method", "kind", "note"]
_FAMILY_TITLE = {"logged": "Paired comparison of the metrics in the logs",
                 "derived": "Paired comparison of pass@k derived from the epochs (a Holm family of its own)"}


def _comparison_table(comparisons: list, level: str, several_pairs: bool, family: str) -> tuple[list[str], list[list], str]:
    """(columns, rows, title) of one Holm family's comparisons."""
    columns = ["task", "metric", "a", "b", "n", "a value", "b value", "difference", f"{level} CI", "p",
               *(["p adj. (pairs)"] if several_pairs else []), "p adj. (table)", "test", "MDD (80%)"]
    rows = []
    for c in comparisons:
        d = c.to_json()
        ci = "-" if d["ci_low"] is None else f"[{c.ci_low:+.3f}, {c.ci_high:+.3f}]"
        diff = "-" if d["difference"] is None else f"{c.difference:+.3f}"
        mdd = "-" if d["min_detectable_difference"] is None else f"{c.min_detectable_difference:.3f}"
        pairs = [_p_text(d["p_value_adjusted_pairs"])] if several_pairs else []
        rows.append([c.task, c.metric, c.a, c.b, c.n_paired, c.a_value, c.b_value, diff, ci, _p_text(d["p_value"]),
                     *pairs, _p_text(d["p_value_adjusted"]), c.test, mdd])
    tested = sum(c.to_json()["p_value"] is not None for c in comparisons)
    title = (f"{_FAMILY_TITLE[family]}. p: exact McNemar for 0/1 metrics, box of spread intervals for "
             "spreads, else paired bootstrap; it agrees with the CI beside it"
             + ("; p adj. (pairs): Holm over the pairs of runs of each task and metric" if several_pairs else "")
             + f"; p adj. (table): Holm over the {tested} p-value(s) of this table"
             + "; MDD: smallest difference detectable with 80% power; -: not given, the notes say why")
    return columns, rows, title


def render(comparisons: list, notes: list[str], fmt: str, *, confidence: float, values: list | None = None,
           show_values: bool = False, runs: list | None = None) -> str:
    """The comparison rows (or with ``show_values`` the values rows) in ``fmt``; JSON is
    ``{"runs": [...], "comparisons": [...], "values": [...], "notes": [...]}`` whatever
    ``show_values`` says. Comparisons of derived pass@k rows (their own Holm family) are a
    table of their own in the text formats and have ``family: "derived"`` in CSV and JSON."""
    import json

    from scorekit.tables import html_document
    from scorekit.tables import render as render_table

    if fmt == "json":
        return json.dumps({"runs": [{"label": r.label, "model": r.model, "source": r.source} for r in runs or []],
                           "comparisons": [c.to_json() for c in comparisons],
                           "values": [v.to_json() for v in values or []], "notes": notes}, indent=2) + "\n"
    level = f"{confidence:.0%}"
    if fmt == "csv":  # every field, nan empty
        fields = VALUE_FIELDS if show_values else COMPARISON_FIELDS
        return render_table(fields, [[x.to_json()[k] for k in fields] for x in (values or [] if show_values else comparisons)], "csv")
    if show_values:
        title = f"Values on each run's questions ({level} intervals over questions; -: not given, the notes say why)"
        columns = ["task", "metric", "run", "n", "value", f"{level} CI", "method"]
        rows = [[v.task, v.metric, v.run, v.n, v.value,
                 "-" if v.to_json()["ci_low"] is None else f"[{v.ci_low:.3f}, {v.ci_high:.3f}]", v.method]
                for v in values or []]
        tables = [(columns, rows, title)]
    else:
        several_pairs = len({(c.a, c.b) for c in comparisons}) > 1
        tables = [_comparison_table(members, level, several_pairs, family)
                  for family in ("logged", "derived") if (members := [c for c in comparisons if c.family == family])]
    if fmt == "html":
        return html_document("scorekit compare", [render_table(*t[:2], "html", title=t[2], digits=3) for t in tables],
                             notes=notes)
    text = "\n".join(render_table(columns, rows, fmt, title=title, digits=3) for columns, rows, title in tables)
    if notes and fmt in ("table", "markdown"):
        bullet = "- " if fmt == "markdown" else "note: "
        text += "\n" + "\n".join(bullet + n for n in notes) + "\n"
    return text


def run(args: argparse.Namespace) -> int:
    from scorekit.commands.checks import check_bootstrap
    from scorekit.compare.core import compare_runs, run_values
    from scorekit.compare.inputs import read_runs
    from scorekit.errors import ScorekitError
    from scorekit.harness_outputs.folders import walk
    from scorekit.io import check_output, emit, note, refuse_input_as_output

    output = check_output(args.output, args.runs)
    check_bootstrap(args)
    labels = args.label
    if labels is not None:
        if len(labels) != len(args.runs):
            raise ScorekitError(f"--label given {len(labels)} time(s) for {len(args.runs)} run(s): give one per RUN, in order")
        if any(not label.strip() for label in labels) or len(set(labels)) != len(labels):
            raise ScorekitError("--label: each run needs its own non-empty label")
    runs = read_runs(args.runs, labels)
    refuse_input_as_output(output, walk(args.runs).files)
    notes = [f"{r.label} ({r.source}): {n}" for r in runs for n in r.notes]
    shown = {r.label: r.model for r in runs if r.label.rsplit("#", 1)[0] != r.model}  # a local path, or --label
    if shown:
        notes.append("runs labelled: " + "; ".join(f"{label} = {model}" for label, model in shown.items()))
    show_values = args.values or len(runs) == 1
    # the values table is shown, or is the JSON's second list (always there); else not computed
    values: list = []
    if show_values or args.format == "json":
        values, value_notes = run_values(runs, confidence=args.confidence, n_boot=args.n_boot, seed=args.seed)
        notes.extend(value_notes)
    comparisons: list = []
    if len(runs) > 1:
        comparisons, pair_notes = compare_runs(runs, confidence=args.confidence, n_boot=args.n_boot, seed=args.seed)
        notes.extend(pair_notes)
        if not comparisons and not show_values:  # the cause is in the pairing notes, not in what reading said
            shown = "; ".join(pair_notes[:3]) + (f"; and {len(pair_notes) - 3} more" if len(pair_notes) > 3 else "")
            raise ScorekitError("the runs share no task and metric with common questions; nothing to compare"
                                + (f" ({shown})" if shown else ""))
    if show_values and not values:
        raise ScorekitError("no per-question values found in the samples logs; nothing to show")
    emit(render(comparisons, notes, args.format, confidence=args.confidence, values=values,
                show_values=show_values, runs=runs), output)
    if args.format in ("csv", "latex"):  # no room for notes in the file: say them on stderr
        note(*notes)
    return 0
