"""lighteval 0.13 adapter: scorekit metrics as lighteval ``Metric`` objects, the SCORE
robustness tasks for ``--custom-tasks scorekit.lighteval.score_suite``, and offline helpers.

Importing this package is cheap; :mod:`scorekit.lighteval.metrics` and
:mod:`scorekit.lighteval.score_suite` import lighteval (and through it torch).
Run lighteval offline with ``python -m scorekit.lighteval <lighteval arguments>``.
"""
