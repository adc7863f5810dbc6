"""``ScorekitTask``: lm-eval's ConfigurableTask, plus what scorekit's metrics need from it.

Use it from a task YAML with ``class: !function scorekit.lm_eval.ScorekitTask``. Everything not
listed here behaves exactly as in ConfigurableTask.

- ``output_type: multiple_choice``: lm-eval computes only its built-in metrics and silently
  ignores any other name in ``metric_list``; this class computes the scorekit ones from the
  choices' log-likelihoods and the gold index.
- Several golds (``doc_to_target`` returns a list) on ``generate_until``: scorekit's generation
  metrics get all golds at once, so a sample is correct when it matches any of them (lm-eval
  would call them once per gold and report 1 if any call is non-zero).
- Filter fallbacks: the ``consistency_rate`` metric is given the fallbacks of the task's
  ``filter_list`` (``[invalid]`` and any ``fallback:`` a step sets) as its ``fallback`` argument,
  unless the ``metric_list`` entry sets one, so an answer the filters could not extract counts as
  unparsed, as in ``scorekit robustness``.
- Independent samples on backends that honour a per-request seed: with ``repeats: R`` > 1 and a
  ``seed`` S in ``generation_kwargs`` (``--gen_kwargs seed=S``), the R samples of a document are
  sent as R requests with seeds ``S*R + i`` (i = 0..R-1), so two base seeds never share a sample
  seed. lm-eval otherwise sends the same request R times, and its OpenAI-compatible models put
  one seed (``seed=`` model argument, default 1234) into every request: a server that honours
  seeds (vLLM's and SGLang's OpenAI servers) then returns R identical samples. The responses
  are gathered back into one request of R responses before the filters run, so filters,
  ``process_results`` and the samples log see exactly the layout of ``repeats`` (the logged
  generation kwargs list the seeds under ``sample_seeds``). Without ``seed`` nothing changes.
  Only backends that take ``seed`` per request accept it (lm-eval's API models, ``vllm``);
  ``hf`` rejects unknown generation arguments, and needs none: its samples are drawn one after
  another from torch's random state.

lm-eval 0.5 (:mod:`scorekit.lm_eval.compat`): the class is combined with lm-eval's class for the
task's ``output_type`` when it is built; its scorers compute scorekit's metrics for every output
type and all golds at once, so only the seeded samples and the names of the per-k / per-tau
keys (aggregated and ranked like their metric) are added here.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask

import scorekit.lm_eval.registry  # noqa: F401  (metric names must resolve when the task is built)
from scorekit.lm_eval import compat
from scorekit.lm_eval.metrics import GENERATE_METRICS, MULTIPLE_CHOICE_METRICS, consistency_rate
from scorekit.robustness.task_variants import filter_fallbacks

__all__ = ["ScorekitTask", "sample_seeds"]

# metrics told what the task's filters write when they extract nothing (an unparsed answer)
FALLBACK_METRICS = (consistency_rate,)


def sample_seeds(seed: int, repeats: int) -> list[int]:
    """Per-sample seeds ``seed*repeats + i`` (distinct within a document and across base seeds)."""
    return [seed * repeats + i for i in range(repeats)]


class ScorekitTask(ConfigurableTask):
    def __new__(cls, *args: Any, config: dict | None = None, **kwargs: Any) -> ScorekitTask:
        return super().__new__(compat.concrete_task_class(cls, config))

    def __init__(self, *args: Any, config: dict | None = None, **kwargs: Any) -> None:
        if config is not None and "class" in config:
            config = {k: v for k, v in config.items() if k != "class"}
        super().__init__(*args, config=config, **kwargs)
        fallback = sorted(filter_fallbacks((config or {}).get("filter_list")))
        if compat.SCORERS:  # `metric: !function scorekit.lm_eval.metrics.<name>` gets the scorer-shaped call
            for scorer in self.scorers:
                scorer.metrics = [compat.with_default_kwargs(compat.scorer_metric(m, self.OUTPUT_TYPE), FALLBACK_METRICS,
                                                             fallback=fallback) for m in scorer.metrics or []]
        else:
            for name, fn in self._metric_fn_list.items():
                if fn in FALLBACK_METRICS:
                    self._metric_fn_kwargs.setdefault(name, {}).setdefault("fallback", fallback)

    # --- independent samples -----------------------------------------------------------------

    def _seeded_repeats(self) -> tuple[int, int] | None:
        """(base seed, repeats) when the samples of a document go out as separate seeded requests."""
        repeats = int(self.config.repeats or 1)
        seed = (self.config.generation_kwargs or {}).get("seed")
        if self.OUTPUT_TYPE != "generate_until" or repeats < 2 or seed is None:
            return None
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"task {self.config.task}: generation_kwargs seed must be an integer >= 0, got {seed!r}")
        return seed, repeats

    def construct_requests(self, doc: dict, ctx: Any, **kwargs: Any) -> Any:
        built = super().construct_requests(doc, ctx, **kwargs)
        seeded = self._seeded_repeats()
        request = built[0] if isinstance(built, list) and len(built) == 1 else built  # 0.5: a list of one
        if seeded is None or not isinstance(request, Instance):
            return built
        seed, repeats = seeded
        context, gen_kwargs, *rest = request.arguments
        return [compat.clone_request(request, idx=i, repeats=1,
                                     arguments=(context, {**deepcopy(gen_kwargs), "seed": s}, *rest))
                for i, s in enumerate(sample_seeds(seed, repeats))]

    def apply_filters(self) -> Any:
        seeded = self._seeded_repeats()
        if seeded is not None and self._instances:
            self._instances = _gather_samples(self._instances, *seeded)
        return super().apply_filters()

    # --- results -------------------------------------------------------------------------------

    def _gold_indices(self, doc: dict, choices: list[str]) -> int | list[int]:
        gold = self.doc_to_text(doc) if self.multiple_input else self.doc_to_target(doc)
        if isinstance(gold, str):
            if gold not in choices:
                raise ValueError(f"task {self.config.task}: gold {gold!r} is not one of the choices {choices!r}")
            return choices.index(gold)
        return list(gold) if isinstance(gold, (list, tuple)) else int(gold)

    def process_results(self, doc: dict, results: list) -> dict | None:
        if compat.SCORERS:  # 0.5: the scorers compute every metric (None = no process_results of the task)
            return super().process_results(doc, results)
        if self.OUTPUT_TYPE == "generate_until" and self.multiple_target and not callable(self.config.process_results):
            return self._several_golds(doc, results)
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
            self._add(out, name, MULTIPLE_CHOICE_METRICS[name](references=[gold], predictions=[lls],
                                                               **self._metric_fn_kwargs[name]))
        return out

    def _several_golds(self, doc: dict, results: list) -> dict:
        """scorekit's generation metrics with every gold in one call; other metrics as lm-eval does."""
        ours = [name for name, fn in self._metric_fn_list.items() if fn in GENERATE_METRICS.values()]
        if not ours:
            return super().process_results(doc, results)
        others = {k: v for k, v in self._metric_fn_list.items() if k not in ours}
        full = self._metric_fn_list
        self._metric_fn_list = others
        try:
            out = super().process_results(doc, results) if others else {}
        finally:
            self._metric_fn_list = full
        golds = self.doc_to_target(doc)
        golds = list(golds) if isinstance(golds, (list, tuple)) else [golds]
        for name in ours:
            self._add(out, name, full[name](references=[golds], predictions=[results[0]], **self._metric_fn_kwargs[name]))
        return out

    def _add(self, out: dict, name: str, value: Any) -> None:
        if isinstance(value, dict):  # one key per k / tau, aggregated like the metric
            for key, v in value.items():
                out[key] = v
                self._aggregation_list.setdefault(key, self._aggregation_list[name])
                self._higher_is_better.setdefault(key, self._higher_is_better[name])
        else:
            out[name] = value

    # --- lm-eval 0.5: per-k / per-tau keys ------------------------------------------------------

    def _derived_keys(self) -> dict[str, Any]:
        """``{"g_pass_at_k@2_tau1": its Metric, ...}``: the keys scorekit's metrics returned (0.5)."""
        out: dict[str, Any] = {}
        for scorer in self.scorers:
            ours = {m.name: m for m in scorer.metrics or [] if hasattr(m.fn, "scorekit_fn")}
            for doc in list(scorer.reduced_docs.values())[:1]:  # every document has the same keys
                for key in doc:
                    parent = key.split("@", 1)[0]
                    if key not in ours and parent in ours:
                        out[key] = ours[parent]
        return out

    def aggregation(self) -> dict:
        out = super().aggregation()
        if compat.SCORERS:
            out.update({key: m.aggregation for key, m in self._derived_keys().items()})
        return out

    def higher_is_better(self) -> dict:
        out = super().higher_is_better()
        if compat.SCORERS:
            out.update({key: m.higher_is_better for key, m in self._derived_keys().items()})
        return out


def _gather_samples(instances: list[Instance], seed: int, repeats: int) -> list[Instance]:
    """One request per document holding its samples' responses in sample order (the layout of
    ``repeats``), its generation kwargs without the per-sample seed plus ``sample_seeds``."""
    by_doc: dict[Any, list[Instance]] = {}
    for inst in instances:
        by_doc.setdefault(inst.doc_id, []).append(inst)
    gathered = []
    for doc_id, parts in by_doc.items():
        parts.sort(key=lambda inst: inst.idx)
        first = parts[0]
        context, gen_kwargs, *rest = first.arguments
        kwargs = {**{k: v for k, v in gen_kwargs.items() if k != "seed"}, "seed": seed,
                  "sample_seeds": sample_seeds(seed, repeats)}
        merged = compat.clone_request(first, arguments=(context, kwargs, *rest), idx=0, repeats=repeats)
        merged.resps = [r for part in parts for r in part.resps]
        gathered.append(merged)
    return gathered
