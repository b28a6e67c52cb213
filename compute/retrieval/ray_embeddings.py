"""Local-model embedding fanned out over Ray actors (the ``ray`` compute engine).

:class:`RayEmbedder` stands in for a :class:`~biaswh.compute.retrieval.embeddings.LocalProvider` (a
retrieval study's embeddings) or a :class:`~biaswh.ingest.weat.sentence_vectors.SentenceEncoder` (WEAT's
template sentences): the embedding cache calls its ``embed`` with the texts it does not hold, exactly as it calls the
local provider's, and writes what comes back itself (the driver stays the cache's one writer;
workers never open it). ``embed`` cuts the texts into the forward batches the local provider
runs (:func:`~biaswh.ingest.common.embedding_batches.forward_batches`) and sends groups of them to
actors that each load the model once, so the vectors equal the local engine's: one actor per GPU
when the cluster has GPUs, else one per worker, spread over the nodes. Imported only when a
study asks for Ray.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from biaswh.compute.common.engine import ComputeSettings, ensure_ray, ray_workers
from biaswh.compute.retrieval.embeddings import LocalProvider
from biaswh.ingest.common.embedding_batches import forward_batches, place_rows

# Forward batches per task: big enough to amortise a task's overhead, small enough that a
# lost worker costs little and the driver holds few rows in flight.
BATCHES_PER_TASK = 8
# Ray job -> actors: loading a model costs seconds per actor, so the jobs of one process (a
# study's retrieval and evaluation runs, WEAT's sentences, a test session) share them; an actor
# loads each model once (sentence-transformers' loader is cached per process, so a retrieval
# model and a sentence encoder in the same folder load once), and the Ray job ends them with it.
_POOLS: dict[str, list] = {}


def _encoding_threads() -> int:
    """The intra-op threads torch gives a forward pass in this process (the local encoder's): the actors
    use as many, so their vectors equal the local ones bit for bit (1 thread and 2 differ in the last bits)."""
    import torch

    return torch.get_num_threads()


class EmbeddingWorker:
    """One Ray actor: each encoder built once, forward batches encoded one after another."""

    def __init__(self) -> None:
        self.encoders: dict[tuple, object] = {}

    def encode(self, encoder: tuple[type, str, int], batches: list[list[str]], threads: int) -> list[np.ndarray]:
        """``encoder``: (class, model, batch size), as :meth:`RayEmbedder._encoder` names it; ``threads``:
        torch's intra-op threads of the driver, which a forward pass's bits depend on (Ray starts an
        actor with one)."""
        import torch

        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
        if encoder not in self.encoders:
            encoder_class, model, batch_size = encoder
            self.encoders[encoder] = encoder_class(model=model, batch_size=batch_size)
        return [self.encoders[encoder].encode_batch(texts) for texts in batches]


class RayEmbedder:
    """A :class:`LocalProvider` whose ``embed`` runs on Ray actors; same ``model_id``, checks and description.

    Parameters
    ----------
    provider
        The study's local provider, or a WEAT sentence encoder (its class, model, batch size and
        cache key are kept; each actor builds its own from the class, model and batch size, once,
        and runs its ``encode_batch``).
    settings
        The study's compute engine (Ray address and workers).
    """

    def __init__(self, provider: LocalProvider, settings: ComputeSettings) -> None:
        self.local, self.settings = provider, settings
        self.model_id = provider.model_id
        self.n_embedded = 0

    def check(self) -> None:
        self.local.check()

    def preflight(self) -> None:
        self.local.preflight()  # a model that does not load fails here, before any actor starts

    def describe(self) -> dict:
        # The engine is recorded with the run's settings; the vectors do not depend on it.
        return self.local.describe()

    def _pool(self):
        """The embedding actors of this Ray job: started once, kept for every later job of the process."""
        ray = ensure_ray(self.settings)
        key = ray.get_runtime_context().get_job_id()
        if key not in _POOLS:
            n_gpus = int(ray.cluster_resources().get("GPU", 0))
            # No CPU reserved: the job's retrieval actors hold the workers' CPUs while these stay
            # alive between query sets (reserving one each would leave one pool waiting for the
            # other forever). The driver never runs both pools at once, so nothing is oversubscribed.
            resources = {"num_cpus": 0, "scheduling_strategy": "SPREAD"} | ({"num_gpus": 1} if n_gpus else {})
            actor = ray.remote(max_restarts=2, max_task_retries=2, **resources)(EmbeddingWorker)
            n_actors = n_gpus or ray_workers(ray, self.settings)
            _POOLS[key] = [actor.remote() for _ in range(n_actors)]
        return ray, _POOLS[key]

    def _encoder(self) -> tuple[type, str, int]:
        """What an actor builds the encoder from (never the local one itself: it may hold a loaded model)."""
        return (type(self.local), self.local.model, self.local.batch_size)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit rows for ``texts`` in order, each forward batch run on an actor (two groups per actor in flight)."""
        batches = forward_batches(texts, self.local.batch_size)
        groups = [batches[first : first + BATCHES_PER_TASK] for first in range(0, len(batches), BATCHES_PER_TASK)]
        ray, actors = self._pool()
        encoder = self._encoder()
        threads = _encoding_threads()
        rows: list[np.ndarray] = []
        pending: deque = deque()
        for number, group in enumerate(groups):
            actor = actors[number % len(actors)]
            pending.append(actor.encode.remote(encoder, [[texts[i] for i in batch] for batch in group], threads))
            if len(pending) >= 2 * len(actors):
                rows.extend(ray.get(pending.popleft()))
        while pending:
            rows.extend(ray.get(pending.popleft()))
        self.n_embedded += len(texts)
        return place_rows(len(texts), batches, rows)

    def close(self) -> None:
        """End this Ray job's embedding actors (a later ``embed`` starts new ones)."""
        ray = ensure_ray(self.settings)
        for actor in _POOLS.pop(ray.get_runtime_context().get_job_id(), []):
            ray.kill(actor)


def sentence_encoder_pool(settings: ComputeSettings):
    """For :func:`biaswh.ingest.weat.sentence_vectors.sentence_encoding_on`: with the Ray engine, a
    function putting a sentence encoder on Ray actors (Ray starts at its first uncached sentence); else None."""
    if settings.engine != "ray":
        return None
    return lambda encoder: RayEmbedder(encoder, settings)
