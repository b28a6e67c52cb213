"""Recommendation bias: does an LLM recommender favour some features of the posts it is shown?

One module per feature family, each applying the original tool's rules around a statistic of
:mod:`stats`: :mod:`biaswh.compute.recsys.numerical` (:mod:`biaswh.stats.cohens_d`: Cohen's d, Hedges' g,
Welch's t-test), :mod:`biaswh.compute.recsys.categorical` (:mod:`biaswh.stats.cramers_v`: Cramér's V, chi-square
test); :mod:`biaswh.stats.multiple_comparisons` adjusts (Holm / Benjamini-Hochberg), and
:mod:`biaswh.compute.recsys.conditions` runs the right test for every feature × condition.
"""
