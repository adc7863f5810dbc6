"""Tables of many models from their results files: the Open LLM Leaderboard's normalization
(``leaderboard``), threshold scoring (the scorecard), several leaderboards' ranks in one ranking
(``rank``), with their configs and renderers."""
