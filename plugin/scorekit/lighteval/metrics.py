"""scorekit metrics as lighteval 0.13 ``Metric`` objects.

Every class here is a thin wrapper: it pulls numbers out of lighteval's ``Doc`` /
``ModelResponse`` and calls the matching function of :mod:`scorekit.metrics`, which holds the
formula. They live in an importable module (not in a ``--custom-tasks`` file) so lighteval can
pickle them, and they fix defects of lighteval's built-ins:

* consistency rate (SCORE) -- lighteval has none; a corpus-level metric grouping samples by
  question (:func:`consistency_rate_metric`);
* G-Pass@k / mG-Pass@k -- names stay consistent for any k list and prefix (lighteval's prefix
  gives ``mmath_g-pass@4``), k > n is refused (:func:`g_pass_at_k_metric`);
* pass@k -- refuses k > n (lighteval returns 1.0) (:func:`pass_at_k_metric`);
* normalized multi-choice probability -- computed as exp(l_g - logsumexp(l)), so it does not
  underflow to 0 for log-probs near -800 (:func:`normalized_mc_probability_metric`);
* recall@k honours k in its name and value; MRR states its tie rule; avg@k / maj@k refuse
  fewer samples than k with a clear message; string metrics (exact match modes, bag-of-words F1,
  edit similarity, extractiveness) need no extra dependency.

Parametrized names: lighteval's ``task@k=2`` (and ``Metric.__call__({"k": 2})``) sets attributes
of a metric's computation without renaming the metric, so its built-ins report pass@2 under the
name they were built with (``pass@4``, and ``pass@1`` too when the task has both). The names of
scorekit's ``pass@k``, ``avg@k``, ``maj@k`` and ``recall@k`` metrics are read from their
computation's current parameters instead: after ``@k=2`` they are ``pass@2``, ``avg@2``, ...

Names: value names (columns) and ``higher_is_better`` come from :mod:`scorekit.metric_specs`, the
one specification both harnesses follow (``pass@4``, ``recall@2``, ``gold_probability``,
``exact_match_prefix``...); :data:`FACTORIES` maps each spec name to its factory here,
``<name>_metric``: built by :func:`from_spec` for a standard spec (one value per document under
a fixed column), written by hand for the k / tau families, extractiveness and the consistency rate.

Factories return a fresh ``Metric`` each call; put them in ``LightevalTaskConfig.metrics``.
Sample-level metrics aggregate with ``np.mean`` (lighteval then reports a standard error);
corpus-level ones return a dict of values (the consistency rate with a confidence interval over
questions), for which lighteval computes no bootstrap of its own.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
from lighteval.metrics.metrics_corpus import CorpusLevelComputation
from lighteval.metrics.metrics_sample import SampleLevelComputation, SamplingMetric
from lighteval.metrics.normalizations import LogProbNormalization, normalize_log_probs
from lighteval.metrics.sample_preparator import Preparator
from lighteval.metrics.utils.metric_utils import (
    CorpusLevelMetricGrouping,
    SampleLevelMetric,
    SampleLevelMetricGrouping,
)
from lighteval.models.model_output import ModelResponse
from lighteval.tasks.requests import Doc, SamplingMethod

from scorekit import metrics as M
from scorekit.lighteval.sampling import sample_when_asked
from scorekit.metric_specs import SPECS, MetricSpec, column, spec, tau_label

__all__ = [f"{s.name}_metric" for s in SPECS] + [
    "NamedSampleLevelMetric", "GoldMatch", "loose_text", "UnmatchedAudit", "CheckedMean", "StrippedText",
    "ConsistencyPreparator", "ConsistencyRateCorpus", "PassAtK", "GPassAtK", "AvgAtK", "MajAtK", "LogprobValue",
    "RecallAtK", "StringMetric", "exact_match_metric", "Extractiveness", "tau_label", "from_spec", "FACTORIES"]

logger = logging.getLogger(__name__)
sample_when_asked()  # sampling metrics get samples whatever the model's generation defaults


class NamedSampleLevelMetric(SampleLevelMetric):
    """A SampleLevelMetric whose name is its computation's ``metric_name``, which follows the
    computation's current parameters (lighteval's ``task@k=2`` sets them after the metric is
    built). Assigning a name (dataclass init, ``Metric.__call__``) changes nothing."""

    @property
    def metric_name(self) -> str:  # type: ignore[override]
        return self.sample_level_fn.metric_name

    @metric_name.setter
    def metric_name(self, value: str) -> None:
        pass


def _where(doc: Doc) -> str:
    return f"task {doc.task_name or '?'}, doc {doc.id or '?'}"


# --------------------------------------------------------------------------------------------
# Scorers and answer extractors: picklable callables (doc, text) -> value
# --------------------------------------------------------------------------------------------


class GoldMatch:
    """Correctness of one generation: :func:`scorekit.metrics.exact_match` against the golds.

    ``(doc, text) -> 0.0 | 1.0``; ``strip`` trims whitespace of both sides first, ``mode`` is
    ``"full"``, ``"prefix"`` or ``"suffix"``, ``normalize`` an optional picklable str -> str.
    """

    def __init__(self, mode: str = "full", normalize: Callable[[str], str] | None = None, strip: bool = True):
        if mode not in ("full", "prefix", "suffix"):
            raise ValueError(f"mode must be 'full', 'prefix' or 'suffix', got {mode!r}")
        self.mode, self.normalize, self.strip = mode, normalize, strip

    def __call__(self, doc: Doc, text: str) -> float:
        golds = doc.get_golds()
        if self.strip:
            text, golds = text.strip(), [g.strip() for g in golds]
        return M.exact_match(text, golds, mode=self.mode, normalize=self.normalize)

    def __repr__(self) -> str:
        return f"GoldMatch(mode={self.mode!r}, strip={self.strip})"


def loose_text(text: str) -> str:
    """A looser comparison form: case folded, punctuation removed, runs of spaces made one
    (``" (A)."`` -> ``"a"``, ``"Paris!"`` -> ``"paris"``). Picklable, so it can be a
    ``GoldMatch(normalize=loose_text)`` scorer's ``normalize``.

    >>> loose_text(" (A)."), loose_text("New  York, NY")
    ('a', 'new york ny')
    """
    return " ".join(_PUNCTUATION.sub(" ", str(text)).casefold().split())


_PUNCTUATION = re.compile(r"[^\w\s]+")


class StrippedText:
    """Answer extractor for consistency: the generation with whitespace trimmed; None if empty."""

    def __call__(self, doc: Doc, text: str) -> Hashable | None:
        text = text.strip()
        return text or None

    def __repr__(self) -> str:
        return "StrippedText()"


# --------------------------------------------------------------------------------------------
# Consistency rate (corpus level)
# --------------------------------------------------------------------------------------------


class ConsistencyPreparator(Preparator):
    """Per sample: ``{name: {"group": question key, "answers": [extracted answers]}}``.

    ``group_field`` names the key in ``doc.specific`` that identifies the question; samples
    sharing it are one question's answers (prompt or option-order variants in one task). With
    ``group_field=None`` each doc is its own question and its ``num_samples`` generations are the
    answers (non-greedy robustness). ``extract(doc, text) -> hashable | None`` turns a
    generation into a comparable answer (None = unparsed, agrees with nothing).
    """

    def __init__(self, name: str = "consistency_rate", group_field: str | None = "question_id",
                 extract: Callable[[Doc, str], Any] | None = None):
        self.name, self.group_field = name, group_field
        self.extract = extract if extract is not None else StrippedText()

    def prepare(self, doc: Doc, model_response: ModelResponse, **kwargs) -> dict:
        texts = model_response.final_text
        if not texts:
            raise ValueError(f"{_where(doc)}: the model returned no generation")
        if self.group_field is None:
            group = f"{doc.task_name}/{doc.id}"
            answers = [self.extract(doc, t) for t in texts]
        else:
            specific = doc.specific or {}
            if self.group_field not in specific:
                raise ValueError(f"{_where(doc)}: doc.specific has no {self.group_field!r} to group answers by question")
            group = str(specific[self.group_field])
            answers = [self.extract(doc, texts[0])]
        return {self.name: {"group": group, "answers": answers}}

    def __str__(self) -> str:
        return f"ConsistencyPreparator(group_field={self.group_field!r}, extract={self.extract!r})"


class ConsistencyRateCorpus(CorpusLevelComputation):
    """Corpus value: :func:`scorekit.metrics.consistency_rate` over the answers grouped by question.

    Returns ``{name: CR}`` plus, when ``confidence`` is set, ``{name}_ci_low`` / ``{name}_ci_high``
    from :func:`scorekit.metrics.consistency_rate_interval` (over questions; nan below 10 questions).
    ``pooled=True`` is lm-eval's SCORE definition (agreeing pairs over all pairs).
    """

    def __init__(self, name: str = "consistency_rate", *, pooled: bool = True, confidence: float | None = 0.95,
                 equal: Callable[[Any, Any], bool] | None = None):
        self.name, self.pooled, self.confidence, self.equal = name, pooled, confidence, equal

    def compute_corpus(self, items: list[dict]) -> dict[str, float]:
        by_question: dict[str, list[Any]] = {}
        for item in items:
            by_question.setdefault(item["group"], []).extend(item["answers"])
        groups = list(by_question.values())
        out = {self.name: M.consistency_rate(groups, equal=self.equal, pooled=self.pooled)}
        if self.confidence is not None:
            lo, hi = M.consistency_rate_interval(groups, equal=self.equal, pooled=self.pooled,
                                                 confidence=self.confidence)
            out[f"{self.name}_ci_low"], out[f"{self.name}_ci_high"] = lo, hi
        return out

    def __str__(self) -> str:
        return f"ConsistencyRateCorpus(name={self.name!r}, pooled={self.pooled}, confidence={self.confidence})"


def consistency_rate_metric(
    name: str = "consistency_rate",
    *,
    group_field: str | None = "question_id",
    extract: Callable[[Doc, str], Any] | None = None,
    pooled: bool = True,
    confidence: float | None = 0.95,
    equal: Callable[[Any, Any], bool] | None = None,
) -> CorpusLevelMetricGrouping:
    """Consistency rate of a task's answers, grouped by question (see :class:`ConsistencyPreparator`)."""
    return CorpusLevelMetricGrouping(
        metric_name=[name],
        higher_is_better={name: spec("consistency_rate").higher_is_better},
        category=SamplingMethod.GENERATIVE,
        sample_level_fn=ConsistencyPreparator(name, group_field, extract),
        corpus_level_fn={name: ConsistencyRateCorpus(name, pooled=pooled, confidence=confidence, equal=equal)},
    )


# --------------------------------------------------------------------------------------------
# Sampling metrics: pass@k, G-Pass@k, mG-Pass@k, avg@k, maj@k
# --------------------------------------------------------------------------------------------


class UnmatchedAudit:
    """Counts, for a metric scoring generations with the default :class:`GoldMatch` (exact match
    after trimming spaces, no ``normalize``), how many generations matched a gold and how many
    would under :func:`loose_text` -- so a run where none matches but many would (``"A."`` for
    gold ``"A"``: every value 0) is said, not silently reported as 0. Other scorers are not
    second-guessed (nothing is counted)."""

    def __init__(self) -> None:
        self.generations = self.matched = self.loosely = 0
        self.example: tuple[str, str] | None = None
        self.tasks: set[str] = set()
        self.warned = False

    def add(self, scorer: Any, doc: Doc, text: str, value: float) -> None:
        if not isinstance(scorer, GoldMatch) or scorer.normalize is not None:
            return
        self.generations += 1
        self.tasks.add(str(doc.task_name or "?"))
        if value >= 1.0:
            self.matched += 1
            return
        golds = doc.get_golds()
        if M.exact_match(loose_text(text), [loose_text(g) for g in golds], mode=scorer.mode) >= 1.0:
            self.loosely += 1
            if self.example is None:
                self.example = (text, golds[0])

    def note(self, names: Sequence[str]) -> str | None:
        """The warning when no generation matched exactly but some match loosely, else None."""
        if self.matched or not self.loosely:
            return None
        said, gold = self.example  # type: ignore[misc]
        return (f"scorekit {', '.join(names)} ({', '.join(sorted(self.tasks))}): none of the {self.generations} "
                f"generations equals a gold after trimming spaces (the default scorer), but {self.loosely} do when "
                f"case and punctuation are ignored (e.g. {said!r} for gold {gold!r}), so every value is 0; pass "
                "scorer=GoldMatch(normalize=loose_text) or your own scorer(doc, text) -> 0/1 (docs/lighteval.md)")


class CheckedMean:
    """``np.mean`` as a sample-level metric's corpus aggregation, which first logs
    :meth:`UnmatchedAudit.note` (once per metric). Named ``mean`` so that lighteval still picks
    its standard error of the mean (it looks for "mean" in the aggregation's name)."""

    __name__ = "mean"

    def __init__(self, fn: "_Sampled") -> None:
        self.fn = fn

    def __call__(self, values: Sequence[float]) -> float:
        audit = self.fn.audit
        if not audit.warned:
            names = self.fn.metric_names if hasattr(self.fn, "metric_names") else [self.fn.metric_name]
            note = audit.note(names)
            if note:
                audit.warned = True
                logger.warning(note)
        return np.mean(values)

    def __repr__(self) -> str:
        return "CheckedMean()"


class _Sampled(SamplingMetric, SampleLevelComputation):
    """Base: scores the first n generations of a doc with ``scorer(doc, text)``.

    Subclassing lighteval's ``SamplingMetric`` makes lighteval request ``num_samples()``
    generations per doc. ``n=None`` means "all generations the doc got". Fewer generations
    than needed raise ValueError naming the task and doc (never a silent fallback).
    """

    def __init__(self, n: int | None, scorer: Callable[[Doc, str], float] | None, needed: int):
        # SamplingMetric.__init__ is not called: its normalisation/scoring options are replaced by ``scorer``.
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ValueError(f"n must be a positive int or None, got {n!r}")
        if n is not None and needed > n:
            raise ValueError(f"k={needed} is larger than n={n}; the metric is only defined for k <= n")
        self.n = n
        self.scorer = scorer if scorer is not None else GoldMatch()
        self._needed = needed
        self.audit = UnmatchedAudit()

    def _texts(self, doc: Doc, model_response: ModelResponse) -> list[str]:
        texts = model_response.final_text
        n = self.n if self.n is not None else len(texts)
        if len(texts) < max(n, self._needed):
            raise ValueError(
                f"{_where(doc)}: {len(texts)} generation(s), but {type(self).__name__} needs "
                f"{max(n, self._needed)} (n={self.n}, k={self._needed}); set num_samples and a temperature > 0"
            )
        return list(texts[:n])

    def _score(self, doc: Doc, text: str) -> float:
        value = float(self.scorer(doc, text))
        self.audit.add(self.scorer, doc, text, value)
        return value

    def _correct(self, doc: Doc, model_response: ModelResponse) -> tuple[int, int]:
        texts = self._texts(doc, model_response)
        c = int(sum(self._score(doc, t) >= 1.0 for t in texts))
        return len(texts), c

    def num_samples(self) -> int:
        return self.n if self.n is not None else self._needed

    def __str__(self) -> str:
        return f"{type(self).__name__}(n={self.n}, needed={self._needed}, scorer={self.scorer!r})"


class _OneK(_Sampled):
    """Base of the metrics with one ``k``: ``metric_name`` is the column of spec ``spec_name``
    for the current k, with ``prefix_`` in front (``pass@2`` after lighteval's ``@k=2``).
    ``first_k``: the metric reads exactly the first k generations (n follows k)."""

    spec_name = ""
    first_k = False

    def __init__(self, k: int, n: int | None = None, scorer: Callable[[Doc, str], float] | None = None,
                 prefix: str | None = None):
        super().__init__(k if self.first_k else n, scorer, k)
        self.k = k
        self.prefix = prefix

    @property
    def k(self) -> int:
        return self._k

    @k.setter
    def k(self, value: int) -> None:
        self._k = self._needed = value
        if self.first_k:
            self.n = value

    @property
    def metric_name(self) -> str:
        return _prefixed(self.prefix, column(self.spec_name, k=self.k))


class PassAtK(_OneK):
    """pass@k of one doc: :func:`scorekit.metrics.pass_at_k` (n generations, c correct). k > n raises."""

    spec_name = "pass_at_k"

    def compute(self, doc: Doc, model_response: ModelResponse, **kwargs) -> float:
        n, c = self._correct(doc, model_response)
        return float(M.pass_at_k(n, c, self.k))


def _named(name: str, fn: SampleLevelComputation, category: SamplingMethod = SamplingMethod.GENERATIVE) -> NamedSampleLevelMetric:
    return NamedSampleLevelMetric(metric_name=fn.metric_name, higher_is_better=spec(name).higher_is_better, category=category,
                                  sample_level_fn=fn, corpus_level_fn=CheckedMean(fn) if isinstance(fn, _Sampled) else np.mean)


def pass_at_k_metric(k: int, n: int | None = None, *, scorer: Callable[[Doc, str], float] | None = None,
                     prefix: str | None = None) -> NamedSampleLevelMetric:
    """``{prefix_}pass@{k}`` averaged over docs. Refuses k > n (at construction when n is given,
    else on the first doc with fewer than k generations)."""
    return _named("pass_at_k", PassAtK(k, n, scorer, prefix))


def _prefixed(prefix: str | None, name: str) -> str:
    return f"{prefix}_{name}" if prefix else name


class GPassAtK(_Sampled):
    """G-Pass@k_tau for every k and tau, plus mG-Pass@k, of one doc (scorekit.metrics formulas).

    Names: ``{prefix_}g-pass@{k}_{tau}`` and ``{prefix_}mg-pass@{k}``; without a prefix these are
    exactly lighteval's names (``g-pass@16_0.5``, ``mg-pass@16``). ``metric_names`` follows the
    current ``k`` / ``thresholds``, so ``Metric.__call__(sample_params)`` renames correctly.
    """

    def __init__(self, k: int | Sequence[int], n: int | None = None, thresholds: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 1.0),
                 name_prefix: str | None = None, scorer: Callable[[Doc, str], float] | None = None):
        ks = [k] if isinstance(k, int) else list(k)
        if not ks:
            raise ValueError("k is empty")
        if len(set(ks)) != len(ks) or len(set(map(tau_label, thresholds))) != len(thresholds):
            raise ValueError(f"duplicate k or threshold values: k={ks}, thresholds={list(thresholds)}")
        for t in thresholds:
            if not 0.0 <= float(t) <= 1.0:
                raise ValueError(f"thresholds must be in [0, 1], got {t!r}")
        super().__init__(n, scorer, max(ks))
        self._k = ks
        self.thresholds = [float(t) for t in thresholds]
        self.name_prefix = name_prefix

    @property
    def k(self) -> list[int]:
        return list(self._k)

    @k.setter
    def k(self, value: int | Sequence[int]) -> None:
        self._k = [value] if isinstance(value, int) else list(value)
        self._needed = max(self._k)

    @property
    def metric_names(self) -> list[str]:
        names = []
        for k in self._k:
            names += [_prefixed(self.name_prefix, column("g_pass_at_k", k=k, tau=tau_label(t))) for t in self.thresholds]
            names.append(_prefixed(self.name_prefix, column("mg_pass_at_k", k=k)))
        return names

    def compute(self, doc: Doc, model_response: ModelResponse, **kwargs) -> dict[str, float]:
        n, c = self._correct(doc, model_response)
        return dict(self.values(n, c))

    def values(self, n: int, c: int) -> dict[str, float]:
        """All metric values for n generations with c correct; each value depends on (n, c) only,
        so they are computed once per distinct pair (at most n + 1 per n) and reused."""
        key = (n, c, tuple(self._k), tuple(self.thresholds), self.name_prefix)
        cache = self.__dict__.setdefault("_cache", {})
        if key not in cache:  # values in the order of metric_names: per k, every tau, then mG-Pass@k
            values = [float(v) for k in self._k
                      for v in [*(M.g_pass_at_k(n, c, k, t) for t in self.thresholds), M.mg_pass_at_k(n, c, k)]]
            cache[key] = dict(zip(self.metric_names, values))
        return cache[key]


def g_pass_at_k_metric(k: int | Sequence[int], n: int | None = None, *,
                       thresholds: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 1.0), prefix: str | None = None,
                       scorer: Callable[[Doc, str], float] | None = None) -> SampleLevelMetricGrouping:
    """G-Pass@k_tau for each k in ``k`` and tau in ``thresholds`` and mG-Pass@k, averaged over docs."""
    fn = GPassAtK(k, n, thresholds, prefix, scorer)
    names = fn.metric_names
    return SampleLevelMetricGrouping(
        metric_name=names,
        higher_is_better=dict.fromkeys(names, spec("g_pass_at_k").higher_is_better),
        category=SamplingMethod.GENERATIVE,
        sample_level_fn=fn,
        corpus_level_fn=CheckedMean(fn),  # one callable: lighteval maps it onto the current metric_name list
    )


def mg_pass_at_k_metric(k: int | Sequence[int], n: int | None = None, *, prefix: str | None = None,
                        scorer: Callable[[Doc, str], float] | None = None) -> SampleLevelMetricGrouping:
    """mG-Pass@k alone (:func:`g_pass_at_k_metric` without thresholds), averaged over docs."""
    return g_pass_at_k_metric(k, n, thresholds=(), prefix=prefix, scorer=scorer)


class AvgAtK(_OneK):
    """avg@k: :func:`scorekit.metrics.avg_at_k` of the first k generations' scores."""

    spec_name = "avg_at_k"
    first_k = True

    def __init__(self, k: int, scorer: Callable[[Doc, str], float] | None = None, prefix: str | None = None):
        super().__init__(k, k, scorer, prefix)

    def compute(self, doc: Doc, model_response: ModelResponse, **kwargs) -> float:
        texts = self._texts(doc, model_response)
        return float(M.avg_at_k([self._score(doc, t) for t in texts], self.k))


def avg_at_k_metric(k: int, *, scorer: Callable[[Doc, str], float] | None = None,
                    prefix: str | None = None) -> NamedSampleLevelMetric:
    """``{prefix_}avg@{k}``: mean correctness of the first k generations, averaged over docs."""
    return _named("avg_at_k", AvgAtK(k, scorer, prefix))


class MajAtK(_OneK):
    """maj@k: :func:`scorekit.metrics.maj_at_k` of the first k extracted answers against the gold.

    ``extract(doc, text)`` gives the answer (None = unparsed, never voted for); the gold is
    ``extract(doc, gold text)``. Ties go to the answer seen first.
    """

    spec_name = "maj_at_k"
    first_k = True

    def __init__(self, k: int, extract: Callable[[Doc, str], Any] | None = None, prefix: str | None = None):
        super().__init__(k, k, None, prefix)
        self.extract = extract if extract is not None else StrippedText()

    def compute(self, doc: Doc, model_response: ModelResponse, **kwargs) -> float:
        golds = doc.get_golds()
        if len(golds) != 1:
            raise ValueError(f"{_where(doc)}: maj@k needs exactly one gold, got {len(golds)}")
        answers = [self.extract(doc, t) for t in self._texts(doc, model_response)]
        return float(M.maj_at_k(answers, self.extract(doc, golds[0]), self.k))


def maj_at_k_metric(k: int, *, extract: Callable[[Doc, str], Any] | None = None,
                    prefix: str | None = None) -> NamedSampleLevelMetric:
    """``{prefix_}maj@{k}``: majority vote of k generations is correct, averaged over docs."""
    return _named("maj_at_k", MajAtK(k, extract, prefix))


# --------------------------------------------------------------------------------------------
# Log-probability metrics
# --------------------------------------------------------------------------------------------


class _LogprobMetric(SampleLevelComputation):
    """Base: the (optionally normalized) log-probs of the doc's choices and its gold indices."""

    def __init__(self, normalization: LogProbNormalization | None = None):
        self.normalization = normalization

    def _inputs(self, doc: Doc, model_response: ModelResponse) -> tuple[list[float], Any]:
        n_choices = len(doc.choices)
        logprobs = list(model_response.logprobs[:n_choices])
        if len(logprobs) != n_choices:
            raise ValueError(f"{_where(doc)}: {len(logprobs)} log-probabilities for {n_choices} choices")
        if self.normalization is not None:
            unconditioned = None
            if len(model_response.logprobs) == 2 * n_choices:
                unconditioned = model_response.logprobs[n_choices:]
            logprobs = normalize_log_probs(self.normalization, logprobs, unconditioned, doc.choices,
                                           model_response.output_tokens[:n_choices])
        return logprobs, doc.gold_index

    def __str__(self) -> str:
        return f"{type(self).__name__}(normalization={self.normalization})"


def _suffix(normalization: LogProbNormalization | None) -> str:
    return f"_{normalization.name}" if normalization is not None else ""


class LogprobValue(_LogprobMetric):
    """The value of a ``multiple_choice`` spec's formula (``formula(logprobs, gold, **options)``)
    for one doc; ``name`` is a :class:`~scorekit.metric_specs.MetricSpec` or the name of one of
    scorekit's: ``normalized_mc_probability`` (max_g exp(l_g) / sum_j exp(l_j), no underflow),
    ``gold_probability`` (max_g exp(l_g)), ``loglikelihood_accuracy`` (1[argmax l in golds], the
    first maximal choice wins ties), ``mrr`` (1 / rank of the best gold, ties by choice order)."""

    def __init__(self, name: str | MetricSpec, normalization: LogProbNormalization | None = None):
        super().__init__(normalization)
        s = spec(name) if isinstance(name, str) else name
        self.name, self.options = s.name, dict(s.options)
        self.fn = s.formula or getattr(M, s.function)

    def compute(self, doc: Doc, model_response: ModelResponse, **kwargs) -> float:
        return self.fn(*self._inputs(doc, model_response), **self.options)

    def __str__(self) -> str:
        return f"LogprobValue({self.name!r}, normalization={self.normalization})"


class RecallAtK(_LogprobMetric):
    """1[a gold is among the top-k choices]: :func:`scorekit.metrics.recall_at_k` (k honoured).
    ``metric_name`` = ``recall@{k}`` (plus the normalization suffix) for the current k."""

    def __init__(self, k: int, normalization: LogProbNormalization | None = None):
        super().__init__(normalization)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be an int >= 1, got {k!r}")
        self.k = k

    @property
    def metric_name(self) -> str:
        return column("recall_at_k", k=self.k) + _suffix(self.normalization)

    def compute(self, doc: Doc, model_response: ModelResponse, **kwargs) -> float:
        return M.recall_at_k(*self._inputs(doc, model_response), self.k)


def recall_at_k_metric(k: int, normalization: LogProbNormalization | None = None) -> NamedSampleLevelMetric:
    """``recall@{k}``."""
    return _named("recall_at_k", RecallAtK(k, normalization), SamplingMethod.LOGPROBS)


# --------------------------------------------------------------------------------------------
# String metrics (first generation against the golds)
# --------------------------------------------------------------------------------------------


class StringMetric(SampleLevelComputation):
    """``fn(prediction, gold, **options)`` of the first generation, the best over the golds (the
    largest, or the smallest with ``higher_is_better=False``).

    ``kind`` is the formula: a :mod:`scorekit.metrics` function's name (``"exact_match"``,
    ``"bow_f1"``, ``"edit_similarity"``) or the function itself; ``strip`` trims whitespace of
    the generation and the golds first.
    """

    def __init__(self, kind: str | Callable[..., float], strip: bool = True, *, higher_is_better: bool = True,
                 **options: Any):
        fn = getattr(M, kind, None) if isinstance(kind, str) else kind
        if not callable(fn):
            raise ValueError(f"kind must be a scorekit.metrics function or its name, got {kind!r}")
        self.kind = kind if isinstance(kind, str) else fn.__name__
        self.fn, self.strip, self.higher_is_better, self.options = fn, strip, higher_is_better, options

    def compute(self, doc: Doc, model_response: ModelResponse, **kwargs) -> float:
        texts = model_response.final_text
        if not texts:
            raise ValueError(f"{_where(doc)}: the model returned no generation")
        pred, golds = texts[0], doc.get_golds()
        if not golds:
            raise ValueError(f"{_where(doc)}: the doc has no gold")
        if self.strip:
            pred, golds = pred.strip(), [g.strip() for g in golds]
        return float((max if self.higher_is_better else min)(self.fn(pred, g, **self.options) for g in golds))

    def __str__(self) -> str:
        return f"StringMetric(kind={self.kind!r}, strip={self.strip}, options={self.options})"


def _generation_metric(name: str, higher_is_better: bool, fn: StringMetric) -> SampleLevelMetric:
    return SampleLevelMetric(metric_name=name, higher_is_better=higher_is_better, category=SamplingMethod.GENERATIVE,
                             sample_level_fn=fn, corpus_level_fn=np.mean)


def exact_match_metric(mode: str = "full", *, normalize: Callable[[str], str] | None = None, strip: bool = True,
                       name: str | None = None) -> SampleLevelMetric:
    """``exact_match`` / ``exact_match_prefix`` / ``exact_match_suffix`` (or ``name``)."""
    return _generation_metric(name or ("exact_match" if mode == "full" else column(f"exact_match_{mode}")), True,
                              StringMetric("exact_match", strip, mode=mode, normalize=normalize))


class Extractiveness(SampleLevelComputation):
    """coverage / density / compression of the generation against ``doc.specific[source_field]``."""

    def __init__(self, source_field: str = "text", prefix: str | None = None):
        self.source_field, self.prefix = source_field, prefix

    def _name(self, part: str) -> str:
        return f"{self.prefix}_{part}" if self.prefix else column("extractiveness", part=part)

    @property
    def metric_names(self) -> list[str]:
        return [self._name(k) for k in ("coverage", "density", "compression")]

    def compute(self, doc: Doc, model_response: ModelResponse, **kwargs) -> dict[str, float]:
        specific = doc.specific or {}
        if self.source_field not in specific:
            raise ValueError(f"{_where(doc)}: doc.specific has no {self.source_field!r} (the source text)")
        values = M.extractiveness(specific[self.source_field], model_response.final_text[0])
        return {self._name(k): v for k, v in values.items()}


def extractiveness_metric(source_field: str = "text", prefix: str | None = None) -> SampleLevelMetricGrouping:
    """Extractiveness (Grusky et al. 2018) of the first generation against a source in ``doc.specific``."""
    fn = Extractiveness(source_field, prefix)
    names = fn.metric_names
    return SampleLevelMetricGrouping(metric_name=names, higher_is_better=dict.fromkeys(names, True),
                                     category=SamplingMethod.GENERATIVE, sample_level_fn=fn,
                                     corpus_level_fn=dict.fromkeys(names, np.mean))


def from_spec(spec: MetricSpec) -> Callable[..., SampleLevelMetric]:
    """The lighteval factory ``<name>_metric`` of a standard spec
    (:attr:`~scorekit.metrics.specs.MetricSpec.standard`): a fresh ``SampleLevelMetric`` named
    after the spec's column, averaged over docs, per call.

    - ``generate``: ``<name>_metric(*, strip=True, name=None, **options)``, a :class:`StringMetric`
      of the spec's formula (options such as ``normalize`` go to the formula);
    - ``multiple_choice``: ``<name>_metric(normalization=None)``, a :class:`LogprobValue`; a
      lighteval normalization appends its name to the column (``gold_probability_char``).

    The factory's ``spec`` attribute is ``spec``.
    """
    if not spec.standard:
        raise ValueError(f"metric {spec.name!r} (column {spec.column!r}, {spec.kind}, aggregation {spec.aggregation!r}) "
                         "is not one value per document under a fixed column: write its lighteval factory by hand")
    formula = spec.formula or getattr(M, spec.function)

    if spec.kind == "multiple_choice":
        def factory(normalization: LogProbNormalization | None = None) -> SampleLevelMetric:
            return SampleLevelMetric(metric_name=spec.column + _suffix(normalization), higher_is_better=spec.higher_is_better,
                                     category=SamplingMethod.LOGPROBS, sample_level_fn=LogprobValue(spec, normalization),
                                     corpus_level_fn=np.mean)
    else:
        def factory(*, strip: bool = True, name: str | None = None, **options: Any) -> SampleLevelMetric:  # type: ignore[misc]
            return _generation_metric(name or spec.column, spec.higher_is_better,
                                      StringMetric(formula, strip, higher_is_better=spec.higher_is_better,
                                                   **{**dict(spec.options), **options}))

    factory.__name__ = factory.__qualname__ = f"{spec.name}_metric"
    factory.__module__ = __name__
    factory.spec = spec  # type: ignore[attr-defined]
    factory.__doc__ = (f"``{spec.column}``: :func:`{formula.__module__}.{formula.__name__}`"
                       + (f" with {dict(spec.options)}" if spec.options else "")
                       + (" of the choices' log-probabilities" if spec.kind == "multiple_choice"
                          else " of the first generation, the best over golds") + ", averaged over docs.")
    return factory


# spec name -> its factory (module docstring, Names); module attributes too
_BY_HAND = {f.__name__: f for f in (pass_at_k_metric, g_pass_at_k_metric, mg_pass_at_k_metric, avg_at_k_metric,
                                    maj_at_k_metric, recall_at_k_metric, extractiveness_metric, consistency_rate_metric)}
FACTORIES: dict[str, Callable[..., Any]] = {s.name: _BY_HAND.get(f"{s.name}_metric") or from_spec(s) for s in SPECS}
globals().update({f.__name__: f for f in FACTORIES.values()})
