"""``python -m scorekit.lighteval <args>``: the ``lighteval`` command, runnable offline.

Identical arguments and behaviour to ``lighteval <args>``; first it prevents lighteval's
import-time download of tinyBenchmarks.pkl (see :mod:`scorekit.lighteval.offline`).
"""

import logging
import sys

from scorekit.lighteval.offline import run_cli

if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    sys.exit(run_cli(sys.argv[1:]))
