"""Large inputs of a pool of restartable Ray actors, handed over by name instead of as arguments.

A Ray actor started with ``max_restarts > 0`` whose constructor takes object references (or
values over 100 KB, which Ray turns into references) makes Ray print an error line on the
terminal, because Ray cannot yet rebuild such arguments for a restart
(https://github.com/ray-project/ray/issues/53727). So a pool puts its corpora and indexes in the
object store once and keeps the references on a :class:`Shelf`, a small named actor it owns;
each worker's constructor takes only the shelf's name and fetches the references from it, so a
restarted worker fetches them again. The driver keeps the references too, so nothing is evicted
while the pool lives. Imported only when a study asks for Ray.
"""

from __future__ import annotations

import uuid


class Shelf:
    """A Ray actor that holds object references (borrowed from the driver) for other actors."""

    def __init__(self) -> None:
        self.references: list = []

    def keep(self, references: list) -> None:
        self.references = references

    def hand_out(self) -> list:
        return self.references


def shelve(ray, references: list) -> tuple[str, object]:
    """A new shelf holding ``references`` (of objects put in the object store): its name and handle."""
    name = f"biaswh-shelf-{uuid.uuid4().hex}"
    shelf = ray.remote(num_cpus=0)(Shelf).options(name=name).remote()
    ray.get(shelf.keep.remote(references))  # inside a list: borrowed by the shelf, not resolved
    return name, shelf


def fetch(name: str) -> list:
    """In a worker: the values on the shelf called ``name``, in the order shelved."""
    import ray

    return ray.get(ray.get(ray.get_actor(name).hand_out.remote()))
