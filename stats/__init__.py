"""Statistics without database access.

Paired tests, bootstrap, power, multiple comparisons, effect sizes and the verdict policy, used
by compute/ and analysis/ alike.
"""
