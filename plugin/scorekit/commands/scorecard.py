"""``scorekit scorecard PATH... --config FILE``: good/bad threshold scores rolled up
metric → benchmark → category → overall (ML-PEG's scheme) from results files.

The table goes to stdout or ``--output`` (written atomically); notes go to stderr.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from scorekit.tables import FORMATS

DETAILS = ("category", "benchmark", "metric")
DEFAULT_CONFIG = "llm_benchmarks_scoring.yaml"
PARTIAL_MARK = "*"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "scorecard",
        help="good/bad threshold scores per metric, rolled up to benchmark, category and overall",
        description=(
            "Score lm-eval / lighteval results (files, or folders searched recursively) against a "
            "YAML config: per metric clip((value - bad) / (good - bad), 0, 1), then weighted means "
            "metric -> benchmark -> category -> overall. Missing values are never counted as 0: see "
            "--missing. See docs/scorecard.md."
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="results files or folders (searched recursively)")
    p.add_argument("--config", metavar="FILE", default=DEFAULT_CONFIG,
                   help=f"scoring config: a YAML file, or the name of a shipped one (default: {DEFAULT_CONFIG})")
    p.add_argument("--missing", choices=("partial", "strict"), default="partial",
                   help="partial (default): leave a missing metric out, renormalize the weights and flag every score "
                   "above it as partial; strict: a missing metric leaves its benchmark, category and overall without a score")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--detail", choices=DETAILS, default="category",
                   help="deepest level shown as columns in table/markdown/csv/html (default: category); json always has every level")
    p.add_argument("--digits", type=int, default=3, help="decimals in table/markdown/html (default: 3)")
    p.add_argument("--output", metavar="FILE", help="write the output to FILE (atomically) instead of stdout")
    add_allow_code(p)
    p.set_defaults(func=run)


def add_allow_code(p: argparse.ArgumentParser) -> None:
    """``--allow-code``, for the commands that read a scoring config."""
    p.add_argument("--allow-code", action="store_true",
                   help="let the config's normalizer import a .py module that sits beside the config (runs that code); "
                   "without it only installed modules are imported")


def run(args: argparse.Namespace) -> int:
    from scorekit.aggregate.results_files import load_results
    from scorekit.aggregate.score_results import rank, score_results
    from scorekit.aggregate.scoring_config import load_scoring_config
    from scorekit.commands.checks import check_digits
    from scorekit.errors import ScorekitError
    from scorekit.io import check_output, emit, refuse_input_as_output
    from scorekit.resources import find_config

    check_digits(args.digits)
    config_path = find_config(args.config)
    output = check_output(args.output, [*args.paths, config_path])
    config = load_scoring_config(config_path, allow_code=args.allow_code)
    loaded = load_results(args.paths)
    refuse_input_as_output(output, [f.path for f in loaded.files])
    scored, inputs = score_results(loaded.models.values(), config, missing=args.missing)
    found_any = any(
        metric["source"] is not None
        for m in scored
        for c in m["categories"].values()
        for b in c["benchmarks"].values()
        for metric in b["metrics"].values()
    )
    if not found_any:
        first = config.metrics[0]
        raise ScorekitError(
            "none of the config's metrics was found in any results file (e.g. "
            f"{first.path} looks for {' or '.join(f'{t} -> {m}' for t, m in first.keys)}); check the keys",
            path=config.path,
        )
    scored = rank(scored)
    text = render(scored, config, args.format, detail=args.detail, digits=args.digits, policy=args.missing)
    emit(text, output)
    _notes(loaded, scored, inputs, args.verbose)
    return 0


def _notes(loaded, scored: list[dict[str, Any]], inputs, verbose: bool = False) -> None:
    from scorekit.aggregate.leaderboard import override_notes
    from scorekit.aggregate.score_results import note_lines
    from scorekit.io import note

    note(*override_notes(loaded.models.values()))
    note(*note_lines(inputs.notes, every=verbose))
    for m in scored:
        if m["missing"]:
            what = "partial" if m["partial"] else "no overall score"
            note(f"{m['model']}: {what}, without {', '.join(f'{p} ({r})' for p, r in m['missing'].items())}")
    if summary := loaded.skipped_summary():
        note(summary)


def _columns(config, detail: str) -> list[tuple[str, Any]]:
    """(header, getter) pairs; a getter maps a scored model to its node dict."""
    cols: list[tuple[str, Any]] = [("Overall", lambda m: m)]
    for cat in config.categories:
        cols.append((cat.name, lambda m, c=cat.name: m["categories"][c]))
    if detail in ("benchmark", "metric"):
        for b in config.benchmarks:
            cols.append((b.path, lambda m, c=b.category, n=b.name: m["categories"][c]["benchmarks"][n]))
    if detail == "metric":
        for s in config.metrics:
            cols.append(
                (s.path, lambda m, c=s.category, b=s.benchmark, n=s.name: m["categories"][c]["benchmarks"][b]["metrics"][n])
            )
    return cols


def _node_score(node: dict[str, Any]) -> float | None:
    return node["overall"] if "overall" in node else node["score"]


def render(
    scored: list[dict[str, Any]], config, fmt: str, *, detail: str = "category", digits: int = 3, policy: str = "partial"
) -> str:
    """Text of the scores in ``fmt``; JSON holds every level (see docs/scorecard.md)."""
    if fmt == "json":
        import json

        doc = {"config": config.path, "missing_policy": policy, "models": _json_safe(scored)}
        return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    from scorekit.tables import render as render_table

    cols = _columns(config, detail)
    ci_cols = ["Overall_ci_low", "Overall_ci_high"] if fmt == "csv" else ["Overall 95% CI"]
    header = ["Model"] + [h for h, _ in cols[:1]] + ci_cols + ["Tied with best"] + [h for h, _ in cols[1:]] + ["Missing"]
    rows = []
    any_partial = False
    for m in scored:
        row: list[Any] = [m["model"]]
        for _, get in cols:
            node = get(m)
            score = _node_score(node)
            if fmt == "csv":
                row.append(score)
            elif score is None:
                row.append("-")
            else:
                mark = PARTIAL_MARK if isinstance(node.get("missing"), dict) and node["missing"] else ""
                any_partial = any_partial or bool(mark)
                row.append(f"{score:.{digits}f}{mark}")
            if node is m:  # the overall score's interval (stderr propagated, threshold.roll_up_stderr)
                lo, hi = m.get("overall_ci_low"), m.get("overall_ci_high")
                if fmt == "csv":
                    row += [lo, hi]
                else:
                    row.append("-" if lo is None else f"[{lo:.{digits}f}, {hi:.{digits}f}]")
                tied = m.get("indistinguishable_from_best")
                row.append(tied if fmt == "csv" else ("-" if tied is None else ("yes" if tied else "no")))
        # narrow terminal table: paths only (reasons: stderr notes, json)
        missing = ", ".join(m["missing"]) if fmt == "table" else "; ".join(f"{p} ({r})" for p, r in m["missing"].items())
        row.append(missing if missing or fmt == "csv" else "-")
        rows.append(row)
    text = render_table(header, rows, fmt, digits=digits)
    if any_partial and fmt in ("table", "markdown"):
        text += f"\n{PARTIAL_MARK} partial: computed without the metrics under Missing (weights renormalized)\n"
    return text


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value
