"""``scorekit demo``: the three SCORE robustness tests on a real small model, end to end.

The pipeline (:mod:`scorekit.demo.pipeline`) points scorekit's shipped SCORE tasks at a
bundled sample of real MMLU-Pro, AGIEval and MATH test questions (``demo/data``, with their
sources and licenses in ``NOTICE.md`` and ``provenance.json``), runs them
through lm-eval in one process (the model is loaded once), and turns the logs into one
self-contained ``report.html`` (:mod:`scorekit.robustness.html_report`): the robustness tables,
a leaderboard-style summary and the plots. The harness's own output goes to ``harness.log``
(:mod:`scorekit.demo.quiet`) while the command shows one progress display.
"""
