"""Read an embedding's vectors back from the warehouse's LanceDB folder."""

from __future__ import annotations

import numpy as np

from warehouse.errors import UserError
from warehouse.settings import warehouse_paths


def read_embedding(lancedb_table: str) -> tuple[list[str], np.ndarray]:
    """Words (in the source's order) and their float32 vectors from one LanceDB table."""
    import lancedb

    database = lancedb.connect(str(warehouse_paths().lancedb_dir))
    try:
        arrow = database.open_table(lancedb_table).to_arrow().sort_by("row")
    except (ValueError, FileNotFoundError) as exc:
        raise UserError(f"LanceDB table {lancedb_table!r} is missing from {warehouse_paths().lancedb_dir}"
                        f" ({exc}): re-ingest the embedding") from None
    vectors = arrow.column("vector").combine_chunks()
    dim = vectors.type.list_size
    matrix = vectors.values.to_numpy(zero_copy_only=False).reshape(-1, dim)
    return arrow.column("word").to_pylist(), matrix.astype(np.float32, copy=False)
