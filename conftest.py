"""Collection rules for the whole checkout (the tests' own fixtures are in tests/conftest.py)."""

# Old import paths kept for one release: each replaces itself in sys.modules by the module it
# was renamed to, which --doctest-modules would collect a second time under the old file name.
collect_ignore = [
    "plugin/scorekit/io.py",
    "plugin/scorekit/inspect_logs.py",
    "plugin/scorekit/aggregate/score_results.py",
    "plugin/scorekit/aggregate/scoring_config.py",
]
