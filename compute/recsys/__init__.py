"""Recommendation bias: does an LLM recommender favour some features of the posts it is shown?

One module per feature family, each applying the original tool's rules around a statistic of
:mod:`stats`: :mod:`compute.recsys.numerical` (:mod:`stats.cohens_d`: Cohen's d, Hedges' g,
Welch's t-test), :mod:`compute.recsys.categorical` (:mod:`stats.cramers_v`: Cramér's V, chi-square
test); :mod:`stats.multiple_comparisons` adjusts (Holm / Benjamini-Hochberg), and
:mod:`compute.recsys.conditions` runs the right test for every feature × condition.
"""
