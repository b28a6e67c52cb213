"""Paired statistical tests for comparing two variants of the same queries (e.g. SAE vs AAE)."""
