"""The demo's precomputed vectors (``studies/demo_data/embeddings/``), computed afresh.

``python -m biaswh.common.demo_vectors`` runs the demo studies that embed (``make demo``'s
``biaswh run`` studies; the demo audit embeds a subset of their texts) in a temporary warehouse
with an empty embedding cache, every precomputed file ignored, so the local all-MiniLM-L6-v2
model embeds every demo text; then it writes each model's cached vectors to its Parquet file,
exactly as the cache holds them, with the model id and the model folder's sha256 in the file's
metadata (:mod:`biaswh.ingest.common.vector_files`). Run it when a demo text or the model changes.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from biaswh.common.audit_data import DEMO_RETRIEVAL_VECTORS, DEMO_SENTENCE_VECTORS
from biaswh.compute.retrieval.embeddings import DEFAULT_LOCAL_MODEL
from biaswh.ingest.common.embedding_cache import CACHE_VARIABLE, EmbeddingCache
from biaswh.ingest.common.vector_files import export_parquet, ignoring_precomputed
from biaswh.ingest.weat.sentence_vectors import LOCAL_MINILM, SentenceEncoder, model_sha256, resolve_model_path
from biaswh.warehouse.dbt_build.invoke import environment
from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT

STUDIES = REPOSITORY_ROOT / "studies"
VECTORS = DEMO_RETRIEVAL_VECTORS.parent


def demo_studies() -> list[Path]:
    """The studies `make demo` runs in one `biaswh run` (every ``studies/demo*.toml`` but the monitoring series)."""
    return [path for path in sorted(STUDIES.glob("demo*.toml")) if path.name != "demo_monitoring.toml"]


def regenerate(folder: Path = VECTORS) -> dict[str, int]:
    """Embed every demo text afresh and write the two vector files into ``folder``; return their row counts."""
    from biaswh.pipeline import run_studies  # the whole pipeline: only this command needs it

    model_folder = resolve_model_path(LOCAL_MINILM)
    model_hash = model_sha256(model_folder)
    with tempfile.TemporaryDirectory(prefix="demo-vectors-") as temporary:
        cache_dir = Path(temporary) / "embeddings"
        with environment({HOME_VARIABLE: str(Path(temporary) / "warehouse"), CACHE_VARIABLE: str(cache_dir)}):
            with ignoring_precomputed():
                run_studies([str(path) for path in demo_studies()])
        sentence_model_id = SentenceEncoder(model=model_folder, batch_size=64).model_id
        written = {}
        # The retrieval provider's cache (model id "all-MiniLM-L6-v2") and the WEAT sentence encoder's
        # ("sentence-encoder:<model folder sha256>"): the same model, two caches.
        for model_id, path in (
            (DEFAULT_LOCAL_MODEL, DEMO_RETRIEVAL_VECTORS),
            (sentence_model_id, DEMO_SENTENCE_VECTORS),
        ):
            target = Path(folder) / path.name
            written[target.name] = export_parquet(EmbeddingCache(cache_dir, model_id), target, model_sha256=model_hash)
    return written


def main() -> None:
    """Write the demo vector files and print where and how many."""
    for name, rows in regenerate().items():
        print(f"{VECTORS / name}: {rows:,} vectors")


if __name__ == "__main__":
    main()
