"""What a refused command must leave as it was: the warehouse file's bytes, its folder, its rows."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import duckdb


def warehouse_state(home: Path) -> tuple:
    """(sha256 of ``warehouse.duckdb``, the folder's entries, row counts of every table)."""
    database = home / "warehouse.duckdb"
    digest = hashlib.sha256(database.read_bytes()).hexdigest()
    entries = sorted(os.listdir(home))
    con = duckdb.connect(str(database), read_only=True)
    try:
        tables = con.execute(
            "select table_schema, table_name from information_schema.tables where table_type = 'BASE TABLE'"
            " order by all"
        ).fetchall()
        counts = {
            f"{schema}.{table}": con.execute(f'select count(*) from "{schema}"."{table}"').fetchone()[0]
            for schema, table in tables
        }
    finally:
        con.close()
    return digest, entries, counts
