"""The "as published" level of a recommendation run: its own run parameter, else the family's documented default.

Not a guard test of ``make mutants`` (tests/mutants/modules.toml): the family's defaults are read from
``dbt_project/macros/`` beside the layers, which mutmut's copy of the package does not have, so there
``parameter_defaults()`` holds the kernel's defaults only. Its mutants are run against this test by hand.
"""

from __future__ import annotations

import duckdb

from biaswh.dashboards.recsys.card import published_alpha


def test_the_published_alpha_is_the_runs_own_else_the_default():
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute(
        "create table marts.dim_runs as select * from (values ('r1', '{\"recsys_published_alpha\": 0.1}'),"
        " ('r0', '{\"verdicts_alpha\": 0.01}')) as runs(run_id, run_parameters)"
    )
    assert published_alpha(con, "r1") == 0.1
    # the default documented in dbt_project/macros/recsys/recsys_run_parameter_defaults.sql
    assert published_alpha(con, "r0") == 0.05
    assert published_alpha(duckdb.connect(), "r1") == 0.05  # before marts.dim_runs is built
