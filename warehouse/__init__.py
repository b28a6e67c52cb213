"""The kernel (``biaswh.warehouse``): what every layer above stands on, split by what it does.

- ``database/``: the DuckDB file, one writer at a time, transactions, the ad hoc SQL sandbox, output files;
- ``dbt_build/``: calling dbt in this process, its parse cache, build selections and build state;
- ``spark/``: the dbt project on Spark and its marts copied back;
- ``runs/``: the run registry, sub-runs, parameters, pending failures, the study chain;
- ``relations/``: the raw schema's DDL and the warehouse's own views (contracts, subjects);
- ``settings/``: where the warehouse lives, config schemas, plugin folders, random seeds;
- ``errors.py`` and ``progress.py``: one-line errors and the terminal's progress counter.
"""
