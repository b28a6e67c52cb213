"""Recommendation bias: does an LLM recommender favour some features of the posts it is shown?

One module per test family: :mod:`compute.recsys.numerical` (Cohen's d, Hedges' g,
Welch's t-test), :mod:`compute.recsys.categorical` (Cramér's V, chi-square test),
:mod:`stats.multiple_comparisons` (Holm / Benjamini-Hochberg), and
:mod:`compute.recsys.conditions`, which runs the right test for every feature × condition.
"""
