"""lighteval 0.13 adapter: scorekit metrics as lighteval ``Metric`` objects, the SCORE
robustness tasks for ``--custom-tasks scorekit.lighteval.tasks``, and offline helpers.

Importing this package is cheap; :mod:`scorekit.lighteval.metrics` and
:mod:`scorekit.lighteval.tasks` import lighteval (and through it torch).
Run lighteval offline with ``python -m scorekit.lighteval <lighteval arguments>``.
"""
