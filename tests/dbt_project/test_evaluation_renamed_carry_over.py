"""A warehouse built while the evaluation family's marts were ``*_retrieval_*`` and its analysis
tables ``analysis.retrieval_*`` keeps every run's rows under the ``evaluation`` names.

The demo evaluation warehouse is put back under the old names (what code before the rename
built: the same tables, named so), then the same study runs again on it with this code: the
first writing open carries the tables over (warehouse/relations/renamed_marts.py), the incremental build
and the analysis add the second run beside the first, and the old names still answer as
``main`` views.
"""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.relations.renamed_marts import RENAMED_ANALYSIS_TABLES, RENAMED_MARTS
from tests.conftest import copy_warehouse, run_study_here
from tests.dbt_project.conftest import EVALUATION_RUNS, EVALUATION_STUDY, demo_vectors

pytestmark = pytest.mark.dbt

# (schema, old name, new name) of every relation the evaluation family renamed
RENAMED = [("marts", old, new) for old, new in RENAMED_MARTS.items() if "_evaluation_" in new] + [
    ("analysis", old, new) for old, new in RENAMED_ANALYSIS_TABLES.items()
]


def _put_back_the_old_names(path) -> None:
    """The warehouse as code before the rename left it: old tables, the old contract views only."""
    with duckdb.connect(str(path)) as con:
        con.execute("create schema before_rename")
        for schema, old, new in RENAMED:
            con.execute(f"alter table {schema}.{new} rename to {old}")
            con.execute(f"create table before_rename.{old} as select * from {schema}.{old}")
        for name in ("evaluation_metrics_at_k", "evaluation_alerts", "retrieval_metrics_at_k", "retrieval_alerts"):
            con.execute(f"drop view if exists main.{name}")
        for old in ("retrieval_metrics_at_k", "retrieval_alerts"):
            con.execute(f"create view main.{old} as select * from analysis.{old}")
        con.execute("alter table staging.evaluation_alert_thresholds rename to retrieval_alert_thresholds")


@pytest.fixture(scope="module")
def carried_over(demo_evaluation, tmp_path_factory):
    """(connection, first run, second run) after a second run of the demo evaluation on the old-named copy."""
    folder = tmp_path_factory.mktemp("evaluation-renamed")
    home = copy_warehouse(demo_evaluation[0], folder / "warehouse")
    _put_back_the_old_names(home / "warehouse.duckdb")
    with demo_vectors(demo_evaluation[0], folder):
        run_study_here(str(EVALUATION_STUDY), home=home, site=False)  # rows only: no page is read
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    runs = con.execute(EVALUATION_RUNS).fetchall()
    (first,), (second,) = runs
    yield con, first, second
    con.close()


def _series_runs(con, series_run_id: str) -> list[str]:
    rows = con.execute("select run_id from raw.evaluation_runs where series_run_id = ?", [series_run_id]).fetchall()
    return [run_id for (run_id,) in rows] + [series_run_id]


def _has_runs(con, schema: str, table: str) -> bool:
    columns = con.execute(
        "select column_name from information_schema.columns where table_schema = ? and table_name = ?", [schema, table]
    ).fetchall()
    return ("run_id",) in columns


def test_the_first_runs_rows_are_unchanged_under_the_new_names(carried_over):
    con, first, _ = carried_over
    runs = _series_runs(con, first)
    for schema, old, new in RENAMED:
        # fct_evaluation_qrels has no runs: every build makes it whole, from the same raw judgments
        where = f" where run_id in ({', '.join('?' * len(runs))})" if _has_runs(con, schema, new) else ""
        params = runs if where else []
        before, after = f"select * from before_rename.{old}{where}", f"select * from {schema}.{new}{where}"
        assert con.execute(f"select count(*) from ({before})", params).fetchone()[0] > 0, f"{old} held rows"
        missing = con.execute(f"select count(*) from ({before} except all {after})", params * 2).fetchone()[0]
        added = con.execute(f"select count(*) from ({after} except all {before})", params * 2).fetchone()[0]
        assert (missing, added) == (0, 0), f"{schema}.{new}: {missing} rows of the first run lost, {added} changed"


def test_the_second_run_is_added_beside_the_first(carried_over):
    con, first, second = carried_over
    for schema, _, new in RENAMED:
        if not _has_runs(con, schema, new):
            continue
        runs = {r for (r,) in con.execute(f"select distinct run_id from {schema}.{new}").fetchall()}
        assert runs & set(_series_runs(con, first)) and runs & set(_series_runs(con, second)), new


def test_the_old_names_are_gone_from_their_schemas_and_answer_as_views(carried_over):
    con, _, _ = carried_over
    tables = set(con.execute("select table_schema, table_name from information_schema.tables").fetchall())
    for schema, old, new in RENAMED:
        assert (schema, old) not in tables, f"{schema}.{old} carried over"
        assert ("main", old) in tables, f"main.{old} answers"
        n_new = con.execute(f"select count(*) from {schema}.{new}").fetchone()[0]
        assert con.execute(f"select count(*) from {old}").fetchone()[0] == n_new > 0
    # the seed under its new name only (the build loaded it again)
    assert ("staging", "retrieval_alert_thresholds") not in tables
    assert con.execute("select count(*) from staging.evaluation_alert_thresholds").fetchone()[0] > 0
