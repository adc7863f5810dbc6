"""Old path of :mod:`scorekit.aggregate.scorecard_config` (threshold scoring is called the scorecard
everywhere). Kept for one release: ``scorekit.aggregate.scoring_config`` is the same module object."""

import sys

from scorekit.aggregate import scorecard_config as _new

sys.modules[__name__] = _new
