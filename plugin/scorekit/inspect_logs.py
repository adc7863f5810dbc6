"""Old path of :mod:`scorekit.harness_outputs.inspect_logs` (the Inspect format moved into the
formats' wing). Kept for one release: ``scorekit.inspect_logs`` is the same module object."""

import sys

from scorekit.harness_outputs import inspect_logs as _inspect_logs

sys.modules[__name__] = _inspect_logs
