"""Recommendation bias: does an LLM recommender favour some features of the posts it is shown?

One module per test family: :mod:`analysis.recsys.numerical` (Cohen's d, Hedges' g,
Welch's t-test), :mod:`analysis.recsys.categorical` (Cramér's V, chi-square test),
:mod:`analysis.recsys.multiple_comparisons` (Holm / Benjamini-Hochberg), and
:mod:`analysis.recsys.conditions`, which runs the right test for every feature × condition.
"""
