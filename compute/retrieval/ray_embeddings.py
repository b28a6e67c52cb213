"""Local-model embedding fanned out over Ray actors (the ``ray`` compute engine).

:class:`RayEmbedder` stands in for a :class:`~biaswh.compute.retrieval.embeddings.LocalProvider`: the
embedding cache calls its ``embed`` with the texts it does not hold, exactly as it calls the
local provider's, and writes what comes back itself (the driver stays the cache's one writer;
workers never open it). ``embed`` cuts the texts into the forward batches the local provider
runs (:func:`~biaswh.compute.retrieval.embedding_batches.forward_batches`) and sends groups of them to
actors that each load the model once, so the vectors equal the local engine's: one actor per GPU
when the cluster has GPUs, else one per worker, spread over the nodes. Imported only when a
study asks for Ray.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from biaswh.compute.common.engine import ComputeSettings, ensure_ray, ray_workers
from biaswh.compute.retrieval.embedding_batches import forward_batches, place_rows
from biaswh.compute.retrieval.embeddings import LocalProvider

# Forward batches per task: big enough to amortise a task's overhead, small enough that a
# lost worker costs little and the driver holds few rows in flight.
BATCHES_PER_TASK = 8
# (Ray job, model, batch size) -> actors: loading a model costs seconds per actor, so the jobs of
# one process (a study's retrieval and evaluation runs) share them; the Ray job ends them with it.
_POOLS: dict[tuple, list] = {}


class EmbeddingWorker:
    """One Ray actor: the model loaded once, forward batches encoded one after another."""

    def __init__(self, model: str, batch_size: int) -> None:
        self.provider = LocalProvider(model=model, batch_size=batch_size)

    def encode(self, batches: list[list[str]]) -> list[np.ndarray]:
        return [self.provider.encode_batch(texts) for texts in batches]


class RayEmbedder:
    """A :class:`LocalProvider` whose ``embed`` runs on Ray actors; same ``model_id``, checks and description.

    Parameters
    ----------
    provider
        The study's local provider (its model, batch size and cache key are kept).
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
        key = (ray.get_runtime_context().get_job_id(), self.local.model, self.local.batch_size)
        if key not in _POOLS:
            n_gpus = int(ray.cluster_resources().get("GPU", 0))
            # No CPU reserved: the job's retrieval actors hold the workers' CPUs while these stay
            # alive between query sets (reserving one each would leave one pool waiting for the
            # other forever). The driver never runs both pools at once, so nothing is oversubscribed.
            resources = {"num_cpus": 0, "scheduling_strategy": "SPREAD"} | ({"num_gpus": 1} if n_gpus else {})
            actor = ray.remote(max_restarts=2, max_task_retries=2, **resources)(EmbeddingWorker)
            n_actors = n_gpus or ray_workers(ray, self.settings)
            _POOLS[key] = [actor.remote(self.local.model, self.local.batch_size) for _ in range(n_actors)]
        return ray, _POOLS[key]

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
        key = (ray.get_runtime_context().get_job_id(), self.local.model, self.local.batch_size)
        for actor in _POOLS.pop(key, []):
            ray.kill(actor)
