"""Builders of lm-eval and lighteval results files in the harnesses' real layouts (tests only)."""
