"""``scorekit leaderboard``, built: the options checked, the results files read (with a progress
bar that appears only when useful, :class:`Progress`), the board built
(:func:`scorekit.leaderboards.leaderboard.build_leaderboard`), rendered and drawn, and its notes;
the command writes them (:class:`Output`, as ``scorekit scorecard``'s)."""

from __future__ import annotations

import argparse
import gc
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from scorekit import checks
from scorekit.errors import ScorekitError
from scorekit.tables import FORMATS

PROGRESS_AFTER_S = 2.0


@dataclass
class Output:
    """What ``scorekit leaderboard`` or ``scorecard`` writes: the rendered table and where it goes,
    the notes, the ``--plot`` image (None without)."""

    text: str
    output: Path | None
    notes: list[str]
    image: bytes | None = None


def results_notes(loaded, notes: dict, missing: list[str], *, every: bool) -> list[str]:  # noqa: ANN001
    """A leaderboard's or scorecard's notes, in order: results overridden by newer ones, the
    models' notes (:func:`~scorekit.leaderboards.scorecard.note_lines`), what is missing, the files skipped."""
    from scorekit.leaderboards.leaderboard import override_notes
    from scorekit.leaderboards.scorecard import note_lines

    summary = loaded.skipped_summary()
    return [*override_notes(loaded.models.values()), *note_lines(notes, every=every), *missing, *([summary] if summary else [])]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="results files or folders (searched recursively)")
    p.add_argument("--config", metavar="YAML",
                   help="scoring config (the `scorekit scorecard` layout, docs/scorecard.md): a YAML file or the name of a "
                   "shipped one (see `scorekit configs-dir`). Default: open_llm_leaderboard_v2 for lm-eval results, "
                   "open_llm_leaderboard_v2_lighteval for models seen only in lighteval results.")
    p.add_argument("--convert", action="store_true",
                   help="print the --config given in the old leaderboard layout (a list of columns) in the one layout, "
                   "and read no results")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--output", metavar="FILE", help="write the output to FILE (atomically) instead of stdout")
    p.add_argument("--plot", metavar="FILE.png", help="also save a bar chart (needs the plots extra)")
    p.add_argument("--raw", action="store_true", help="add the raw (unnormalized) columns to text formats")
    p.add_argument("--digits", type=int, default=2, help="decimals in table/markdown/html (default: 2)")
    checks.add_allow_code(p)
    prog = p.add_mutually_exclusive_group()
    prog.add_argument("--progress", dest="progress", action="store_const", const=True,
                      help="always show a progress bar on stderr (default: only on a terminal, once reading takes > 2 s)")
    prog.add_argument("--no-progress", dest="progress", action="store_const", const=False, help="never show one")
    p.set_defaults(progress=None)


def build(args: argparse.Namespace) -> Output:
    """Everything ``scorekit leaderboard PATH...`` says, computed; one line for bad input."""
    # GC paused: rescanning the parsed files (no cycles) made the run 15-20% longer (bench/bench_leaderboard.py)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _build(args)
    finally:
        if was_enabled:
            gc.enable()


def _build(args: argparse.Namespace) -> Output:
    from scorekit.leaderboards import leaderboard as lb
    from scorekit.leaderboards.leaderboard_render import render
    from scorekit.leaderboards.results_files import load_results
    from scorekit.leaderboards.scorecard_config import load_scorecard_config
    from scorekit.files import check_output, refuse_input_as_output
    from scorekit.resources import find_config

    if not args.paths:
        raise ScorekitError("give the results files or folders to read (PATH ...)")
    checks.check_digits(args.digits)
    plot_fmt = None if args.plot is None else checks.check_plot(args.plot)
    config_path = None if args.config is None else find_config(args.config)
    inputs = [*args.paths, *([config_path] if config_path else [])]
    output = check_output(args.output, inputs)
    check_output(args.plot, [*inputs, *([output] if output else [])], option="--plot")
    # default: one config per harness (leaderboard.config_for)
    configs = lb.default_configs() if config_path is None else [load_scorecard_config(config_path, allow_code=args.allow_code)]
    with Progress(args.progress) as progress:
        loaded = load_results(args.paths, on_file=progress.update)
    read = [f.path for f in loaded.files]
    refuse_input_as_output(output, read)
    refuse_input_as_output(args.plot, read, option="--plot")
    board = lb.build_leaderboard(loaded.models, configs)
    text = render(board, args.format, raw=args.raw, digits=args.digits)
    image = None
    if args.plot:
        from scorekit.leaderboards.plots import leaderboard_png

        image = leaderboard_png(board.rows, board.columns, title=board.title, fmt=plot_fmt)
    notes = results_notes(loaded, {row.model: row.notes for row in board.rows}, lb.missing_notes(board.rows), every=args.verbose)
    if config_path is None:
        used = sorted({r.config for r in board.rows})
        notes.append(f"{len(loaded.files)} results file(s), {len(board.rows)} model(s); config: {', '.join(used)}")
    return Output(text, output, notes, image)


def convert(args: argparse.Namespace) -> tuple[str, Path | None]:
    """``--convert``: the old-layout ``--config`` in the one layout, and where it goes."""
    from scorekit.leaderboards.old_layout import convert_old_layout
    from scorekit.files import check_output
    from scorekit.resources import find_config

    if args.config is None or args.paths or args.plot:
        raise ScorekitError("--convert reads only --config OLD.yaml (no PATH, no --plot) and prints it in the one layout")
    config_path = find_config(args.config)
    return convert_old_layout(config_path), check_output(args.output, [config_path])


class Progress:
    """A rich progress bar on stderr that appears only when useful.

    ``show=None``: appear once reading has taken more than PROGRESS_AFTER_S seconds and stderr
    is a terminal; ``True``: always (even when not a terminal); ``False``: never.
    """

    def __init__(self, show: bool | None):
        self.show = show
        self.start = time.perf_counter()
        self.bar = None
        self.task = None
        self.last_check = 0

    def __enter__(self) -> "Progress":
        if self.show:
            self._start_bar(None)
        return self

    def _start_bar(self, total: int | None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(stderr=True, force_terminal=True if self.show else None)
        self.bar = Progress(TextColumn("reading results"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                            console=console, transient=True)
        self.bar.start()
        self.task = self.bar.add_task("read", total=total)

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            if self.show is False or done - self.last_check < 32:
                return
            self.last_check = done
            if time.perf_counter() - self.start < PROGRESS_AFTER_S or not sys.stderr.isatty():
                return
            self._start_bar(total)
        self.bar.update(self.task, completed=done, total=total)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
