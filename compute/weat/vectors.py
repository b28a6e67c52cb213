"""Read an embedding's words and vectors back from the warehouse's LanceDB folder.

A WEAT needs every word of the vocabulary (to find the listed words) but only the vectors of
the few hundred words it uses, so :class:`LanceVectors` fetches vectors by row on demand: a
3-million-word embedding never has to fit in memory.
"""

from __future__ import annotations

import numpy as np

from warehouse.errors import UserError
from warehouse.settings import warehouse_paths

_FETCH_CHUNK = 1000


def _open(lancedb_table: str):
    import lancedb

    database = lancedb.connect(str(warehouse_paths().lancedb_dir))
    try:
        return database.open_table(lancedb_table)
    except (ValueError, FileNotFoundError) as exc:
        raise UserError(
            f"LanceDB table {lancedb_table!r} is missing from {warehouse_paths().lancedb_dir}"
            f" ({exc}): re-ingest the embedding"
        ) from None


def _matrix(column) -> np.ndarray:
    vectors = column.combine_chunks()
    return vectors.values.to_numpy(zero_copy_only=False).reshape(-1, vectors.type.list_size).astype(np.float32)


class LanceVectors:
    """Vectors of one LanceDB table, indexed like the vocabulary (0-based), fetched and cached on demand."""

    def __init__(self, lancedb_table: str):
        self._table = _open(lancedb_table)
        self._cache: dict[int, np.ndarray] = {}

    def words(self) -> list[str]:
        """Every word, in the source's order (row 1 first)."""
        arrow = self._table.search().select(["word", "row"]).limit(None).to_arrow().sort_by("row")
        return arrow.column("word").to_pylist()

    def __getitem__(self, rows) -> np.ndarray:
        wanted = [int(r) for r in rows]
        missing = sorted(set(wanted) - set(self._cache))
        for start in range(0, len(missing), _FETCH_CHUNK):
            ids = ", ".join(str(r + 1) for r in missing[start : start + _FETCH_CHUNK])  # LanceDB rows count from 1
            arrow = self._table.search().where(f"row IN ({ids})").select(["row", "vector"]).limit(None).to_arrow()
            for row, vector in zip(arrow.column("row").to_pylist(), _matrix(arrow.column("vector"))):
                self._cache[row - 1] = vector
        if not wanted:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._cache[r] for r in wanted])


def read_embedding(lancedb_table: str) -> tuple[list[str], np.ndarray]:
    """All words (in the source's order) and their float32 vectors from one LanceDB table."""
    arrow = _open(lancedb_table).to_arrow().sort_by("row")
    return arrow.column("word").to_pylist(), _matrix(arrow.column("vector"))
