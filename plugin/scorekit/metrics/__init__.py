"""Pure metric functions (numpy/scipy only; no harness imports).

Every function documents its formula and edge cases; an undefined value is ``nan`` with a
``RuntimeWarning`` (never a made-up 0), and impossible arguments (k > n, gold out of range)
raise ``ValueError``.
"""

from scorekit.metrics.consistency import consistency_counts, consistency_rate, consistency_rate_interval, consistency_summary
from scorekit.metrics.intervals import (
    bootstrap_interval,
    holm,
    mcnemar_p,
    paired_bootstrap,
    threshold_stderr,
    wilson_interval,
)
from scorekit.metrics.math_answers import math_equivalent
from scorekit.metrics.logprob import (
    gold_probability,
    gold_ranks,
    loglikelihood_accuracy,
    normalized_mc_probability,
    recall_at_k,
    reciprocal_rank,
)
from scorekit.metrics.sampling import avg_at_k, g_pass_at_k, maj_at_k, mg_pass_at_k, pass_at_k
from scorekit.metrics.strings import (
    bow_f1,
    edit_similarity,
    exact_match,
    extractive_fragments,
    extractiveness,
    levenshtein,
)

__all__ = [
    # consistency (SCORE)
    "consistency_counts",
    "consistency_rate",
    "consistency_rate_interval",
    "consistency_summary",
    "math_equivalent",
    # intervals and tests
    "wilson_interval",
    "bootstrap_interval",
    "paired_bootstrap",
    "mcnemar_p",
    "holm",
    "threshold_stderr",
    # sampling
    "pass_at_k",
    "g_pass_at_k",
    "mg_pass_at_k",
    "avg_at_k",
    "maj_at_k",
    # log-probabilities
    "normalized_mc_probability",
    "gold_probability",
    "loglikelihood_accuracy",
    "recall_at_k",
    "reciprocal_rank",
    "gold_ranks",
    # strings
    "exact_match",
    "bow_f1",
    "levenshtein",
    "edit_similarity",
    "extractive_fragments",
    "extractiveness",
]
