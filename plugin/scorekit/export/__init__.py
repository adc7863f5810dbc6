"""Exports of scorekit's numbers into shared result schemas (``scorekit export``)."""
