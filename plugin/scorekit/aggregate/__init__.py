"""Old path of :mod:`scorekit.leaderboards` (renamed: "aggregation" is lm-eval's word for its own
step). Kept for one release: ``scorekit.aggregate`` and each ``scorekit.aggregate.<module>`` are the
same module objects as the new ones; the older names ``score_results``, ``scoring_config`` and
``yaml_config`` are ``scorecard``, ``scorecard_config`` and :mod:`scorekit.yaml_config`."""

import importlib
import sys

from scorekit import leaderboards as _new

_RENAMED = {"score_results": "scorecard", "scoring_config": "scorecard_config", "yaml_config": "scorekit.yaml_config"}
for _old in ("leaderboard", "leaderboard_render", "leaderboard_run", "old_layout", "plots", "prompt_intervals", "rank",
             "results_files", "scorecard", "scorecard_config", "scorecard_render", "scorecard_run", "threshold", *_RENAMED):
    _target = _RENAMED.get(_old, _old)
    _module = importlib.import_module(_target if "." in _target else f"{_new.__name__}.{_target}")
    sys.modules[f"{__name__}.{_old}"] = _module
    setattr(_new, _old, _module)  # `from scorekit.aggregate import score_results`, as before
sys.modules[__name__] = _new
