"""Large inputs of a pool of restartable Ray actors, handed over by name instead of as arguments.

A Ray actor started with ``max_restarts > 0`` whose constructor takes object references (or
values over 100 KB, which Ray turns into references) makes Ray print an error line on the
terminal, because Ray cannot yet rebuild such arguments for a restart
(https://github.com/ray-project/ray/issues/53727). So a pool puts its corpora and indexes in the
object store once and keeps the references on the :class:`Shelf`, a small named actor, under a
key of its own; each worker's constructor takes only the key and fetches the references from
the shelf, so a restarted worker fetches them again. The driver keeps the references too, so
nothing is evicted while the pool lives. One shelf serves every pool of a Ray job (started by the
first, it lives as long as the job): an actor is a process of its own, which takes a second or
two to start (importing Ray) and which a pool's first chunk waited for. Imported only when a
study asks for Ray.
"""

from __future__ import annotations

import uuid

# The job's one shelf (a named actor is seen by the job's own processes only: its namespace is the job's).
SHELF_NAME = "biaswh-shelf"
# (Ray session, job) -> the shelf's handle, held for the job: Ray ends an actor whose handles are all gone.
_SHELVES: dict[tuple[str, str], object] = {}


class Shelf:
    """A Ray actor that holds object references (borrowed from the driver) for other actors, by key."""

    def __init__(self) -> None:
        self.references: dict[str, list] = {}

    def keep(self, key: str, references: list) -> None:
        self.references[key] = references

    def drop(self, key: str) -> None:
        self.references.pop(key, None)

    def hand_out(self, key: str) -> list:
        return self.references[key]


def _shelf(ray):
    """The job's shelf, started by the first pool that asks for it."""
    context = ray.get_runtime_context()
    job = (context.get_session_name(), context.get_job_id())
    if job not in _SHELVES:
        _SHELVES[job] = ray.remote(num_cpus=0)(Shelf).options(name=SHELF_NAME, get_if_exists=True).remote()
    return _SHELVES[job]


def shelve(ray, references: list, key: str | None = None) -> str:
    """Keep ``references`` (of objects put in the object store) on the shelf under ``key`` (a new
    key when None, else replacing what it held): the key, once the shelf holds them."""
    key = key or uuid.uuid4().hex
    ray.get(_shelf(ray).keep.remote(key, references))  # inside a list: borrowed by the shelf, not resolved
    return key


def unshelve(ray, key: str) -> None:
    """Let the shelf drop what it keeps under ``key`` (the pool that shelved it has ended)."""
    _shelf(ray).drop.remote(key)


def fetch(key: str) -> list:
    """In a worker: the values shelved under ``key``, in the order shelved."""
    import ray

    return ray.get(ray.get(ray.get_actor(SHELF_NAME).hand_out.remote(key)))
