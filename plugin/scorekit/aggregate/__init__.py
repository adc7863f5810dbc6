"""Old path of :mod:`scorekit.leaderboards` (renamed: "aggregation" is lm-eval's word for its own
step). Kept for one release: ``scorekit.aggregate`` and each ``scorekit.aggregate.<module>`` are the
same module objects as the new ones, renamed ones under their new names (:data:`_RENAMED`)."""

import importlib
import sys

from scorekit import leaderboards as _new

_RENAMED = {"score_results": ".scorecard", "scoring_config": ".scorecard_config", "yaml_config": "scorekit.yaml_config",
            "leaderboard_run": ".leaderboard_options", "scorecard_run": ".scorecard_options"}
for _old in ("leaderboard", "leaderboard_render", "old_layout", "plots", "prompt_intervals", "rank", "results_files",
             "scorecard", "scorecard_config", "scorecard_render", "threshold", *_RENAMED):
    _module = importlib.import_module(_RENAMED.get(_old, "." + _old), _new.__name__)
    sys.modules[f"{__name__}.{_old}"] = _module
    setattr(_new, _old, _module)  # `from scorekit.aggregate import score_results`, as before
sys.modules[__name__] = _new
