"""Keep the harness's own output (lm-eval logging, tqdm bars, transformers and tokenizer
warnings, anything written to file descriptors 1 and 2) in a log file while the demo shows its
own progress display on the terminal."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

# Loggers whose records belong in the log file, not on the terminal.
HARNESS_LOGGERS = ("lm_eval", "lm-eval", "transformers", "datasets", "huggingface_hub", "accelerate", "evaluate",
                   "math_verify", "absl")


@contextlib.contextmanager
def harness_output_to(log_path: Path) -> Iterator[TextIO]:
    """Send all output made inside the block to ``log_path`` (appended); yield a text stream on
    the terminal's stderr for the caller's own display.

    Covers Python writes to ``sys.stdout``/``sys.stderr`` (tqdm, ``print``), ``warnings``,
    ``logging`` records of :data:`HARNESS_LOGGERS` (at INFO and above) and, through ``dup2``,
    output written straight to file descriptors 1 and 2 by C code. Everything is restored on
    exit, also on an exception.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    log = open(log_path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - closed below
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    terminal = os.fdopen(os.dup(saved[2]), "w", buffering=1, encoding="utf-8", errors="replace")
    handler = logging.StreamHandler(log)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    loggers = [logging.getLogger(name) for name in HARNESS_LOGGERS]
    before = [(lg, lg.level, lg.handlers[:], lg.propagate) for lg in loggers]
    # logging.config.dictConfig (lighteval's CLI module runs one at import) disables every logger
    # that exists by then, lm_eval.evaluator's too: their records would be lost, not logged
    disabled = [lg for name, lg in logging.root.manager.loggerDict.items()
                if isinstance(lg, logging.Logger) and lg.disabled and name.split(".")[0] in HARNESS_LOGGERS]
    try:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        for lg in disabled:
            lg.disabled = False
        for lg in loggers:
            lg.handlers = [handler]
            lg.propagate = False
            lg.setLevel(logging.INFO)
        with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log), warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = _to(log)
            yield terminal
    finally:
        for stream in (sys.stdout, sys.stderr, log):
            with contextlib.suppress(Exception):
                stream.flush()
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        for lg in disabled:
            lg.disabled = True
        for lg, level, handlers, propagate in before:
            lg.setLevel(level)
            lg.handlers = handlers
            lg.propagate = propagate
        terminal.close()
        log.close()


def _to(log: TextIO):
    def show(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        log.write(warnings.formatwarning(message, category, filename, lineno, line))

    return show
