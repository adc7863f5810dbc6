"""Aggregation of results files: leaderboard normalization, threshold scoring, rank aggregation."""
