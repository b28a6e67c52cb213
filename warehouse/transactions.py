"""One transaction helper: everything inside commits together or not at all."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import duckdb


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``with transaction(con):`` begins, commits on success, and rolls back on any exception.

    A failure (a bad row, a killed job, a full disk) leaves the warehouse exactly as before.
    """
    con.begin()
    try:
        yield con
    except BaseException:
        con.rollback()
        raise
    con.commit()


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, name: str, rows) -> Iterator[str]:
    """``with registered(con, "incoming", arrow_table):`` makes ``rows`` queryable as ``name``
    (an Arrow table, record batch reader or DataFrame) and always unregisters it afterwards."""
    con.register(name, rows)
    try:
        yield name
    finally:
        con.unregister(name)
