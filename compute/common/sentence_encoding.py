"""Where WEAT's sentence encoder runs during a study: on Ray's embedding actors, or in this process."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from biaswh.compute.common.engine import ComputeSettings
from biaswh.compute.retrieval.ray_embeddings import sentence_encoder_pool
from biaswh.ingest.weat.sentence_vectors import sentence_encoding_on


@contextmanager
def sentence_encoding(settings: ComputeSettings) -> Iterator[None]:
    """Within the block, WEAT's sentence encoder runs on Ray's embedding actors when the engine is Ray
    (:func:`biaswh.compute.retrieval.ray_embeddings.sentence_encoder_pool`), else in this process."""
    with sentence_encoding_on(sentence_encoder_pool(settings)):
        yield
