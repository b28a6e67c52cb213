"""Withdrawing a failed run deletes its rows, and its evaluation runs' rows, from every run-keyed mart.

A hand-made warehouse: the raw schema as `connect()` makes it, an evaluation series of two runs,
and marts keyed by run id beside a view. The end-to-end case (a run failing a data test) is in
test_run_scope.py; here each rule of :mod:`biaswh.withdrawal` is checked on rows we can count.
"""

from __future__ import annotations

import pytest

from biaswh import withdrawal
from biaswh.warehouse.database.connection import connect
from biaswh.withdrawal import built_run_ids, mart_tables_with_runs, withdraw_run, withdrawn_if_failing


def _series(con, series_run_id: str, children: list[str]) -> None:
    for position, child in reversed(list(enumerate(children))):  # stored out of order on purpose
        con.execute(
            "insert into raw.evaluation_runs values (?, ?, 'drift', ?, ?, ?, 'q', 10, '{}', now())",
            [child, series_run_id, f"run {position}", position, position == 0],
        )


@pytest.fixture
def marts(con):
    """Series run ``s`` with evaluation runs ``s-0`` and ``s-1``; an unrelated run ``other``."""
    _series(con, "s", ["s-0", "s-1"])
    _series(con, "other", ["other-0"])
    con.execute("create schema if not exists marts")
    rows = [("s", 1), ("s-0", 2), ("s-1", 3), ("s-1", 4), ("other", 5), ("other-0", 6)]
    con.execute("create table marts.fct_evaluation_metrics (run_id varchar, value integer)")
    con.executemany("insert into marts.fct_evaluation_metrics values (?, ?)", rows)
    con.execute(
        "create table marts.agg_evaluation_drift as"
        " select run_id, count(*) as n from marts.fct_evaluation_metrics group by run_id"
    )
    con.execute("create table marts.dim_queries (query_id varchar)")  # no run id: never touched
    con.execute("insert into marts.dim_queries values ('q1')")
    con.execute("create view marts.evaluation_metrics_view as select * from marts.fct_evaluation_metrics")
    return con


def _remaining(con, table: str) -> list[str]:
    return [r for (r,) in con.execute(f"select run_id from marts.{table} order by run_id").fetchall()]


def test_a_series_runs_built_ids_are_itself_and_its_evaluation_runs_in_order(marts):
    assert built_run_ids(marts, "s") == ["s", "s-0", "s-1"]
    assert built_run_ids(marts, "lonely") == ["lonely"]


def test_the_built_ids_load_the_families_steps_not_their_pages(marts, monkeypatch):
    # A study run's results build loads the pages in a thread meanwhile: loading them here made the
    # build wait for them (or import them itself) before dbt could start.
    loaded = []
    monkeypatch.setattr(withdrawal, "load_plugins", loaded.append)
    assert built_run_ids(marts, "s") == ["s", "s-0", "s-1"]
    assert loaded == [("ingest", "compute", "analysis")]


def test_only_run_keyed_tables_are_withdrawn_from(marts):
    assert mart_tables_with_runs(marts) == ["agg_evaluation_drift", "fct_evaluation_metrics"]


def test_withdrawing_a_series_deletes_its_evaluation_runs_rows_and_keeps_every_other_run(marts):
    deleted = withdraw_run(marts, "s")
    assert deleted == {"agg_evaluation_drift": 3, "fct_evaluation_metrics": 4}
    assert _remaining(marts, "fct_evaluation_metrics") == ["other", "other-0"]
    assert _remaining(marts, "agg_evaluation_drift") == ["other", "other-0"]
    assert marts.execute("select count(*) from marts.dim_queries").fetchone()[0] == 1
    assert withdraw_run(marts, "s") == {}  # nothing left to delete: no table listed


def test_a_failing_step_withdraws_its_run_and_raises_its_own_error(marts):
    marts.close()  # withdrawn_if_failing opens the warehouse itself

    def failing_step():
        raise RuntimeError("a data test failed")

    with pytest.raises(RuntimeError, match="a data test failed"):
        withdrawn_if_failing("s", failing_step)
    with connect() as reopened:
        assert _remaining(reopened, "fct_evaluation_metrics") == ["other", "other-0"]
    withdrawn_if_failing("other", lambda: None)  # a step that succeeds withdraws nothing
    with connect() as reopened:
        assert _remaining(reopened, "fct_evaluation_metrics") == ["other", "other-0"]
