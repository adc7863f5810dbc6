"""SCORE robustness core (harness-free): templates, variants, answer extraction, analysis.

SCORE (NVIDIA, NAACL 2025) asks whether a model's answer survives changes that should not
matter: ten paraphrased prompts (``prompt``), the correct option moved to every position
(``option_order``) and five sampled answers at temperature 0.7 (``non_greedy``). The harness
adapters (``scorekit.lm_eval.score_suite``, ``scorekit.lighteval.score_suite``) read the benchmark
table :mod:`scorekit.robustness.benchmarks`, turn dataset rows into variants with
:mod:`scorekit.robustness.score_documents`, parse answers with :mod:`scorekit.robustness.extract`, and hand :class:`~scorekit.robustness.records.Record` objects to
:mod:`scorekit.robustness.analysis`.

Record schema (one per model answer; ``scorekit.robustness.records.Record``, a NamedTuple, so it is
also the list ``[question_id, family, variant, n_variants, category, answer, correct]`` that
lm-eval writes into ``samples_*.jsonl`` under every SCORE metric key):

=============  ==========================================================================
question_id    str, unique within a benchmark: MMLU-Pro ``question_id``; AGIEval
               ``"<subset>/<row>"``; MATH ``"<subject>/<row>"`` (row = dataset row index)
family         ``"prompt"`` | ``"option_order"`` | ``"non_greedy"``
variant        int: prompt template index (0-9) | answer position (0 = A) | sample index (0-4)
n_variants     int: how many variants this question has in this family (10 | its number of
               options | 5); a question with fewer records is *incomplete* and left out
category       str: MMLU-Pro ``category`` | AGIEval subset | MATH subject (macro unit)
answer         canonical *content* of the parsed answer, or None when nothing parsed:
               multiple choice -> index of the chosen option in the dataset's ORIGINAL option
               list (the first such index when two options have the same text), so equal
               content <=> equal value whatever letter was shown; MATH -> the extracted
               answer string (compared with :func:`scorekit.metrics.math_equivalent`)
correct        bool: the parsed answer is the gold content (unparsed -> False)
=============  ==========================================================================

Expanded documents (the ``doc`` of each lm-eval sample) carry the fields listed in
:data:`scorekit.robustness.score_documents.DOC_FIELDS`.

Analysis API (stable names): :func:`scorekit.robustness.analysis.summarize` ->
:class:`~scorekit.robustness.analysis.FamilySummary` (``.metrics(macro=...)`` gives the upstream
metric names), :func:`~scorekit.robustness.analysis.metric_names`,
:func:`~scorekit.robustness.records.records_from_items`.
"""

from scorekit.robustness.records import FAMILIES, Record

__all__ = ["FAMILIES", "Record"]
