"""Vectors in LanceDB: an embedding cache keyed by (model id, sha256 of the exact text).

One LanceDB table per model holds ``text_sha256``, ``vector``, ``text`` and ``origin``
(``computed`` or the Parquet file it was imported from). ``vectors_for`` embeds only the
texts the cache does not hold yet, so a rerun embeds nothing it has seen.

The cache is the machine's, not a warehouse's (:func:`shared_embedding_cache`): a user-level
folder (``~/.cache/biaswh/embeddings``, or ``BIASWH_EMBEDDING_CACHE``), so a fresh warehouse
does not re-embed texts another one embedded with the same model.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from biaswh.ingest.common.vector_files import ModelHash, skip_reason, unit_rows_kept_exact
from biaswh.warehouse.database import lance_tables
from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.progress import counted
from biaswh.warehouse.runs.registry import file_sha256
from biaswh.warehouse.settings.home import user_cache_dir

CACHE_VARIABLE = "BIASWH_EMBEDDING_CACHE"
EMBED_BATCH = 4096  # texts per provider call (the provider batches further)
IMPORT_SAMPLE = 8  # hashes of an imported file kept in its record, checked before the file is skipped


def embedding_cache_dir() -> Path:
    """The machine's embedding cache folder: ``BIASWH_EMBEDDING_CACHE``, else
    ``~/.cache/biaswh/embeddings``; never inside the repository (vectors are data)."""
    return user_cache_dir(CACHE_VARIABLE, "embeddings")


def shared_embedding_cache(model_id: str) -> "EmbeddingCache":
    """The machine's :class:`EmbeddingCache` of ``model_id`` (shared by every warehouse)."""
    return EmbeddingCache(embedding_cache_dir(), model_id)


def text_sha256(text: str) -> str:
    """The cache key of a text: sha256 of its UTF-8 bytes, as DuckDB's ``sha256()`` gives."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _table_name(model_id: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", model_id.lower()).strip("_")[:40]
    return f"embeddings_{slug}_{hashlib.sha256(model_id.encode()).hexdigest()[:8]}"


def _as_os_error(exc: Exception, folder: Path) -> Exception:
    """A write error of LanceDB as one-line OSError with its errno (the CLI's "rolled back" line, exit 1).

    LanceDB reports a full disk as ``RuntimeError: lance error: LanceError(IO): No space left on
    device (os error 28), <rust source path>``; anything without an OS error number is not an I/O
    failure and is returned as it was.
    """
    number = getattr(exc, "errno", None)
    found = re.search(r"\(os error (\d+)\)", str(exc))
    if number is None and found:
        number = int(found.group(1))
    if number is None:
        return exc
    return OSError(number, f"{os.strerror(number)} while writing the vector cache {folder}")


@dataclass(frozen=True)
class ImportResult:
    """What a Parquet import added to the cache."""

    path: str
    source_sha256: str
    n_rows: int
    n_new: int
    dimension: int
    skipped: str | None = None  # why nothing was imported (another model's vectors), else None

    def describe(self) -> str:
        """One line for the run's log: what the file added, or why it was skipped."""
        name = Path(self.path).name
        if self.skipped:
            return f"embeddings {name}: skipped, {self.skipped}; the texts are embedded here"
        return f"embeddings {name}: {self.n_rows:,} vectors, {self.n_new:,} new in the cache"


class EmbeddingCache:
    """The cached vectors of one embedding model, in a LanceDB folder.

    Reads go through DuckDB's lance extension (warehouse/database/lance_tables.py); LanceDB itself is
    imported only to write, so a run whose texts are all cached never pays its import.
    """

    def __init__(self, lancedb_dir: str | Path, model_id: str) -> None:
        self.model_id = model_id
        self.table_name = _table_name(model_id)
        self.lancedb_dir = Path(lancedb_dir)

    @functools.cached_property
    def _db(self):
        import lancedb  # imported here: it costs seconds, and only writing needs it

        return lancedb.connect(str(self.lancedb_dir))

    def _exists(self) -> bool:
        return lance_tables.table_exists(self.lancedb_dir, self.table_name)

    def _read(self, select: str, where: str = "true", params: list | None = None) -> pa.Table:
        return lance_tables.read(self.lancedb_dir, self.table_name, select, where, params)

    def known(self) -> pa.Table:
        """Every cached (text_sha256, vector) of this model."""
        if not self._exists():
            return pa.table({"text_sha256": pa.array([], pa.string()), "vector": pa.array([], pa.list_(pa.float32()))})
        return self._read("text_sha256, vector")

    def rows_with_text(self) -> pa.Table:
        """Every cached (text_sha256, vector, text) of this model (what an export writes)."""
        if not self._exists():
            return self.known().append_column("text", pa.array([], pa.string()))
        return self._read("text_sha256, vector, text")

    def known_shas(self) -> set[str]:
        """The text sha256 of every cached vector of this model.

        Reads the hash column only: 0.03-0.06 s for 32,521 cached vectors where reading the
        vectors too takes 0.3 s, and the cache is the machine's, growing with every corpus
        embedded on it.
        """
        return set(self._read("text_sha256").column("text_sha256").to_pylist()) if self._exists() else set()

    def dimension(self) -> int | None:
        return self._read("vector", "false").schema.field("vector").type.list_size if self._exists() else None

    def add(self, shas: list[str], vectors: np.ndarray, texts: list[str | None], *, origin: str) -> int:
        """Store vectors for hashes the cache does not hold; return how many were new."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if len(shas) == 0:
            return 0
        dimension = self.dimension()
        if dimension is not None and vectors.shape[1] != dimension:
            raise UserError(
                f"embedding model {self.model_id!r} has {dimension}-d vectors in the cache, "
                f"but {vectors.shape[1]}-d vectors were given ({origin})"
            )
        have = self.known_shas()
        keep = [i for i, sha in enumerate(shas) if sha not in have]
        keep = list({shas[i]: i for i in keep}.values())  # one row per text
        if not keep:
            return 0
        rows = pa.table(
            {
                "text_sha256": pa.array([shas[i] for i in keep], pa.string()),
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors[keep].ravel()), vectors.shape[1]),
                "text": pa.array([texts[i] for i in keep], pa.string()),
                "origin": pa.array([origin] * len(keep), pa.string()),
            }
        )
        try:
            if not self._exists():
                try:
                    self._db.create_table(self.table_name, rows)
                except ValueError:  # another process (another warehouse) created it just now
                    self._db.open_table(self.table_name).add(rows)
            else:
                self._db.open_table(self.table_name).add(rows)
        except (RuntimeError, OSError) as exc:
            raise _as_os_error(exc, self.lancedb_dir) from None
        return len(keep)

    def import_parquet(self, path: str | Path, *, model_sha256: ModelHash = None) -> ImportResult:
        """Import precomputed vectors (columns ``text_sha256``, ``vector``, optional ``text``).

        Rows already cached are skipped; vectors are stored unit-normalised (a row already of
        unit length is stored bit for bit: :func:`~biaswh.ingest.common.vector_files.unit_rows_kept_exact`).
        When ``text`` is present, its sha256 must equal ``text_sha256`` (a mismatch names the row).
        A file whose metadata names another model (:mod:`~biaswh.ingest.common.vector_files`; or
        another ``model_sha256`` of the model folder) is skipped: ``skipped`` says why.
        """
        path = Path(path)
        if not path.is_file():
            raise UserError(f"{path}: no such embeddings file")
        digest = file_sha256(path)
        reason = skip_reason(path, self.model_id, model_sha256)
        if reason:
            return ImportResult(str(path), digest, 0, 0, 0, skipped=reason)
        imported = self._imported(path, digest)
        if imported is not None:
            return imported
        try:
            table = pq.read_table(path)
        except (pa.ArrowInvalid, OSError) as exc:
            raise InputError(path, f"not a readable Parquet file ({exc})") from None
        for column in ("text_sha256", "vector"):
            if column not in table.column_names:
                raise InputError(path, "missing column", field=column)
        shas = table.column("text_sha256").to_pylist()
        texts = table.column("text").to_pylist() if "text" in table.column_names else [None] * len(shas)
        for row, (sha, text) in enumerate(zip(shas, texts), start=1):
            if sha is None or not re.fullmatch(r"[0-9a-f]{64}", sha):
                raise InputError(path, "not a lowercase hex sha256", row=row, field="text_sha256")
            if text is not None and text_sha256(text) != sha:
                raise InputError(path, "text_sha256 is not the sha256 of text", row=row, field="text_sha256")
        vectors = np.asarray(
            table.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False), dtype=np.float32
        )
        if len(shas) and vectors.size % len(shas):
            raise InputError(path, "vectors differ in length", field="vector")
        vectors = vectors.reshape(len(shas), -1) if len(shas) else vectors.reshape(0, 0)
        if not np.isfinite(vectors).all():
            raise InputError(path, "vector holds NaN or infinity", field="vector")
        vectors = unit_rows_kept_exact(vectors)
        new = self.add(shas, vectors, texts, origin=f"import:{path.name}:{digest[:12]}")
        result = ImportResult(str(path), digest, len(shas), new, vectors.shape[1] if len(shas) else 0)
        self._mark_imported(result, shas)
        return result

    def _import_marker(self, digest: str) -> Path:
        return self.lancedb_dir / "imported" / self.table_name / f"{digest}.json"

    def _imported(self, path: Path, digest: str) -> ImportResult | None:
        """The import of the file with sha256 ``digest`` into this cache, when one completed before.

        Every row of such a file is cached, so reading, checking and normalising its vectors
        again would add nothing (0.8 s of each warm real dialect run for SQuAD's 19,268 vectors).
        The record names a few of the file's hashes, spread over it: a cache whose table is gone,
        or was made again since, lacks them, and the file is imported again.
        """
        try:
            recorded = json.loads(self._import_marker(digest).read_text(encoding="utf-8"))
            n_rows, dimension, sample = recorded["n_rows"], recorded["dimension"], set(recorded["sample"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not self._exists() or self._cached_rows(sample).num_rows != len(sample):
            return None
        return ImportResult(str(path), digest, n_rows, 0, dimension)

    def _mark_imported(self, result: ImportResult, shas: list[str]) -> None:
        """Record a completed import (written whole: a reader sees the record or none)."""
        marker = self._import_marker(result.source_sha256)
        step = max(1, len(shas) // IMPORT_SAMPLE)
        record = {"n_rows": result.n_rows, "dimension": result.dimension, "sample": sorted(set(shas[::step]))}
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomically(marker, json.dumps(record))
        except OSError:
            pass  # no record: the next import of the file reads and checks it again

    def vectors_for(self, texts: list[str], provider) -> tuple[np.ndarray, int]:
        """Unit vectors for ``texts`` (in order), embedding only those not cached yet.

        ``provider`` is any object with ``model_id`` and ``embed(texts)`` (the providers of
        ``compute/retrieval/embeddings.py``, or the WEAT sentence encoder), or None when every
        text must already be cached.

        Returns
        -------
        (vectors, n_embedded): the matrix and how many texts the provider had to embed.
        """
        shas = [text_sha256(t) for t in texts]
        missing = sorted(set(shas) - self.known_shas())
        if missing:
            if provider is None:
                raise UserError(
                    f"{len(missing)} text(s) have no cached {self.model_id!r} vector and no provider is set"
                )
            by_sha = {sha: text for sha, text in zip(shas, texts)}
            missing_texts = [by_sha[sha] for sha in missing]
            # In batches, each stored as it comes: the counter moves, and an interruption keeps what was embedded.
            batches = range(0, len(missing), EMBED_BATCH)
            for start in counted(batches, f"embedding with {self.model_id}", unit="batches"):
                chunk = slice(start, start + EMBED_BATCH)
                self.add(missing[chunk], provider.embed(missing_texts[chunk]), missing_texts[chunk], origin="computed")
        known = self._cached_rows(set(shas))
        position = {sha: i for i, sha in enumerate(known.column("text_sha256").to_pylist())}
        matrix = np.asarray(
            known.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False), dtype=np.float32
        ).reshape(known.num_rows, -1)
        return matrix[[position[sha] for sha in shas]] if shas else matrix[:0], len(missing)

    def _cached_rows(self, wanted: set[str]) -> pa.Table:
        """The cached (text_sha256, vector) rows of ``wanted``, filtered where they are read (400
        queries' vectors of a 32,521-vector cache in 0.1 s)."""
        if not wanted or not self._exists():
            return self.known().slice(0, 0)
        return self._read("text_sha256, vector", "text_sha256 in (select unnest($1::varchar[]))", [sorted(wanted)])
