"""Fingerprints of a warehouse's rows: per raw table, per (table, run), per run across runs.

Tests compare them before and after an operation to show what it changed and what it did not
(a refused input leaves every raw table as it was; a later run leaves a finished run's rows).
"""

from __future__ import annotations

import duckdb


def raw_fingerprint(connection: duckdb.DuckDBPyConnection) -> dict[str, tuple]:
    """Row count and an order-independent content hash of every raw table."""
    tables = [
        r[0]
        for r in connection.execute(
            "select table_name from information_schema.tables where table_schema = 'raw' order by 1"
        ).fetchall()
    ]
    return {
        t: connection.execute(f"select count(*), coalesce(sum(hash(t)), 0) from raw.{t} t").fetchone() for t in tables
    }


def warehouse_raw_fingerprint() -> dict[str, tuple]:
    """:func:`raw_fingerprint` of the warehouse ``BIASWH_HOME`` names, on a read-only connection."""
    from biaswh.warehouse.database.connection import connect

    connection = connect(read_only=True)
    try:
        return raw_fingerprint(connection)
    finally:
        connection.close()


def run_fingerprints(connection: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], tuple]:
    """Row count and an order-independent content hash per (table, run) of every run-keyed table.

    Covers every table (not view) in ``marts`` and ``analysis`` with a ``run_id`` column.
    """
    tables = connection.execute(
        "select c.table_schema || '.' || c.table_name from information_schema.columns c"
        " join information_schema.tables t using (table_schema, table_name)"
        " where c.column_name = 'run_id' and c.table_schema in ('marts', 'analysis')"
        " and t.table_type = 'BASE TABLE' order by 1"
    ).fetchall()
    fingerprints = {}
    for (table,) in tables:
        for run_id, n_rows, digest in connection.execute(
            f"select run_id, count(*), sum(hash(t)::hugeint) from {table} t group by run_id"
        ).fetchall():
            fingerprints[(table, run_id)] = (n_rows, digest)
    return fingerprints


def run_content_fingerprints(connection: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, tuple]:
    """Row count and an order-independent content hash of one run's rows in every run-keyed table.

    Like :func:`run_fingerprints`, but comparable across runs: every column holding a run id
    (its name ends in ``run_id``) and every timestamp are left out of the hash, and doubles are
    hashed rounded to 12 decimals: DuckDB's parallel ``avg`` and ``sum`` add in a
    thread-dependent order, so two runs over identical rows can differ in the last bit (1e-16).
    """
    columns = connection.execute(
        "select c.table_schema || '.' || c.table_name,"
        " list(case when c.data_type in ('DOUBLE', 'FLOAT') then format('round(\"{}\", 12)', c.column_name)"
        " else format('\"{}\"', c.column_name) end order by c.ordinal_position)"
        " filter (where c.column_name not like '%run_id' and c.data_type not like 'TIMESTAMP%')"
        " from information_schema.columns c join information_schema.tables t using (table_schema, table_name)"
        " where c.table_schema in ('marts', 'analysis') and t.table_type = 'BASE TABLE'"
        " group by 1 having bool_or(c.column_name = 'run_id') order by 1"
    ).fetchall()
    fingerprints = {}
    for table, kept in columns:
        listed = ", ".join(kept)
        fingerprints[table] = connection.execute(
            f"select count(*), coalesce(sum(hash(row({listed}))::hugeint), 0) from {table} where run_id = ?",
            [run_id],
        ).fetchone()
    return fingerprints
