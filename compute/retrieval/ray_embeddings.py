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
# (Ray job, encoder class, model, batch size) -> actors: loading a model costs seconds per actor, so the jobs of
# one process (a study's retrieval and evaluation runs) share them; the Ray job ends them with it.
_POOLS: dict[tuple, list] = {}


class EmbeddingWorker:
    """One Ray actor: the model loaded once, forward batches encoded one after another."""

    def __init__(self, encoder_class: type, model: str, batch_size: int) -> None:
        self.provider = encoder_class(model=model, batch_size=batch_size)

    def encode(self, batches: list[list[str]]) -> list[np.ndarray]:
        return [self.provider.encode_batch(texts) for texts in batches]


class RayEmbedder:
    """A :class:`LocalProvider` whose ``embed`` runs on Ray actors; same ``model_id``, checks and description.

    Parameters
    ----------
    provider
        The study's local provider, or a WEAT sentence encoder (its class, model, batch size and
        cache key are kept; each actor builds its own from the class, model and batch size, and
        runs its ``encode_batch``).
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
        """The actors of this model in this Ray job: started once, kept for every later job of the process."""
        ray = ensure_ray(self.settings)
        key = self._key(ray)
        if key not in _POOLS:
            n_gpus = int(ray.cluster_resources().get("GPU", 0))
            # No CPU reserved: the job's retrieval actors hold the workers' CPUs while these stay
            # alive between query sets (reserving one each would leave one pool waiting for the
            # other forever). The driver never runs both pools at once, so nothing is oversubscribed.
            resources = {"num_cpus": 0, "scheduling_strategy": "SPREAD"} | ({"num_gpus": 1} if n_gpus else {})
            actor = ray.remote(max_restarts=2, max_task_retries=2, **resources)(EmbeddingWorker)
            n_actors = n_gpus or ray_workers(ray, self.settings)
            _POOLS[key] = [
                actor.remote(type(self.local), self.local.model, self.local.batch_size) for _ in range(n_actors)
            ]
        return ray, _POOLS[key]

    def _key(self, ray) -> tuple:
        return (ray.get_runtime_context().get_job_id(), type(self.local), self.local.model, self.local.batch_size)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit rows for ``texts`` in order, each forward batch run on an actor (two groups per actor in flight)."""
        batches = forward_batches(texts, self.local.batch_size)
        groups = [batches[first : first + BATCHES_PER_TASK] for first in range(0, len(batches), BATCHES_PER_TASK)]
        ray, actors = self._pool()
        rows: list[np.ndarray] = []
        pending: deque = deque()
        for number, group in enumerate(groups):
            actor = actors[number % len(actors)]
            pending.append(actor.encode.remote([[texts[i] for i in batch] for batch in group]))
            if len(pending) >= 2 * len(actors):
                rows.extend(ray.get(pending.popleft()))
        while pending:
            rows.extend(ray.get(pending.popleft()))
        self.n_embedded += len(texts)
        return place_rows(len(texts), batches, rows)

    def close(self) -> None:
        """End this model's actors (a later ``embed`` starts new ones)."""
        ray = ensure_ray(self.settings)
        for actor in _POOLS.pop(self._key(ray), []):
            ray.kill(actor)


def sentence_encoder_pool(settings: ComputeSettings):
    """For :func:`biaswh.ingest.weat.sentence_vectors.sentence_encoding_on`: with the Ray engine, a
    function putting a sentence encoder on Ray actors (Ray starts at its first uncached sentence); else None."""
    if settings.engine != "ray":
        return None
    return lambda encoder: RayEmbedder(encoder, settings)
