"""scorekit: robustness, consistency and leaderboard-exact scoring for LLM evaluation harnesses.

Importing this package is deliberately cheap: it never imports torch, transformers,
lm-eval or lighteval. The harness adapters live in :mod:`scorekit.lm_eval` and
:mod:`scorekit.lighteval` and are imported only when used.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
