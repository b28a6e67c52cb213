"""Where a study's compute jobs run: in this process (``local``, the default) or on Ray.

The engine comes from the study config's ``[compute]`` table (``engine``, ``address``,
``workers``, ``corpus_shards``), overridden by ``biaswh run --compute ray --ray-address ...``. The local engine
never imports Ray; Ray is an optional extra (``pip install -e '.[ray]'``) imported only when a
study asks for it, and started (or connected to) once per process.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import logging
import os
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import check_study

ENGINES = ("local", "ray")
# What ray.init takes: auto, local, a head's host:port (GCS), or ray://host:port (a Ray client).
_HOST_PORT = re.compile(r"(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]):(?P<port>[0-9]{1,5})")
ADDRESS_FORMS = "auto, local, host:port, or ray://host:port (e.g. ray://head:10001)"


def ray_address_problem(address: str) -> str | None:
    """Why ``address`` is no Ray address (one phrase), or None; a malformed one made Ray retry for minutes."""
    if address in ("auto", "local"):
        return None
    match = _HOST_PORT.fullmatch(address.removeprefix("ray://"))
    if match is None:
        return f"{address!r} is not a Ray address: use {ADDRESS_FORMS}"
    if not 1 <= int(match["port"]) <= 65535:
        return f"{address!r} has port {match['port']}: a port is 1 to 65535"
    return None


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, as a container's limit sets it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def missing_ray_extra(address: str | None) -> str | None:
    """What to install for Ray (the engine, or its client for ``ray://``), or None when it is there."""
    if importlib.util.find_spec("ray") is None:
        return "[compute] engine = \"ray\" needs the Ray extra: pip install -e '.[ray]' (or make ray)"
    if address and address.startswith("ray://") and importlib.util.find_spec("grpc") is None:
        return (
            f"the Ray address {address} (a Ray client) needs Ray's client extra: make ray (pip install 'ray[client]')"
        )
    return None


@dataclass(frozen=True)
class ComputeSettings:
    """A study's compute engine.

    ``address``: ``None`` starts a Ray instance on this machine; ``auto`` joins the cluster this
    machine belongs to; ``ray://host:10001`` connects as a Ray client. ``workers``: how many
    Ray workers the jobs use (and, for a Ray started here, its CPUs); ``None`` means every CPU
    the cluster offers. ``corpus_shards``: with Ray, retrieval splits each corpus into this many
    shards, one per worker, and merges their top hits exactly (:mod:`biaswh.compute.retrieval.shards`).
    """

    engine: Literal["local", "ray"] = "local"
    address: str | None = None
    workers: int | None = None
    corpus_shards: int = 1


def compute_settings(settings: dict, *, where: str = "[compute]") -> ComputeSettings:
    """The :class:`ComputeSettings` of a study's ``[compute]`` table (checked; the schema checked the types)."""
    table = settings.get("compute") or {}
    engine = table.get("engine", "local")
    if engine not in ENGINES:
        raise UserError(f"{where} engine: {engine!r} is not one of {', '.join(ENGINES)}")
    workers = table.get("workers")
    if workers is not None and workers < 1:
        raise UserError(f"{where} workers: {workers} must be at least 1")
    address = table.get("address")
    if address is not None and engine != "ray":
        raise UserError(f'{where} address: {address!r} needs engine = "ray"')
    if address is not None and ray_address_problem(address):
        raise UserError(f"{where} address: {ray_address_problem(address)}")
    # A Ray started here runs one worker process per CPU it is given (about 180 MB each): 10,000
    # took 5.2 GB for a 28-document corpus. A cluster's CPUs are checked when it is joined.
    if engine == "ray" and address in (None, "local") and workers is not None and workers > usable_cpus():
        raise UserError(
            f"{where} workers: {workers} is more than the {usable_cpus()} CPUs of this machine"
            " (a Ray started here runs a worker process per CPU); use at most that, or join a cluster (address)"
        )
    corpus_shards = table.get("corpus_shards", 1)
    if corpus_shards < 1:
        raise UserError(f"{where} corpus_shards: {corpus_shards} must be at least 1")
    if corpus_shards > 1 and engine != "ray":
        raise UserError(f'{where} corpus_shards: {corpus_shards} needs engine = "ray"')
    if workers is not None and corpus_shards > workers:
        raise UserError(f"{where} corpus_shards: {corpus_shards} needs as many workers (workers = {workers})")
    if engine == "ray" and missing_ray_extra(address):
        raise UserError(missing_ray_extra(address))  # before any work, not when the first job starts Ray
    return ComputeSettings(engine=engine, address=address, workers=workers, corpus_shards=corpus_shards)


def with_compute(study, *, engine: str | None = None, address: str | None = None, corpus_shards: int | None = None):
    """``study`` with its ``[compute]`` engine, Ray address and corpus shards replaced by the command line's.

    A Ray address alone implies the Ray engine; the local engine drops the Ray address and
    (unless given too) the corpus shards. The result is recorded with the run's settings;
    the study's ``[compute]`` table is checked either way, before the run starts, and a
    changed study passes the families' config checks again.
    """
    if engine is None and address is None and corpus_shards is None:
        compute_settings(study.settings)
        return study
    table = dict(study.settings.get("compute") or {})
    table["engine"] = engine or ("ray" if address else table.get("engine", "local"))
    if address is not None:
        table["address"] = address
    elif table["engine"] == "local":
        table.pop("address", None)
        table.pop("corpus_shards", None)
    if corpus_shards is not None:
        table["corpus_shards"] = corpus_shards
    settings = {**study.settings, "compute": table}
    compute_settings(settings, where="--compute/--ray-address" + ("/--corpus-shards" if corpus_shards else ""))
    changed = dataclasses.replace(study, settings=settings)
    check_study(changed)  # what the families check against [compute] (e.g. retrievers that cannot shard)
    return changed


def ensure_ray(settings: ComputeSettings):
    """The ``ray`` module, started or connected once per process; a missing extra is a UserError."""
    if missing_ray_extra(settings.address):
        raise UserError(missing_ray_extra(settings.address))
    import ray

    if not ray.is_initialized():
        started = time.perf_counter()
        # No usage reports and no dashboard: the warehouse runs offline and serves nothing. Ray's
        # own INFO lines stay off the terminal (warnings still show); one line of ours says what started.
        os.environ.setdefault("RAY_DISABLE_USAGE_STATS", "1")
        quiet = {"logging_level": logging.WARNING}
        where = f"connected to the Ray cluster at {settings.address}"
        if settings.address is None:
            # The workers of a local instance run at the study's own priority. Ray starts them at
            # niceness 15 (to keep a cluster node's raylet responsive); on a busy machine that
            # starves them behind every other process while the study waits on them: the Ray
            # embedding test took 23 s alone and 292 s beside two busy processes (42 s with this).
            os.environ.setdefault("RAY_worker_niceness", "0")
            with _without_token_notice():
                ray.init(num_cpus=settings.workers, include_dashboard=False, log_to_driver=False, **quiet)
            where = f"a local Ray instance ({int(ray.cluster_resources().get('CPU', 0))} CPUs) started"
        elif settings.address.startswith("ray://"):
            ray.init(address=settings.address, **quiet)  # a Ray client takes the cluster's own settings
        else:
            ray.init(address=settings.address, log_to_driver=False, **quiet)
        print(f"  {where} in {time.perf_counter() - started:.1f} s", flush=True)
    return ray


@contextmanager
def _without_token_notice():
    """Ray's notice that a new local instance uses token authentication (its secure default,
    kept) off the terminal while Ray starts; every other warning of Ray's still shows."""
    notices = logging.getLogger("ray._private.authentication.authentication_token_setup")
    hide = lambda record: not record.getMessage().startswith("Token authentication is enabled")  # noqa: E731
    notices.addFilter(hide)
    try:
        yield
    finally:
        notices.removeFilter(hide)


def ray_workers(ray, settings: ComputeSettings) -> int:
    """How many workers to start: the configured number, else the cluster's CPUs (at least one)."""
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    if settings.workers is not None and settings.workers > cpus:
        raise UserError(
            f"[compute] workers: {settings.workers} is more than the cluster's {cpus} CPUs; use at most that"
        )
    return cpus if settings.workers is None else settings.workers


def chat_pool(settings: ComputeSettings):
    """For :func:`biaswh.ingest.common.llm.batch.answer_all`: a Ray chat pool when the engine is Ray, else None."""
    if settings.engine != "ray":
        return None
    from biaswh.ingest.common.llm.ray_pool import RayChatPool

    ray = ensure_ray(settings)
    return RayChatPool(ray, ray_workers(ray, settings))


def in_order(workers: Iterable, items: Iterable, submit: Callable, collect: Callable) -> Iterator:
    """``collect(item, submit(worker, item))`` for each item, in item order, with at most one item
    per worker in flight (so the driver's memory does not grow with the items)."""
    idle, pending, waiting = deque(workers), deque(), iter(items)
    while True:
        while idle:
            item = next(waiting, None)
            if item is None:
                break
            worker = idle.popleft()
            pending.append((item, submit(worker, item), worker))
        if not pending:
            return
        item, handle, worker = pending.popleft()
        result = collect(item, handle)
        idle.append(worker)
        yield result
