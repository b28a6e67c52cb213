"""The study config's ``[retrieval]`` table: the keys compute/retrieval/config.py and
compute/retrieval/embeddings.py read (registered by compute/retrieval/steps.py).
"""

from __future__ import annotations

from biaswh.warehouse.settings.config_schema import (
    BACKOFF_SECONDS,
    BOOLEAN,
    FILE,
    NON_NEGATIVE,
    POSITIVE_INTEGER,
    RETRIES,
    SHARE,
    STRING,
    STRINGS,
    TIMEOUT_SECONDS,
    ListOf,
    Number,
    OneOf,
    Table,
)
from biaswh.warehouse.settings.study_schema import DEPTH

RETRIEVAL = Table(
    {
        "retrievers": STRINGS,
        "depth": DEPTH,
        "query_sets": STRINGS,
        "timing": STRING,
        "drop_documents_fraction": Number(minimum=0, maximum=1, below=True),
        "tokenizer": Table({"pattern": STRING, "lowercase": BOOLEAN}),
        "bm25": Table({"k1": NON_NEGATIVE, "b": SHARE, "epsilon": NON_NEGATIVE}),
        # provider "local": model, batch_size; provider "openai": the rest (OpenAIProvider's options)
        "embedding": Table(
            {
                "provider": STRING,
                "model": STRING,
                "batch_size": Number(integer=True, minimum=1, maximum=100_000),
                "precomputed": OneOf((FILE, ListOf(FILE)), "a path or a list of paths"),
                "base_url": STRING,
                "api_key_env": STRING,
                "max_retries": RETRIES,
                "backoff_seconds": BACKOFF_SECONDS,
                "timeout_seconds": TIMEOUT_SECONDS,
            }
        ),
        "hybrid": Table(
            {
                "weights": ListOf(NON_NEGATIVE),
                "rrf_k": NON_NEGATIVE,
                "sweep_weights": ListOf(SHARE),
                "sweep_rrf_k": ListOf(NON_NEGATIVE),
            }
        ),
        "ann": Table({"index": STRING, "partitions": POSITIVE_INTEGER, "probes": POSITIVE_INTEGER}),
    }
)
