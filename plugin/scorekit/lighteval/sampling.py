"""Make lighteval 0.13's transformers backend sample when a task asks for several samples.

lighteval passes a task's ``num_samples`` to ``model.generate`` as ``num_return_sequences`` with
the temperature of the model arguments, but never ``do_sample``: decoding follows the model's
``generation_config.json``. Most models do not set ``do_sample`` there, so greedy decoding is
asked for five sequences and transformers stops the run ("Greedy methods without beam search do
not support `num_return_sequences` different than 1 (got 5)"); a model whose config sets beam
search would return beams instead of samples. :func:`sample_when_asked` wraps
``TransformersModel._generate_padded`` so that a request for more than one sample is generated
with ``do_sample=True``, whatever the model's defaults: SCORE's non-greedy tasks and scorekit's
sampling metrics then sample on every model. A single-sample request is left untouched, and so
is every run that worked before (a request for several samples could only succeed when the
model already sampled, or by beam search).

It is installed when :mod:`scorekit.lighteval.score_suite` or :mod:`scorekit.lighteval.metrics` is
imported (lighteval imports ``--custom-tasks`` before it generates). lighteval's ``vllm``,
``sglang`` and endpoint backends sample from the temperature alone and need nothing.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["sample_when_asked"]

_MARK = "__scorekit_samples__"


def sample_when_asked() -> None:
    """Install the wrapper on lighteval's TransformersModel (idempotent)."""
    from lighteval.models.transformers.transformers_model import TransformersModel

    original = TransformersModel._generate_padded
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def _generate_padded(self: Any, *args: Any, **kwargs: Any) -> Any:
        # signature: (batch, max_new_tokens, stop_tokens, returns_logits=False, num_samples=1)
        num_samples = kwargs.get("num_samples", args[4] if len(args) > 4 else 1)
        if num_samples <= 1:
            return original(self, *args, **kwargs)
        defaults = self.generation_config_dict
        self.generation_config_dict = {**defaults, "do_sample": True}
        try:
            return original(self, *args, **kwargs)
        finally:
            self.generation_config_dict = defaults

    setattr(_generate_padded, _MARK, True)
    TransformersModel._generate_padded = _generate_padded
