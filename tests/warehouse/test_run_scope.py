"""Run-scoped results: parameters and inputs recorded per run, skipped builds, rebuild, layout, ad hoc SQL."""

from __future__ import annotations

import io
import json

import duckdb
import pyarrow.parquet as pq
import pytest

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_STUDY, copy_warehouse
from tests.fingerprints import run_fingerprints

pytestmark = pytest.mark.dbt


@pytest.fixture(scope="module")
def demo_home(demo_warehouse):
    """The session's warehouse after one `biaswh run studies/demo.toml` (read only here)."""
    return demo_warehouse.home


@pytest.fixture
def copy_home(demo_home, tmp_path, monkeypatch):
    """A private copy of the demo warehouse for a test that changes it."""
    home = copy_warehouse(demo_home, tmp_path / "warehouse")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    return home


def _con(home):
    return duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)


def test_a_study_run_records_its_parameters_and_pinned_inputs(demo_home):
    with _con(demo_home) as con:
        run_id = con.execute("select run_id from raw.runs where kind = 'study'").fetchone()[0]
        parameters = dict(
            con.execute("select name, value from raw.run_parameters where run_id = ?", [run_id]).fetchall()
        )
        inputs = con.execute(
            "select dataset, source_name, version from raw.run_inputs where run_id = ? order by all", [run_id]
        ).fetchall()
    assert json.loads(parameters["dialect_highlight_k"]) == [1, 3, 5]  # the study's [parameters]
    assert json.loads(parameters["snippet_chars"]) == 240  # the documented default
    assert inputs == [("query_pairs", "dialect_pairs_demo", 1), ("squad", "demo_train", 1)]


def test_unknown_or_mistyped_parameters_are_refused():
    from biaswh.warehouse.runs.parameters import resolve_parameters

    with pytest.raises(UserError, match="unknown parameter.*dialect_highlight_kk"):
        resolve_parameters({"dialect_highlight_kk": [1]})
    with pytest.raises(UserError, match="dialect_highlight_k: expected a value like"):
        resolve_parameters({"dialect_highlight_k": "5"})
    with pytest.raises(UserError, match="recsys_published_alpha: expected"):
        resolve_parameters({"recsys_published_alpha": True})
    assert resolve_parameters({"recsys_published_alpha": 0.01})["recsys_published_alpha"] == 0.01


def test_a_rerun_skips_the_unchanged_build_and_adds_only_its_own_rows(copy_home, capsys):
    from biaswh.pipeline import run_study

    with _con(copy_home) as con:
        before = run_fingerprints(con)
    run_study(str(DEMO_STUDY), build_site=False)  # rows only: no site drawn
    out = capsys.readouterr().out
    assert "dbt build (sources): inputs unchanged since the last build, skipped" in out
    with _con(copy_home) as con:
        after = run_fingerprints(con)
    assert {k: v for k, v in after.items() if k in before} == before
    (new_run,) = {run for _, run in after} - {run for _, run in before}
    # The marts over the k grid named the new runs as constants (macro is_new_run, listed=true),
    # and counted the new run's hits as the view has them.
    (compiled,) = (copy_home / "dbt" / "target" / "compiled").rglob("agg_dialect_recall_at_k.sql")
    listed = compiled.read_text(encoding="utf-8").split("and run_id in (", 1)[1].split(")", 1)[0]
    assert f"'{new_run}'" in listed.split(", ")
    with _con(copy_home) as con:
        recall = "select retriever, pair_set, variant, k, n_queries, n_hits from marts.agg_dialect_recall_at_k"
        from_view = (
            "select retriever, pair_set, variant, k, count(*), count_if(is_hit) from marts.fct_dialect_hits_at_k"
            " where run_id = $run group by all order by all"
        )
        assert con.execute(f"{recall} where run_id = $run order by all", {"run": new_run}).fetchall() == (
            con.execute(from_view, {"run": new_run}).fetchall()
        )


def _run_rows(con, run_id: str) -> dict[str, list[tuple]]:
    """Every run-keyed table's rows of one run, sorted, floats rounded to 9 digits (sums of
    floats may differ in the last bit when a build adds them in another order)."""
    rows = {}
    for table, _ in run_fingerprints(con):
        fetched = con.execute(f"select * from {table} where run_id = ? order by all", [run_id]).fetchall()
        rows[table] = [
            tuple(("nan" if v != v else round(v, 9)) if isinstance(v, float) else v for v in row) for row in fetched
        ]
    return rows


def test_rebuild_recomputes_a_run_to_the_same_rows(copy_home):
    from biaswh.rebuild import rebuild_run

    with duckdb.connect(str(copy_home / "warehouse.duckdb")) as con:
        run_id = con.execute("select run_id from raw.runs where kind = 'study'").fetchone()[0]
        before = _run_rows(con, run_id)
        con.execute("delete from marts.agg_dialect_recall_at_k where run_id = ? and k = 1", [run_id])
        con.execute("delete from marts.fct_dialect_error_examples where run_id = ?", [run_id])
    rebuild_run(run_id)
    with _con(copy_home) as con:
        after = _run_rows(con, run_id)
    assert sum(len(v) for v in before.values()) > 0 and after == before


def test_a_warehouse_from_an_older_layout_is_refused_with_what_to_do(tmp_path, monkeypatch):
    from biaswh.warehouse.database.connection import connect

    home = tmp_path / "old"
    home.mkdir()
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:  # layout 1: raw.runs, no layout stamp
        con.execute("create schema raw; create table raw.runs (run_id varchar)")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    for read_only in (False, True):
        with pytest.raises(UserError, match="written with warehouse layout 1.*new folder"):
            connect(read_only=read_only)


def test_sql_formats_and_output_files(demo_home, tmp_path, monkeypatch, capsys):
    from biaswh.adhoc_sql import print_sql

    monkeypatch.setenv(HOME_VARIABLE, str(demo_home))
    query = "select retriever, variant, k, recall from dialect_recall_at_k where k = 1 order by all"
    print_sql(query, output_format="json")
    rows = json.loads(capsys.readouterr().out)
    with _con(demo_home) as con:
        expected = con.execute(f"set search_path = 'marts'; {query}").fetchall()
    assert [tuple(r.values()) for r in rows] == expected  # every digit kept
    out = tmp_path / "recall.parquet"
    print_sql(query, output_format="parquet", out=str(out))
    assert pq.read_table(out).num_rows == len(expected)
    print_sql(query, output_format="csv", out=str(tmp_path / "recall.csv"))
    assert (tmp_path / "recall.csv").read_text().splitlines()[0] == "retriever,variant,k,recall"
    with pytest.raises(UserError, match="parquet writes a file"):
        print_sql(query, output_format="parquet")


def test_shell_answers_statements_and_stays_read_only(demo_home, monkeypatch):
    from biaswh.sql_shell import shell

    monkeypatch.setenv(HOME_VARIABLE, str(demo_home))
    out = io.StringIO()
    shell(stdin=io.StringIO("select count(*) as n\n  from dim_runs;\ndelete from raw.runs;\n.quit\n"), stdout=out)
    text = out.getvalue()
    assert "n\n" in text and "(1 row)" in text
    assert "SQL error" in text  # the delete is refused
    with _con(demo_home) as con:
        assert con.execute("select count(*) from raw.runs").fetchone()[0] == 3


def test_contract_relations_need_no_schema_prefix_in_plain_duckdb(demo_home):
    with _con(demo_home) as con:
        assert con.execute("select count(*) from dialect_recall_at_k").fetchone()[0] > 0
        assert con.execute("select count(*) from dialect_paired_tests").fetchone()[0] > 0


# The compiled file of stg_retrieval__query_stats' checks test (dbt shortens a long test name
# to its first 30 characters and a hash).
QUERY_STATS_CHECKS = "checks_stg_retrieval__query_st*"


def _compiled_test_sql(home, name: str) -> str:
    """The SQL the last dbt build ran for the one data test file matching ``name`` (a glob, under
    the warehouse's dbt target)."""
    (path,) = (home / "dbt" / "target" / "compiled").rglob(f"{name}.sql")
    return path.read_text(encoding="utf-8")


def test_a_run_failing_a_data_test_is_withdrawn_and_poisons_no_later_build(copy_home, monkeypatch):
    """A run whose rows fail a data test (as `[retrieval.hybrid] weights = [nan, inf]` once did:
    the rows are injected after the retrieval job, so no config check can stop them first) is
    marked failed naming the test, leaves no row in any run-keyed mart, and the demo study and
    `biaswh build` that follow pass; the run before it keeps its rows."""
    import biaswh.withdrawal
    from biaswh.pipeline import dbt_build, load_plugins, run_study
    from biaswh.warehouse.runs.study import STUDY_JOBS

    load_plugins()
    with _con(copy_home) as con:
        before = run_fingerprints(con)
    real_job, withdrawn = STUDY_JOBS["retrieval"], []

    def poisoning_job(con, study, run_id):
        real_job(con, study, run_id)
        # Hits with a no-hits reason: stg_retrieval__query_stats' expression_is_true test fails.
        con.execute(
            "update raw.retrieval_query_stats set reason = 'poisoned' where run_id = ? and n_hits > 0", [run_id]
        )

    def recorded_withdrawal(con, run_id):
        withdrawn.append(real_withdraw(con, run_id))
        return withdrawn[-1]

    real_withdraw = biaswh.withdrawal.withdraw_run
    monkeypatch.setitem(STUDY_JOBS, "retrieval", poisoning_job)
    monkeypatch.setattr(biaswh.withdrawal, "withdraw_run", recorded_withdrawal)
    with pytest.raises(UserError, match="expression_is_true.*on stg_retrieval__query_stats"):
        run_study(str(DEMO_STUDY), build_site=False)  # rows only: no site drawn
    monkeypatch.setitem(STUDY_JOBS, "retrieval", real_job)
    with _con(copy_home) as con:
        failed, status, message = con.execute(
            "select run_id, status, message from raw.runs where kind = 'study' order by started_at desc limit 1"
        ).fetchone()
        poisoned_raw = con.execute(
            "select count(*) from raw.retrieval_query_stats where run_id = ?", [failed]
        ).fetchone()
    assert status == "failed" and "data test expression_is_true" in message and "stg_retrieval__query_stats" in message
    # Only the failing check of the model's checks test is named, with its failing rows.
    assert "failing row" in message and "not_null" not in message and "unique" not in message
    assert withdrawn and sum(withdrawn[0].values()) > 0  # marts built beside the failing test held its rows
    assert poisoned_raw[0] > 0  # its raw rows stay, for forensics

    run_study(str(DEMO_STUDY), build_site=False)  # rows only: no site drawn
    # The study's build tested its own run only (the compiled test names it).
    with _con(copy_home) as con:
        latest = con.execute(
            "select run_id, status from raw.runs where kind = 'study' order by started_at desc limit 1"
        ).fetchone()
    assert latest[1] == "succeeded"
    assert f"run_id in ('{latest[0]}')" in _compiled_test_sql(copy_home, QUERY_STATS_CHECKS)

    dbt_build()  # `biaswh build`: every model and test, unit tests too
    assert "not in (select withdrawn.run_id" in _compiled_test_sql(copy_home, QUERY_STATS_CHECKS)
    with _con(copy_home) as con:
        after = run_fingerprints(con)
    assert {k: v for k, v in after.items() if k in before} == before
    assert not [key for key in after if key[1] == failed]
    assert {table for table, run in after if run == latest[0]} == {table for table, _ in before}  # all its results

    # A Spark build lists the withdrawn runs, read from the raw Parquet it exports, instead of
    # the subquery (Spark plans `not in (subquery)` as a null-aware anti join). No Spark needed:
    # the list is what DuckDB's build then tests with.
    from biaswh.warehouse.spark.raw_export import export_raw
    from biaswh.warehouse.spark.target import WITHDRAWN_RUN_IDS_VARIABLE, withdrawn_run_ids

    with _con(copy_home) as con:
        export_raw(con)
    assert withdrawn_run_ids() == [failed]
    selection = ["--select", "stg_retrieval__query_stats"]
    monkeypatch.setenv(WITHDRAWN_RUN_IDS_VARIABLE, failed)
    dbt_build(selection)
    test_sql = _compiled_test_sql(copy_home, QUERY_STATS_CHECKS)
    assert f"not in ('{failed}')" in test_sql and "select withdrawn.run_id" not in test_sql
    monkeypatch.setenv(WITHDRAWN_RUN_IDS_VARIABLE, "")  # listed as none withdrawn: the poisoned rows are tested
    with pytest.raises(UserError, match="expression_is_true.*on stg_retrieval__query_stats"):
        dbt_build(selection)
