"""Parquet files of precomputed vectors, and the model that computed them.

A file written by :func:`export_parquet` holds a cache's rows exactly (``text_sha256``, the
float32 ``vector`` as the encoder gave it, ``text``) and names its model in the Parquet
metadata: the cache's model id and, when known, the sha256 of the model folder. An import
(:meth:`~biaswh.ingest.common.embedding_cache.EmbeddingCache.import_parquet`) reads these first
and skips a file of another model, so a user whose encoder differs gets their own encoder's
vectors, never the file's. Files without the metadata (the real studies' shared vectors) name no
model and are imported as they always were.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

MODEL_ID_KEY = b"biaswh.model_id"
MODEL_SHA256_KEY = b"biaswh.model_sha256"
# A row this close to unit length is the encoder's as it is: dividing by its norm would change its last bits.
UNIT_TOLERANCE = 1e-5
# Set while the demo's vectors are computed afresh (biaswh/common/demo_vectors.py): imports are skipped.
_IGNORE_PRECOMPUTED: contextvars.ContextVar[bool] = contextvars.ContextVar("ignore_precomputed", default=False)


@contextlib.contextmanager
def ignoring_precomputed():
    """Within the block, every import of a vector file is skipped (every text is embedded)."""
    token = _IGNORE_PRECOMPUTED.set(True)
    try:
        yield
    finally:
        _IGNORE_PRECOMPUTED.reset(token)


def unit_rows_kept_exact(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` (float32) with each row of unit length; a row within :data:`UNIT_TOLERANCE` of
    unit length is kept bit for bit (an encoder's normalised row, stored as it gave it)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.where(np.abs(norms - 1) <= UNIT_TOLERANCE, vectors, vectors / np.where(norms == 0, 1, norms))


@dataclass(frozen=True)
class RecordedModel:
    """The model a vector file says computed it (None: the file does not say)."""

    model_id: str | None
    model_sha256: str | None


def recorded_model(path: str | Path) -> RecordedModel:
    """The model id and model-folder sha256 a Parquet vector file records (reads its footer only)."""
    try:
        metadata = pq.read_schema(path).metadata or {}
    except (pa.ArrowInvalid, OSError):
        return RecordedModel(None, None)  # the import reports the unreadable file itself
    model_id, sha = metadata.get(MODEL_ID_KEY), metadata.get(MODEL_SHA256_KEY)
    return RecordedModel(model_id.decode() if model_id else None, sha.decode() if sha else None)


ModelHash = str | Callable[[], str | None] | None  # a model folder's sha256, or what gives it when asked


def other_model(path: str | Path, model_id: str, model_sha256: ModelHash) -> str | None:
    """Why the vectors of ``path`` are not ``model_id``'s, or None when nothing says they are another model's.

    ``model_sha256`` is the local model folder's hash (or a function giving it, called only when
    the file records a hash), None when unknown.
    """
    recorded = recorded_model(path)
    if recorded.model_id is not None and recorded.model_id != model_id:
        return f"computed with {recorded.model_id!r}, not {model_id!r}"
    if recorded.model_sha256 and callable(model_sha256):
        model_sha256 = model_sha256()
    if recorded.model_sha256 and model_sha256 and recorded.model_sha256 != model_sha256:
        return (
            f"computed with another version of {model_id!r} (model folder sha256 "
            f"{recorded.model_sha256[:12]}, this machine's {model_sha256[:12]})"
        )
    return None


def skip_reason(path: str | Path, model_id: str, model_sha256: ModelHash) -> str | None:
    """Why an import of ``path`` into ``model_id``'s cache adds nothing, or None to import it."""
    if _IGNORE_PRECOMPUTED.get():
        return "ignored: every text is embedded afresh"
    return other_model(path, model_id, model_sha256)


def export_parquet(cache, path: str | Path, *, model_sha256: str | None = None, texts: set[str] | None = None) -> int:
    """Write the cached vectors of ``cache`` (an :class:`EmbeddingCache`) to ``path``, exactly.

    Rows are sorted by ``text_sha256`` (the same cache gives the same file); ``texts`` limits
    them to those texts. The Parquet metadata records the cache's model id and ``model_sha256``.

    Returns
    -------
    int: the number of vectors written.
    """
    table = cache.rows_with_text()
    if texts is not None:
        wanted = pa.array(sorted(texts), pa.string())
        table = table.filter(pc.is_in(table.column("text"), value_set=wanted))
    table = table.sort_by("text_sha256").select(["text_sha256", "vector", "text"])
    metadata = {MODEL_ID_KEY: cache.model_id.encode()}
    if model_sha256:
        metadata[MODEL_SHA256_KEY] = model_sha256.encode()
    table = table.replace_schema_metadata(metadata)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    # Byte-stream split lays each float's bytes side by side: 30% smaller than plain zstd, the same bits.
    pq.write_table(
        table,
        path,
        compression="zstd",
        compression_level=19,
        use_dictionary=False,
        use_byte_stream_split=["vector.list.element"],
    )
    return table.num_rows
