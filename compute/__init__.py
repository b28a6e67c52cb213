"""The jobs between the two dbt builds: retrieval runs, evaluation runs, WEAT statistics and recsys
tests. They read marts, compute, and write their results to ``raw.*`` for the second build."""
