"""Retrieval chunks fanned out over a pool of Ray actors (the ``ray`` compute engine).

The driver builds the BM25 indexes and puts them, with the corpora, in Ray's object store
once; each actor takes them from there once and then retrieves chunk after chunk with
:func:`biaswh.compute.retrieval.chunks.retrieve_chunk`, the function the local engine calls, and
sends its ranked hits back as Parquet bytes. The driver keeps at most one chunk per worker in
flight and writes what comes back in chunk order to its spool, so its memory does not grow
with the query set. A dense retriever's queries fan out too; its ANN index, if configured, is
built by the driver before the chunks go out (:func:`biaswh.compute.retrieval.ann.build_ann_tables`)
and searched by every actor for its own chunk. An actor that dies is restarted and its chunk retried (a chunk is a pure
function of its queries); the rows reach ``raw.*`` only in the driver's one transaction.
Imported only when a study asks for Ray.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from biaswh.compute.common.engine import ComputeSettings, ensure_ray, in_order, ray_workers
from biaswh.compute.common.ray_shelf import fetch, shelve, unshelve
from biaswh.compute.retrieval.ann import build_ann_tables
from biaswh.compute.retrieval.chunks import ChunkResult, PrefetchedVectors, retrieve_chunk
from biaswh.compute.retrieval.config import RetrievalConfig
from biaswh.compute.retrieval.runner import Corpus, Query, build_bm25_indexes
from biaswh.compute.retrieval.writer import parquet_bytes


class RetrievalWorker:
    """One Ray actor: the corpora, BM25 indexes and configuration its shelf holds, deserialised once
    per configuration, and chunks retrieved against them."""

    def __init__(self, shelved: str, lancedb_dir: str) -> None:
        self.shelved, self.lancedb_dir = shelved, Path(lancedb_dir)
        self.load()

    def load(self) -> None:
        """Take what the shelf holds now (by its key: see :mod:`biaswh.compute.common.ray_shelf`)."""
        self.corpora, self.bm25_indexes, self.config = fetch(self.shelved)

    def retrieve(
        self, queries: list[Query], run_id: str, query_set: str, vectors: PrefetchedVectors | None
    ) -> ChunkResult:
        encoded: list[bytes] = []
        result = retrieve_chunk(
            queries,
            self.corpora,
            self.config,
            run_id=run_id,
            query_set=query_set,
            provider=None,
            cache=vectors,
            lancedb_dir=self.lancedb_dir,
            bm25_indexes=self.bm25_indexes,
            add_results=lambda rows: encoded.append(parquet_bytes(rows)),
        )
        result.parquet = encoded
        return result


class RayRetrieval:
    """A pool of :class:`RetrievalWorker` actors for one retrieval job, or for every run of an evaluation
    series in turn (:meth:`use`); :meth:`close` ends them."""

    def __init__(
        self, settings: ComputeSettings, corpora: dict[str, Corpus], config: RetrievalConfig, *, lancedb_dir: Path
    ) -> None:
        self.ray = ensure_ray(settings)
        self.n_workers = ray_workers(self.ray, settings)
        self.n_parallel = self.n_workers  # chunks in flight at once
        self.lancedb_dir = str(lancedb_dir)
        self._version, self._loaded = 0, None
        self._actors: list = []
        self._refs: list = []
        self._shelved: str | None = None
        self.use(corpora, config)

    def use(self, corpora: dict[str, Corpus], config: RetrievalConfig) -> None:
        """Retrieve over ``corpora`` with ``config`` from the next chunk on: the actors stay and load them."""
        self.corpora, self.config = corpora, config
        self._version += 1

    def _pool(self, splits: set[str], bm25_indexes: dict) -> list:
        """The actors, started once, loading the corpora, configuration and BM25 indexes when these changed."""
        build_bm25_indexes(self.corpora, splits, self.config, bm25_indexes)
        wanted = (self._version, frozenset(bm25_indexes))
        if wanted != self._loaded:
            # Held here and on the shelf while they are in use: a restarted actor fetches them again.
            self._refs = [self.ray.put(self.corpora), self.ray.put(bm25_indexes), self.ray.put(self.config)]
            self._shelved = shelve(self.ray, self._refs, self._shelved)
            if not self._actors:
                actor = self.ray.remote(num_cpus=1, max_restarts=2, max_task_retries=2)(RetrievalWorker)
                self._actors = [actor.remote(self._shelved, self.lancedb_dir) for _ in range(self.n_workers)]
            else:
                self.ray.get([actor.load.remote() for actor in self._actors])
            self._loaded = wanted
        return self._actors

    def map(
        self,
        chunks: list[list[Query]],
        *,
        run_id: str,
        query_set: str,
        bm25_indexes: dict,
        vectors: PrefetchedVectors | None,
    ) -> Iterator[ChunkResult]:
        """Each chunk's :class:`ChunkResult`, in chunk order, with at most one chunk per actor in flight."""
        splits = {q.corpus_split for chunk in chunks for q in chunk}
        workers = self._pool(splits, bm25_indexes)
        build_ann_tables(self.corpora, splits, self.config, vectors, lancedb_dir=self.lancedb_dir)
        vectors_ref = self.ray.put(vectors) if vectors is not None else None
        yield from in_order(
            workers,
            chunks,
            lambda worker, chunk: worker.retrieve.remote(chunk, run_id, query_set, vectors_ref),
            lambda _chunk, reference: self.ray.get(reference),
        )

    def close(self) -> None:
        """End the actors (their object-store copies go with them) and empty their place on the shelf."""
        for actor in self._actors:
            self.ray.kill(actor)
        if self._shelved:
            unshelve(self.ray, self._shelved)
        self._actors, self._refs, self._shelved = [], [], None
