"""Pure metric functions (numpy/scipy only; no harness imports).

Every function documents its formula and edge cases; undefined values are ``nan`` with a
``RuntimeWarning``, never a made-up 0.
"""

from scorekit.metrics.consistency import consistency_counts, consistency_rate, consistency_rate_interval

__all__ = ["consistency_counts", "consistency_rate", "consistency_rate_interval"]
