"""`python -m benchmarks.compare_warehouses A B`: same results pass, a changed run is named."""

from __future__ import annotations

import duckdb

from benchmarks.compare_warehouses import main


def _warehouse(path, *, recall: float, latency: float, extra_run: bool = False) -> str:
    file = str(path)
    with duckdb.connect(file) as con:
        con.execute("create schema raw; create schema marts; create schema analysis")
        con.execute("create table raw.runs (run_id varchar, kind varchar, name varchar, started_at timestamp)")
        runs = [("r1", "demo", "2026-01-01"), ("r2", "demo", "2026-01-02"), ("r3", "real", "2026-01-03")]
        con.executemany("insert into raw.runs values (? || ?, 'study', ?, ?)", [(file, r, n, t) for r, n, t in runs])
        con.execute("create table marts.recall (run_id varchar, k int, recall double, latency_ms double)")
        rows = [(f"{file}r1", 5, 0.5, latency), (f"{file}r2", 5, recall, latency), (f"{file}r3", 5, 0.25, latency)]
        if extra_run:
            rows.append((f"{file}r3", 10, 0.5, latency))
        con.executemany("insert into marts.recall values (?, ?, ?, ?)", rows)
        con.execute("create table analysis.totals as select 3 as n, 1 / 3 as share")
        # the latency check breaches on a slow machine only: a row that depends on the machine
        con.execute("create table marts.checks (run_id varchar, is_breached bool, depends_on_machine bool)")
        con.execute(
            "insert into marts.checks values (? || 'r1', ?, true), (? || 'r1', false, false)", [file, latency > 5, file]
        )
    return file


def test_run_ids_latencies_and_float_noise_are_not_differences(tmp_path, capsys):
    # Two sums of one mean in another order: printed to 12 digits they fall on either side.
    a = _warehouse(tmp_path / "a.duckdb", recall=0.12345678901250003, latency=1.0)
    b = _warehouse(tmp_path / "b.duckdb", recall=0.12345678901249998, latency=9.0)
    assert main([a, b]) == 0
    assert "3 tables identical (5 rows; 1 of them with floats equal within 1e-09), 0 differ" in capsys.readouterr().out


def test_a_changed_value_or_row_names_its_table_and_runs(tmp_path, capsys):
    a = _warehouse(tmp_path / "a.duckdb", recall=0.3, latency=1.0)
    b = _warehouse(tmp_path / "b.duckdb", recall=0.31, latency=1.0, extra_run=True)
    assert main([a, b]) == 1
    out = capsys.readouterr().out
    assert "DIFF marts.recall: 3 vs 4 rows; runs: demo#2, real#1" in out and "2 tables identical" in out
