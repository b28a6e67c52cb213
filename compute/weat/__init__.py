"""Word-embedding association tests (WEAT, Caliskan et al. 2017): coverage, statistics, interpretation.

One module per concern: ``coverage`` (finding the listed words), ``association`` (cosines and
s(w, A, B)), ``effect_size``, ``permutation``, ``bootstrap``, ``interpretation``, and ``runner``
which chains them for one test on one embedding.
"""
