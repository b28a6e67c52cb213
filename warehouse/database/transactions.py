"""One transaction helper: everything inside commits together or not at all."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import duckdb

from biaswh.warehouse.settings.home import duckdb_memory_limit


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
    try:
        con.commit()
    except duckdb.TransactionException as exc:  # DuckDB rolled it back; a full disk says so here
        raise CommitFailed(str(exc).splitlines()[0]) from None


class CommitFailed(OSError):
    """A commit DuckDB could not write (a full disk): nothing of the transaction stays.

    An ``OSError``, as the disk's other failures are: the CLI prints it in one line and exits 1,
    and a study run is marked failed with it (before, a traceback).
    """


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, name: str, rows) -> Iterator[str]:
    """``with registered(con, "incoming", arrow_table):`` makes ``rows`` queryable as ``name``
    (an Arrow table, record batch reader or DataFrame) and always unregisters it afterwards."""
    con.register(name, rows)
    try:
        yield name
    finally:
        con.unregister(name)


STREAMING_MEMORY_LIMIT = 384 * 1024**2
_UNITS = {"bytes": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4}


@contextmanager
def streaming_memory(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``with streaming_memory(con):`` runs a large append under a memory limit of at most 384 MiB.

    DuckDB keeps the blocks an ``insert ... select`` writes in its buffer pool up to its memory
    limit (2 GB by default: the driver of a 50 M-row retrieval job grew by 1.9 GB), though an
    append never reads them again. Measured with 50 M result rows from Parquet: 40 s at 2 GB and
    at 384 MiB, 77 s at 128 MiB. A lower limit is kept; afterwards the warehouse's own limit
    (``BIASWH_MEMORY_LIMIT``, with which its connections open) is set again.
    """

    value, unit = con.execute("select current_setting('memory_limit')").fetchone()[0].split()
    before = float(value) * _UNITS.get(unit, 1)
    if before <= STREAMING_MEMORY_LIMIT:
        yield con
        return
    # Set through a cursor of its own: the database's setting, out of the caller's transaction
    # (which a failed append leaves aborted until the caller rolls it back).
    with con.cursor() as setter:
        setter.execute(f"set global memory_limit = '{STREAMING_MEMORY_LIMIT // 1024**2}MiB'")
        try:
            yield con
        finally:
            setter.execute("set global memory_limit = ?", [duckdb_memory_limit()])
