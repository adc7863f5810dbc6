"""Were a question's samples really sampled? The identical-sample rate of the non-greedy family.

``identical_sample_rate`` = share of questions whose samples are all the same text (the raw
generations, before any answer extraction). Identical samples cannot disagree, so a high rate
inflates the non-greedy consistency rate; the usual cause is a backend that sends one seed
with every sample (lm-eval's OpenAI-compatible models put the same ``seed`` into every request,
and vLLM's and SGLang's servers honour it). A real model at temperature 0.7 can still repeat a
short answer word for word, so the rate is reported always and flagged only from
:data:`WARN_AT` up.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Hashable, Iterable, Sequence

__all__ = ["IDENTICAL", "WARN_AT", "samples_identical", "identical_share", "identical_sample_note"]

IDENTICAL = "identical_sample_rate"  # the metric's name in every harness's results
WARN_AT = 0.5


def samples_identical(texts: Sequence[Hashable]) -> bool:
    """True when a question has two or more samples and all are the same text (or the same
    hash of a text)."""
    return len(texts) >= 2 and all(t == texts[0] for t in texts)


def identical_share(flags: Iterable[bool]) -> float:
    """Mean of per-question flags (:func:`samples_identical`); nan without questions."""
    values = [bool(f) for f in flags]
    return sum(values) / len(values) if values else math.nan


def identical_sample_note(rate: float, n_questions: int | None = None) -> str | None:
    """The warning for a high rate (from :data:`WARN_AT`), else None."""
    if math.isnan(rate) or rate < WARN_AT:
        return None
    of = f" of {n_questions} question{'s' if n_questions != 1 else ''}" if n_questions else " of the questions"
    return (f"identical samples: {rate:.0%}{of} got the same raw generation (compared before any filter or "
            "answer extraction) in every sample, so their answers cannot disagree and the non-greedy CR is "
            "inflated. A backend that sends one seed with every sample does this (lm-eval's OpenAI-compatible "
            "models against vLLM/SGLang servers); with scorekit's lm-eval tasks pass --gen_kwargs seed=N to "
            "give every sample its own seed")


def identical_rate_with_warning(flags: Sequence[bool], label: str, logger: logging.Logger | None = None) -> float:
    """:func:`identical_share` of per-question flags, with a ``RuntimeWarning`` ("<label>: <note>")
    when it is high, or that line logged as a warning to ``logger`` when given: the harness
    aggregation of ``identical_sample_rate``."""
    import warnings

    rate = identical_share(flags)
    note = identical_sample_note(rate, len(flags))
    if note and logger is not None:
        logger.warning("%s: %s", label, note)
    elif note:
        warnings.warn(f"{label}: {note}", RuntimeWarning, stacklevel=3)
    return rate

