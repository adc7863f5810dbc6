"""``ScorekitTask``: lm-eval's ConfigurableTask, plus scorekit's multiple-choice metrics.

For ``output_type: multiple_choice`` lm-eval computes only its built-in metrics and silently
ignores any other name in ``metric_list``; this subclass computes the scorekit ones from the
choices' log-likelihoods and the gold index. Every other output type behaves exactly as in
ConfigurableTask. Use it from a task YAML with ``class: !function scorekit.lm_eval.ScorekitTask``.
"""

from __future__ import annotations

from typing import Any

from lm_eval.api.task import ConfigurableTask

import scorekit.lm_eval.registry  # noqa: F401  (metric names must resolve when the task is built)
from scorekit.lm_eval.metrics import MULTIPLE_CHOICE_METRICS

__all__ = ["ScorekitTask"]


class ScorekitTask(ConfigurableTask):
    def __init__(self, *args: Any, config: dict | None = None, **kwargs: Any) -> None:
        if config is not None and "class" in config:
            config = {k: v for k, v in config.items() if k != "class"}
        super().__init__(*args, config=config, **kwargs)

    def _gold_indices(self, doc: dict, choices: list[str]) -> int | list[int]:
        gold = self.doc_to_text(doc) if self.multiple_input else self.doc_to_target(doc)
        if isinstance(gold, str):
            if gold not in choices:
                raise ValueError(f"task {self.config.task}: gold {gold!r} is not one of the choices {choices!r}")
            return choices.index(gold)
        return list(gold) if isinstance(gold, (list, tuple)) else int(gold)

    def process_results(self, doc: dict, results: list) -> dict:
        out = super().process_results(doc, results)
        if self.OUTPUT_TYPE != "multiple_choice" or callable(self.config.process_results):
            return out
        wanted = [name for name in self._metric_fn_list if name in MULTIPLE_CHOICE_METRICS]
        if not wanted:
            return out
        choices = self.doc_to_choice(doc)
        lls = [float(r[0]) for r in results][: len(choices)]  # drop acc_mutual_info's unconditional half
        gold = self._gold_indices(doc, choices)
        for name in wanted:
            value = MULTIPLE_CHOICE_METRICS[name](references=[gold], predictions=[lls], **self._metric_fn_kwargs[name])
            if isinstance(value, dict):
                for key, v in value.items():
                    out[key] = v
                    self._aggregation_list.setdefault(key, self._aggregation_list[name])
                    self._higher_is_better.setdefault(key, self._higher_is_better[name])
            else:
                out[name] = value
        return out
