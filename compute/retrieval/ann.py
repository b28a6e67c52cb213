"""Dense search through an ANN index in LanceDB, and the index's recall against exact search.

An ANN index (IVF_FLAT, IVF_HNSW_SQ, IVF_PQ) is trained on the whole corpus: k-means picks its
partition centroids from every document vector and each document lies in the partition of its
nearest centroid, so a query probing ``probes`` partitions searches a region of the whole
corpus. Indexes built per corpus shard would train centroids of their own, and probing
``probes`` partitions of each shard is another search than probing ``probes`` of the whole:
the merged results would be neither the whole index's nor exact. So the index is built once,
by the process that holds the corpus's vectors (:func:`ann_table`; the driver, on the Ray
engine, before any worker searches, so no two workers build it at once), and its queries fan
out: each worker opens the same LanceDB table and searches its own chunk of queries
(:func:`ann_search`). Recall is counted in documents found (:class:`AnnReport`), so the reports of
chunks add up to the query set's exactly (:func:`combined_report`).

The same vectors and seed build the same index: the partition centroids are trained by a seeded
k-means of ours (:mod:`biaswh.compute.retrieval.ann_centroids`; LanceDB's own starts from an
unseeded random draw) and given to Lance through pylance (``ivf_centroids``), whose version is the
Lance that LanceDB embeds. What stays unseeded in Lance 13: an ``ivf_hnsw_sq`` index's graph (each
node's level is drawn from a thread-local random generator, so two builds may find other documents
within a partition) and an ``ivf_pq`` index's product-quantisation codebook; ``ivf_flat`` has neither.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from biaswh.compute.retrieval.ann_centroids import partition_centroids
from biaswh.compute.retrieval.config import RetrievalConfig
from biaswh.compute.retrieval.dense import ANN_INDEXES, AnnIndex, DenseIndex, unit_rows
from biaswh.compute.retrieval.ranking import QueryHits
from biaswh.warehouse.errors import UserError


@dataclass(frozen=True)
class AnnTable:
    """A LanceDB table of a corpus's document vectors with its ANN index, and how it is probed."""

    name: str
    index: str
    n_partitions: int
    n_probes: int


@dataclass(frozen=True)
class AnnReport:
    """How an ANN index did against exact search over the same queries.

    ``recall``: of the ``n_exact`` documents exact search ranked in the queries' top ``depth``, the
    share the index found too (``n_found``); every non-blank query's exact list is equally long
    (``depth``, or the whole corpus when smaller), so this is the mean recall@depth of the queries.
    """

    index: str
    depth: int
    recall: float
    n_queries: int
    n_partitions: int
    n_probes: int
    n_found: int
    n_exact: int


def ann_table(
    dense: DenseIndex,
    *,
    lancedb_dir: str | Path,
    index: AnnIndex,
    seed: int,
    n_partitions: int | None = None,
    n_probes: int | None = None,
) -> AnnTable:
    """The LanceDB table holding ``dense``'s documents and an ``index`` over them, built unless it is there.

    The index's partitions are trained with ``seed`` (:func:`_build_index`). The table's name holds
    a fingerprint of the document ids, the vectors and the seed, so a changed corpus, model or seed
    gets a new index and the same ones reuse theirs.
    """
    if dense.own != (0, len(dense.vectors)):
        raise ValueError("an ANN index covers whole corpora, not a shard's documents")
    if index not in ANN_INDEXES or index == "none":
        raise UserError(f"unknown ANN index {index!r}; choose one of {', '.join(ANN_INDEXES[1:])}")
    n_partitions = n_partitions or max(1, int(np.sqrt(len(dense.doc_ids))))
    n_probes = n_probes or max(1, n_partitions // 4)
    fingerprint = hashlib.sha256(dense.doc_ids.tobytes() + dense.vectors.tobytes() + str(seed).encode()).hexdigest()
    name = f"ann_{index}_{n_partitions}_{fingerprint[:16]}"
    import lancedb  # imported here: it costs seconds at start-up and only ANN search needs it

    db = lancedb.connect(str(lancedb_dir))
    if name in db.list_tables().tables:
        table = db.open_table(name)
    else:
        vectors = pa.FixedSizeListArray.from_arrays(pa.array(dense.vectors.ravel()), dense.vectors.shape[1])
        table = db.create_table(name, pa.table({"doc_id": pa.array(dense.doc_ids), "vector": vectors}))
    if not table.list_indices():  # also a table whose build stopped before its index: never searched unindexed
        _build_index(table, dense.vectors, index, n_partitions, seed=seed)
    return AnnTable(name, index, n_partitions, n_probes)


def _build_index(table, vectors: np.ndarray, index: AnnIndex, n_partitions: int, *, seed: int) -> None:
    """Index LanceDB ``table``'s vectors by cosine distance in partitions of seeded centroids, through pylance
    (LanceDB's own ``create_index`` takes no centroids); the other settings are LanceDB's defaults."""
    options = {
        "ivf_flat": {},
        "ivf_hnsw_sq": {"m": 20, "ef_construction": 300},
        "ivf_pq": {"num_sub_vectors": _sub_vectors(vectors.shape[1])},
    }[index]
    centroids = partition_centroids(vectors, n_partitions, seed=seed)
    # Importing pylance registers a warning at every later fork of this process; none of ours
    # uses Lance in the child (dbt's subprocess execs at once, Ray starts its own workers).
    warnings.filterwarnings("ignore", message="lance is not fork-safe", category=UserWarning)
    table.to_lance().create_index(
        "vector", index.upper(), metric="cosine", num_partitions=n_partitions, ivf_centroids=centroids, **options
    )


def _sub_vectors(dimension: int) -> int:
    """LanceDB's default number of product-quantisation sub-vectors for ``dimension``."""
    return dimension // 16 if dimension % 16 == 0 else dimension // 8 if dimension % 8 == 0 else 1


def build_ann_tables(corpora: dict, splits: set[str], config: RetrievalConfig, vectors, *, lancedb_dir) -> dict:
    """Each split's :class:`AnnTable` for ``config`` (built unless it is there; none without an ANN index),
    from the embedding cache's vectors of its documents (``vectors``, as the Ray driver prefetched them).

    What a Ray driver does before its workers search: none of them builds an index, so none races another.
    """
    if "dense" not in config.needs or config.ann_index == "none":
        return {}
    return {
        split: ann_table(
            DenseIndex(corpora[split].doc_ids, vectors.vectors_for(corpora[split].texts, None)[0]),
            lancedb_dir=lancedb_dir,
            index=config.ann_index,
            seed=config.ann_seed,
            n_partitions=config.ann_partitions,
            n_probes=config.ann_probes,
        )
        for split in sorted(splits)
    }


def ann_search(table: AnnTable, query_vectors: np.ndarray, *, lancedb_dir: str | Path, depth: int) -> list[QueryHits]:
    """Each query's top ``depth`` through the index of ``table`` (ties as exact search breaks them)."""
    import lancedb

    opened = lancedb.connect(str(lancedb_dir)).open_table(table.name)
    results = []
    for vector in unit_rows(query_vectors):
        found = (
            opened.search(vector)
            .distance_type("cosine")
            .limit(depth)
            .nprobes(table.n_probes)
            .select(["doc_id", "_distance"])  # named: lance warns when the score is left implicit
            .to_arrow()
        )
        doc_ids = found.column("doc_id").to_numpy()
        scores = 1.0 - found.column("_distance").to_numpy().astype(np.float64)
        order = np.lexsort((doc_ids, -scores))  # the same tie rule as exact search
        results.append(QueryHits(doc_ids[order].astype(np.int64), scores[order]))
    return results


def recall_report(table: AnnTable, found: list[QueryHits], exact: list[QueryHits], *, depth: int) -> AnnReport:
    """The :class:`AnnReport` of ANN hits ``found`` against the ``exact`` hits of the same queries."""
    n_found = sum(len(set(a.doc_ids.tolist()) & set(e.doc_ids.tolist())) for a, e in zip(found, exact))
    n_exact = sum(len(e) for e in exact)
    recall = n_found / n_exact if n_exact else 1.0
    return AnnReport(table.index, depth, recall, len(found), table.n_partitions, table.n_probes, n_found, n_exact)


def search_ann(
    dense: DenseIndex,
    query_vectors: np.ndarray,
    *,
    lancedb_dir: str | Path,
    index: AnnIndex,
    seed: int,
    depth: int = 100,
    n_partitions: int | None = None,
    n_probes: int | None = None,
) -> tuple[list[QueryHits], AnnReport]:
    """Search through a LanceDB ANN index of ``dense``'s documents (its partitions trained with ``seed``)
    and measure its recall@depth against exact search."""
    table = ann_table(
        dense, lancedb_dir=lancedb_dir, index=index, seed=seed, n_partitions=n_partitions, n_probes=n_probes
    )
    found = ann_search(table, query_vectors, lancedb_dir=lancedb_dir, depth=depth)
    return found, recall_report(table, found, dense.search(query_vectors, depth=depth), depth=depth)


def combined_report(reports: list[dict]) -> dict:
    """Reports (as dicts) of several chunks of queries (or splits), as one report of all their queries."""
    first = reports[0]
    n_found, n_exact = sum(r["n_found"] for r in reports), sum(r["n_exact"] for r in reports)
    total = AnnReport(
        first["index"],
        first["depth"],
        n_found / n_exact if n_exact else 1.0,
        sum(r["n_queries"] for r in reports),
        first["n_partitions"],
        first["n_probes"],
        n_found,
        n_exact,
    )
    return asdict(total)


def add_chunk_reports(details: dict, reports: list[dict]) -> None:
    """Add the ANN reports of a further chunk of a query set to ``details`` (a dense output's so far):
    one report per corpus split over every chunk, and ``ann_recall`` over every query."""
    by_split = {report["corpus_split"]: report for report in details["ann_reports"]}
    for report in reports:
        split = report["corpus_split"]
        earlier = by_split.get(split)
        by_split[split] = report if earlier is None else combined_report([earlier, report]) | {"corpus_split": split}
    details["ann_reports"] = [by_split[split] for split in sorted(by_split)]
    details["ann_recall"] = combined_report(details["ann_reports"])["recall"]
