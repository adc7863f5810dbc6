"""``scorekit compare``: paired comparisons of evaluation runs on the questions they share.

:mod:`scorekit.compare.core` pairs and tests per-question tables (pure: numpy/scipy, no
files); :mod:`scorekit.compare.inputs` builds those tables from lm-eval and lighteval logs.
"""
