"""``scorekit demo``: the three SCORE robustness tests on a real small model, end to end.

The pipeline (:mod:`scorekit.demo.pipeline`) points scorekit's shipped SCORE tasks at a
bundled sample of MMLU-Pro-, AGIEval- and MATH-shaped questions (``demo/data``), runs them
through lm-eval in one process, and turns the logs into the robustness report, a
leaderboard-style summary and plots.
"""
