"""Retrieval over corpus shards on Ray actors (``[compute] corpus_shards = N`` with the ``ray`` engine).

Each actor holds one shard of every split (:mod:`biaswh.compute.retrieval.shards`) and its BM25
indexes, built with the whole corpus's statistics, which the driver adds up from the shards'
term counts once. A chunk of queries goes to every shard of one group of actors; the driver
merges their top lists to the exact unsharded ranking, fuses the hybrids and turns the hits
into rows, as :func:`biaswh.compute.retrieval.chunks.retrieve_chunk` does. Workers beyond one per
shard form further groups that take further chunks; each actor has at most one chunk in
flight, so the driver holds at most one chunk's hits per group. An actor that dies is restarted,
fetches its shard and statistics again (:mod:`biaswh.compute.common.ray_shelf`), rebuilds its indexes
and retries its chunk. An ANN index covers the whole corpus: the driver builds it before the
first chunk, the first actor of a group searches it for the group's chunk beside its shard, and
the driver measures its recall against the merged exact dense lists. Imported only when a study asks for Ray.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from biaswh.compute.common.engine import ComputeSettings, ensure_ray, in_order, ray_workers
from biaswh.compute.common.ray_shelf import fetch, shelve, unshelve
from biaswh.compute.retrieval.ann import AnnTable, build_ann_tables
from biaswh.compute.retrieval.chunks import ChunkResult, PrefetchedVectors, chunk_result
from biaswh.compute.retrieval.config import RetrievalConfig
from biaswh.compute.retrieval.runner import Corpus, Query, RetrieverOutput, run_retrievers
from biaswh.compute.retrieval.shards import (
    SHARDS_KEY,
    ann_hits,
    base_config,
    check_shardable,
    corpus_statistics,
    merged_outputs,
    shard_bm25_indexes,
    shard_corpora,
    term_counts,
)
from biaswh.compute.retrieval.writer import parquet_bytes
from biaswh.warehouse.errors import UserError


class ShardWorker:
    """One Ray actor: one shard of each split, its BM25 indexes (whole-corpus statistics), chunks retrieved."""

    def __init__(self, shelved: str, lancedb_dir: str) -> None:
        self.shelved, self.lancedb_dir = shelved, Path(lancedb_dir)
        self.load()

    def load(self) -> None:
        """Take the shard, statistics and configuration the shelf holds now (by its key: see
        :mod:`biaswh.compute.common.ray_shelf`) and build the shard's BM25 indexes."""
        corpora, statistics, config = fetch(self.shelved)
        self.corpora, self.config = corpora, base_config(config)
        self.bm25_indexes = shard_bm25_indexes(corpora, statistics, config)

    def retrieve(self, queries: list[Query], vectors: PrefetchedVectors | None) -> list[RetrieverOutput]:
        built = set(self.bm25_indexes)
        outputs = run_retrievers(
            self.corpora,
            queries,
            self.config,
            provider=None,
            cache=vectors,
            lancedb_dir=self.lancedb_dir,
            bm25_indexes=self.bm25_indexes,
        )
        # An index built here would score with this shard's own statistics: never silently.
        if set(self.bm25_indexes) != built:
            raise RuntimeError(f"shard worker lacks BM25 indexes {sorted(set(self.bm25_indexes) - built)}")
        return outputs

    def search_ann(self, queries: list[Query], vectors: PrefetchedVectors, tables: dict[str, AnnTable]):
        """The chunk's dense hits through each split's ANN index (which covers the whole corpus, not this shard)."""
        return ann_hits(queries, vectors, tables, lancedb_dir=self.lancedb_dir, depth=self.config.depth)


class RayShardedRetrieval:
    """Groups of :class:`ShardWorker` actors, one actor per shard in each; :meth:`close` ends them."""

    def __init__(
        self, settings: ComputeSettings, corpora: dict[str, Corpus], config: RetrievalConfig, *, lancedb_dir: Path
    ) -> None:
        self.n_shards = settings.corpus_shards
        self._version, self._loaded = 0, None
        self.use(corpora, config)  # refused here, before Ray starts
        self.ray = ensure_ray(settings)
        workers = ray_workers(self.ray, settings)
        if workers < settings.corpus_shards:  # one actor per shard: fewer CPUs would leave one unscheduled
            raise UserError(
                f"{SHARDS_KEY}: {settings.corpus_shards} needs as many Ray workers; the cluster offers {workers}"
            )
        self.n_groups = self.n_parallel = workers // settings.corpus_shards  # chunks in flight at once
        self.lancedb_dir = str(lancedb_dir)
        self._groups: list[list] = []
        self._refs: list = []
        self._shelved: list[str] = []  # each shard's key on the shelf

    def use(self, corpora: dict[str, Corpus], config: RetrievalConfig) -> None:
        """Retrieve over ``corpora`` with ``config`` from the next chunk on: cut into shards here; the
        actors stay and load their new shards."""
        check_shardable(config, self.n_shards)
        self.shards = shard_corpora(corpora, self.n_shards)
        self.corpora, self.config = corpora, config
        self._version += 1

    def _pool(self) -> list[list]:
        """The actor groups, started once; each loads its shard after the shards' term counts were added up."""
        if self._loaded != self._version:
            shard_refs = [self.ray.put(shard) for shard in self.shards]
            # No CPU reserved: once the groups are up they hold every CPU, idle while the counts run.
            count = self.ray.remote(num_cpus=0)(term_counts)
            counts = self.ray.get([count.remote(ref, self.config) for ref in shard_refs])
            statistics_refs = [self.ray.put(part) for part in corpus_statistics(counts, self.config)]
            config_ref = self.ray.put(self.config)
            # Held here and on the shelf, one key per shard, while in use: a restarted actor fetches them again.
            self._refs = [*shard_refs, *statistics_refs, config_ref]
            shelved = [[shard, statistics, config_ref] for shard, statistics in zip(shard_refs, statistics_refs)]
            keys = self._shelved or [None] * len(shelved)
            self._shelved = [shelve(self.ray, references, key) for references, key in zip(shelved, keys)]
            if not self._groups:
                actor = self.ray.remote(num_cpus=1, max_restarts=2, max_task_retries=2)(ShardWorker)
                self._groups = [
                    [actor.remote(key, self.lancedb_dir) for key in self._shelved] for _ in range(self.n_groups)
                ]
            else:
                self.ray.get([worker.load.remote() for group in self._groups for worker in group])
            self._loaded = self._version
        return self._groups

    def map(
        self,
        chunks: list[list[Query]],
        *,
        run_id: str,
        query_set: str,
        bm25_indexes: dict,
        vectors: PrefetchedVectors | None,
    ) -> Iterator[ChunkResult]:
        """Each chunk's :class:`ChunkResult`, in chunk order (``bm25_indexes`` unused: the shards hold theirs)."""
        groups = self._pool()
        splits = {q.corpus_split for chunk in chunks for q in chunk}
        tables = build_ann_tables(self.corpora, splits, self.config, vectors, lancedb_dir=self.lancedb_dir)
        vector_refs = [None] * len(self.shards)
        if vectors is not None:
            asked = [q.text for chunk in chunks for q in chunk if q.text.strip()]
            vector_refs = [
                self.ray.put(
                    vectors.restricted_to(
                        [t for c in shard.values() for t in (*c.tile_before, *c.texts, *c.tile_after)] + asked
                    )
                )
                for shard in self.shards
            ]

        def submit(group: list, chunk: list[Query]) -> list:
            shards = [worker.retrieve.remote(chunk, ref) for worker, ref in zip(group, vector_refs)]
            # The shard-0 vectors hold every query's: its actor also searches the ANN index.
            return shards + ([group[0].search_ann.remote(chunk, vector_refs[0], tables)] if tables else [])

        def collect(chunk: list[Query], references: list) -> ChunkResult:
            outputs = self.ray.get(references)
            ann = (outputs.pop(), chunk, tables) if tables else None
            merged = merged_outputs(outputs, self.config, ann=ann)
            return self._rows(merged, chunk, run_id=run_id, query_set=query_set)

        yield from in_order(groups, chunks, submit, collect)

    def _rows(self, outputs: list[RetrieverOutput], chunk: list[Query], *, run_id: str, query_set: str) -> ChunkResult:
        """The merged outputs as a :class:`ChunkResult`, hits as Parquet (as an unsharded worker sends them)."""
        encoded: list[bytes] = []
        result = chunk_result(
            outputs,
            chunk,
            self.config,
            run_id=run_id,
            query_set=query_set,
            add_results=lambda rows: encoded.append(parquet_bytes(rows)),
        )
        result.parquet = encoded
        return result

    def close(self) -> None:
        """End the actors (their object-store copies go with them) and empty their places on the shelf."""
        for actor in (a for group in self._groups for a in group):
            self.ray.kill(actor)
        for key in self._shelved:
            unshelve(self.ray, key)
        self._groups, self._refs, self._shelved = [], [], []
