"""Old path of :mod:`scorekit.aggregate.scorecard` (threshold scoring is called the scorecard
everywhere). Kept for one release: ``scorekit.aggregate.score_results`` is the same module object."""

import sys

from scorekit.aggregate import scorecard as _new

sys.modules[__name__] = _new
