"""Dense retrieval on the real data: vector loading from LanceDB, exact search, ANN recall, embedding speed.

The 18,891 SQuAD train contexts and the 400 pair queries use the precomputed
all-MiniLM-L6-v2 vectors (imported into a temporary LanceDB cache); embedding
throughput is measured on a small sample with the packaged model.
"""

from __future__ import annotations

import tempfile
import time

import numpy as np

from benchmarks.common import EMBEDDINGS, pair_queries, squad_train_corpus, write_result
from biaswh.compute.retrieval.ann import search_ann
from biaswh.compute.retrieval.dense import DenseIndex
from biaswh.compute.retrieval.embeddings import LocalProvider
from biaswh.ingest.common.embedding_cache import EmbeddingCache

DEPTH = 100
ANN_SEED = 20261122  # the ANN index's partitions (compute/retrieval/ann_centroids.py)
EMBED_SAMPLE = 32


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def run() -> dict:
    documents, queries = squad_train_corpus(), pair_queries()
    provider = LocalProvider()
    _, load_seconds = _timed(provider.preflight)
    with tempfile.TemporaryDirectory() as lancedb_dir:
        cache = EmbeddingCache(lancedb_dir, "all-MiniLM-L6-v2")
        imported, import_seconds = _timed(lambda: cache.import_parquet(EMBEDDINGS))
        (document_vectors, _), load_documents = _timed(lambda: cache.vectors_for(documents, None))
        # A few cleaned queries are not among the precomputed texts: the provider embeds those.
        (query_vectors, n_queries_embedded), load_queries = _timed(lambda: cache.vectors_for(queries, provider))
        index = DenseIndex(np.arange(len(documents)), document_vectors)
        exact, exact_seconds = _timed(lambda: index.search(query_vectors, depth=DEPTH))
        ann = {}
        for kind in ("ivf_flat", "ivf_hnsw_sq"):
            (_, report), seconds = _timed(
                lambda kind=kind: search_ann(
                    index, query_vectors, lancedb_dir=lancedb_dir, index=kind, seed=ANN_SEED, depth=DEPTH
                )
            )
            ann[kind] = {
                "recall_at_depth": report.recall,
                "partitions": report.n_partitions,
                "probes": report.n_probes,
                "build_and_search_seconds": seconds,
            }
    sample = documents[:EMBED_SAMPLE]
    vectors, embed_seconds = _timed(lambda: provider.embed(sample))
    agreement = float(np.min(np.sum(vectors * document_vectors[:EMBED_SAMPLE], axis=1)))
    return {
        "n_documents": len(documents),
        "n_queries": len(queries),
        "dimension": int(document_vectors.shape[1]),
        "depth": DEPTH,
        "import_parquet": {"rows": imported.n_rows, "seconds": import_seconds},
        "load_vectors_from_lancedb_seconds": {"documents": load_documents, "queries": load_queries},
        "queries_embedded_because_not_precomputed": n_queries_embedded,
        "exact_search": {
            "seconds": exact_seconds,
            "ms_per_query": exact_seconds * 1000 / len(queries),
            "recall_at_depth": 1.0,
            "queries_with_hits": sum(len(h) > 0 for h in exact),
        },
        "ann": ann,
        "embedding": {
            "model": provider.model_id,
            "sample_texts": len(sample),
            "model_load_seconds": load_seconds,
            "seconds": embed_seconds,
            "texts_per_second": len(sample) / embed_seconds,
            "min_cosine_to_precomputed": agreement,
        },
    }


def main() -> None:
    write_result("dense_speed", run())


if __name__ == "__main__":
    main()
