"""biaswh on Dagster (the optional ``dagster`` extra, ``make dagster``): each study config a job.

``dagster dev -m biaswh.schedule.definitions`` loads :func:`biaswh.schedule.definitions.defs`:
a job per study config in the studies folder (``BIASWH_STUDIES``, default ``./studies``)
whose steps are the pipeline's stages, the dbt builds run through dagster-dbt (so Dagster's
asset graph is dbt's lineage). The warehouse stays the one store: Dagster keeps only its own
run records (events, logs) in ``DAGSTER_HOME``, never a copy of a result.
"""
