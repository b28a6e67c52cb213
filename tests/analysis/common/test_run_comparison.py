"""Two runs compared on their stored rows: `biaswh diff` and the rules it shares with compare_warehouses."""

from __future__ import annotations

import json

import duckdb
import pytest

from biaswh.analysis.common import result_rows
from biaswh.analysis.common.run_comparison import compare_runs
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import assert_refused, run_main

PARAMETERS = {"name": "s", "seed": 1, "settings": {"dialect": {"bootstrap_resamples": 1000}}}


def _warehouse(home) -> str:
    """Runs a and b of one config with equal results (floats apart in their 15th digit, latencies
    and a latency alert apart); run c with another seed, a newer input and one estimate outside run a's interval."""
    home.mkdir()
    file = str(home / "warehouse.duckdb")
    with duckdb.connect(file) as con:
        con.execute("create schema marts; create schema analysis")
        con.execute(
            "create table marts.dim_runs (run_id varchar, run_name varchar, run_kind varchar, parameters varchar,"
            " run_parameters varchar, code_version varchar, package_versions varchar,"
            " inputs struct(dataset varchar, name varchar, version integer)[], started_at timestamp)"
        )
        changed = {**PARAMETERS, "seed": 2}
        for run_id, parameters, version in (("a", PARAMETERS, 1), ("b", PARAMETERS, 1), ("c", changed, 2)):
            con.execute(
                "insert into marts.dim_runs values (?, 's', 'study', ?, '{}', 'abc', '{\"duckdb\": \"1\"}',"
                " [{'dataset': 'pairs', 'name': 'p', 'version': ?}], now())",
                [run_id, json.dumps(parameters), version],
            )
        con.execute(
            "create table marts.dim_source_versions (dataset varchar, source_name varchar,"
            " source_version integer, source_sha256 varchar)"
        )
        con.execute("insert into marts.dim_source_versions values ('pairs', 'p', 1, 'aaaa'), ('pairs', 'p', 2, 'bbbb')")
        con.execute(
            "create table analysis.gaps (run_id varchar, k integer, delta double, ci_low double, ci_high double,"
            " latency_ms double)"
        )
        rows = [
            ("a", 1, 0.1 + 0.2, 0.0, 0.6, 5.0),
            ("a", 5, 0.5, 0.25, 0.75, 5.0),
            ("b", 1, 0.3, 0.0, 0.6, 9.0),  # 0.1 + 0.2 is 0.30000000000000004
            ("b", 5, 0.5, 0.25, 0.75, 9.0),
            ("c", 1, 0.3, 0.0, 0.6, 5.0),
            ("c", 5, 0.9, 0.6, 1.0, 5.0),
        ]
        con.executemany("insert into analysis.gaps values (?, ?, ?, ?, ?, ?)", rows)
        # A latency alert fires in run a and not in run b: it measured the machine (depends_on_machine).
        con.execute("create table analysis.alerts (run_id varchar, metric varchar, p double, depends_on_machine bool)")
        alerts = [("a", "recall@5", 0.01, False), ("a", "latency_p95_ms", 0.02, True), ("b", "recall@5", 0.01, False)]
        alerts.append(("c", "recall@5", 0.01, False))
        con.executemany("insert into analysis.alerts values (?, ?, ?, ?)", alerts)
    return file


@pytest.fixture
def warehouse(tmp_path):
    home = tmp_path / "home"
    file = _warehouse(home)
    return home, file


def test_two_runs_of_one_config_are_identical_despite_float_noise_and_latencies(warehouse):
    _, file = warehouse
    with duckdb.connect(file, read_only=True) as con:
        assert compare_runs(con, "a", "b") == []


def test_only_the_rows_that_depend_on_the_machine_are_left_out(warehouse):
    _, file = warehouse
    with duckdb.connect(file) as con:
        con.execute("insert into analysis.alerts values ('b', 'mrr@10', 0.04, false), ('b', 'recall@5', 0.5, null)")
        lines = [d.line() for d in compare_runs(con, "a", "b")]
    assert lines == ["analysis.alerts: 1 vs 3 rows; 0 only in A, 2 only in B"]


def test_a_changed_run_names_its_config_key_input_and_the_estimate_beyond_its_interval(warehouse):
    _, file = warehouse
    with duckdb.connect(file, read_only=True) as con:
        lines = [d.line() for d in compare_runs(con, "a", "c")]
    assert lines == [
        "config: seed",
        "inputs: A read pairs p v1 sha256 aaaa; B read pairs p v2 sha256 bbbb",
        "analysis.gaps: 2 vs 2 rows; changed ci_high, ci_low, delta; 1 estimate outside run A's interval",
    ]


def test_a_table_too_large_to_read_is_compared_by_its_counts_and_rows_of_one_run_are_named(warehouse, monkeypatch):
    _, file = warehouse
    monkeypatch.setattr(result_rows, "MOST_ROWS_READ", 0)
    with duckdb.connect(file) as con:
        assert compare_runs(con, "a", "b") == []  # equal at 12 digits: nothing read
        assert compare_runs(con, "a", "c")[-1].line() == "analysis.gaps: 2 vs 2 rows; 1 row of A and 1 of B differ"
        con.execute("create table marts.hits (run_id varchar, rank integer)")
        con.execute("insert into marts.hits values ('a', 1), ('a', 2)")
        assert compare_runs(con, "a", "b")[-1].line() == "marts.hits: 2 rows, only in run A"


def test_biaswh_diff_prints_one_line_per_group_or_identical_and_refuses_an_unknown_run(warehouse, capsys, monkeypatch):
    home, _ = warehouse
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    assert run_main(["diff", "a", "b"], capsys) == (0, "identical\n", "")
    code, out, _ = run_main(["diff", "a", "c"], capsys)
    assert code == 0 and out.splitlines()[0] == "config: seed" and len(out.splitlines()) == 3
    code, _, error = run_main(["diff", "a", "zz"], capsys)
    assert_refused(code, error, ["'zz'", "no run"])


def test_rows_keyed_by_a_list_or_struct_cell_are_matched_and_their_change_named(tmp_path):
    """A WEAT table keys its rows by a list of words: two runs that differ there are described, not a crash."""
    file = str(tmp_path / "warehouse.duckdb")
    with duckdb.connect(file) as con:
        con.execute("create schema marts; create schema analysis")
        con.execute("create table marts.dim_runs (run_id varchar, parameters varchar)")
        con.execute(
            "create table analysis.word_sets (run_id varchar, words varchar[], options struct(k integer), d double)"
        )
        con.execute(
            "insert into analysis.word_sets values ('a', ['x', 'y'], {'k': 1}, 0.5), ('b', ['x', 'y'], {'k': 1}, 0.7),"
            " ('a', ['z'], {'k': 2}, 0.1), ('b', ['z'], {'k': 2}, 0.1)"
        )
        (table,) = [t for t in result_rows.run_keyed_tables(con) if t.name == "analysis.word_sets"]
        described = result_rows.table_difference(con, table, "a", "b", (2, 2))
    assert described == "2 vs 2 rows; changed d"


def test_the_one_grouping_finds_equal_rows_equal_and_a_repeated_row_different(warehouse):
    # The short cut before the two `except all`: equal (to 12 digits) rows, once each, are the same rows;
    # a row twice in one run and once in the other is not (a multiset, as `except all` counts).
    _, file = warehouse
    with duckdb.connect(file) as con:
        (gaps,) = [t for t in result_rows.run_keyed_tables(con) if t.name == "analysis.gaps"]
        assert result_rows._same_rows(con, gaps, ["a"], ["b"])
        assert not result_rows._same_rows(con, gaps, ["a"], ["c"])
        con.execute("insert into analysis.gaps values ('b', 5, 0.5, 0.25, 0.75, 1.0)")
        assert not result_rows._same_rows(con, gaps, ["a"], ["b"])
        assert not result_rows._same_rows(con, gaps, ["b"], ["a"])
