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
