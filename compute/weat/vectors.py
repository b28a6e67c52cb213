"""Read an embedding's words and vectors back from the warehouse's LanceDB folder (through DuckDB).

A WEAT needs every word of the vocabulary (to find the listed words) but only the vectors of
the few hundred words it uses, so :class:`LanceVectors` fetches vectors by row on demand: a
3-million-word embedding never has to fit in memory.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from biaswh.warehouse.database import lance_tables
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import warehouse_paths

_FETCH_CHUNK = 1000


def _folder(lancedb_table: str) -> Path:
    """This warehouse's LanceDB folder, checked to hold ``lancedb_table``."""
    folder = warehouse_paths().lancedb_dir
    if not lance_tables.table_exists(folder, lancedb_table):
        raise UserError(f"LanceDB table {lancedb_table!r} is missing from {folder}: re-ingest the embedding")
    return folder


def _matrix(column) -> np.ndarray:
    vectors = column.combine_chunks()
    return vectors.values.to_numpy(zero_copy_only=False).reshape(-1, vectors.type.list_size).astype(np.float32)


class LanceVectors:
    """Vectors of one LanceDB table, indexed like the vocabulary (0-based), fetched and cached on demand."""

    def __init__(self, lancedb_table: str):
        self._folder, self._table = _folder(lancedb_table), lancedb_table
        self._cache: dict[int, np.ndarray] = {}

    def words(self) -> list[str]:
        """Every word, in the source's order (row 1 first)."""
        arrow = lance_tables.read(self._folder, self._table, 'word, "row"').sort_by("row")
        return arrow.column("word").to_pylist()

    def __getitem__(self, rows) -> np.ndarray:
        wanted = [int(r) for r in rows]
        missing = sorted(set(wanted) - set(self._cache))
        for start in range(0, len(missing), _FETCH_CHUNK):
            ids = ", ".join(str(r + 1) for r in missing[start : start + _FETCH_CHUNK])  # LanceDB rows count from 1
            arrow = lance_tables.read(self._folder, self._table, '"row", vector', f'"row" in ({ids})')
            for row, vector in zip(arrow.column("row").to_pylist(), _matrix(arrow.column("vector"))):
                self._cache[row - 1] = vector
        if not wanted:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._cache[r] for r in wanted])


def read_embedding(lancedb_table: str) -> tuple[list[str], np.ndarray]:
    """All words (in the source's order) and their float32 vectors from one LanceDB table."""
    arrow = lance_tables.read(_folder(lancedb_table), lancedb_table, 'word, vector, "row"').sort_by("row")
    return arrow.column("word").to_pylist(), _matrix(arrow.column("vector"))
