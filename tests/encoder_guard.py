"""A guard for the demo runs: within it, loading a sentence encoder fails the run.

The demo ships its texts' vectors (studies/demo_data/embeddings/), so a demo run on an empty
embedding cache must never load the model: every demo warehouse the tests build (tests/prebuilt.py,
the session fixtures of tests/conftest.py) is built inside :func:`refusing_encoder_loads`.
"""

from __future__ import annotations

import contextlib

import pytest

# Every place that loads a sentence-transformers model (the retrieval provider imports the loader by name).
LOADERS = ("biaswh.ingest.weat.sentence_vectors", "biaswh.compute.retrieval.embeddings")


class EncoderLoaded(AssertionError):
    """A demo run loaded a sentence encoder: some demo text has no shipped vector."""


def _refuse(location: str):
    raise EncoderLoaded(
        f"the demo loaded the encoder {location}: a demo text has no vector in studies/demo_data/embeddings/"
        " (regenerate them: python -m biaswh.common.demo_vectors)"
    )


@contextlib.contextmanager
def refusing_encoder_loads():
    """Within the block, any sentence-encoder load raises :class:`EncoderLoaded`."""
    import importlib

    with pytest.MonkeyPatch.context() as patch:
        for module in LOADERS:
            patch.setattr(importlib.import_module(module), "load_sentence_encoder", _refuse)
        yield
