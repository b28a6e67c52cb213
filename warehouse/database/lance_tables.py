"""Read Lance tables (the embedding cache, a warehouse's word vectors) through DuckDB.

LanceDB (``lancedb``) writes them; reading goes through DuckDB's lance extension
(``duckdb-extension-lance``, pinned to our DuckDB), loaded once per process into an in-memory
database: 0.02 s of CPU (its signature unchecked: :func:`_database`), where ``import lancedb`` took
2.4-3 s here (most of it a REST namespace client that local folders never use). A study whose
vectors are all cached only reads, so it never imports LanceDB.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path

import duckdb
import pyarrow as pa

from biaswh.warehouse.database.connection import quiet

_LOCK = threading.Lock()


def extension_path() -> Path:
    """The lance extension's file for this DuckDB, from the ``duckdb-extension-lance`` package."""
    import duckdb_extension_lance

    folder = Path(next(iter(duckdb_extension_lance.__path__)))
    return folder / "extensions" / f"v{duckdb.__version__}" / "lance.duckdb_extension"


@functools.cache
def _database() -> duckdb.DuckDBPyConnection:
    # DuckDB checks an extension's signature by hashing the whole file: 0.87 of the 0.9 s of CPU the
    # load cost (the file is 254 MB), in every process that reads vectors. It guards extensions
    # fetched at run time; this one is a file of the installed package whose __init__.py
    # extension_path() has just run, so whoever could change the file could change that code too.
    # Only this in-memory database skips it: it runs the callers' own queries, never a user's.
    con = quiet(duckdb.connect(config={"allow_unsigned_extensions": True}))
    con.execute(f"load {quoted(extension_path())}")
    return con


def quoted(path: Path | str) -> str:
    """``path`` as a SQL string literal."""
    return "'" + str(path).replace("'", "''") + "'"


def table_path(folder: Path | str, name: str) -> Path:
    """Where LanceDB keeps table ``name`` of the database folder ``folder``."""
    return Path(folder) / f"{name}.lance"


def table_exists(folder: Path | str, name: str) -> bool:
    """Whether ``folder`` holds a committed table ``name`` (a version written, not a folder being made)."""
    versions = table_path(folder, name) / "_versions"
    return versions.is_dir() and any(versions.iterdir())


def read(folder: Path | str, name: str, select: str, where: str = "true", params: list | None = None) -> pa.Table:
    """``select <select> from <table> where <where>`` over the table's latest version, as Arrow.

    ``select`` and ``where`` are the caller's SQL (column names, ``$1``-style parameters).
    """
    with _LOCK:
        cursor = _database().cursor()
    try:
        query = f"select {select} from {quoted(table_path(folder, name))} where {where}"
        return cursor.execute(query, params or []).to_arrow_table()
    finally:
        cursor.close()
