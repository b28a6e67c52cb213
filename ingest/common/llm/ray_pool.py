"""The chat requests of :func:`~biaswh.ingest.common.llm.batch.answer_all` sent from Ray workers.

The driver cuts the jobs into batches and keeps at most ``lanes`` Ray tasks in flight, each
sending its batch with ``settings.concurrency // lanes`` threads through the one client
(:class:`~biaswh.ingest.common.llm.client.EndpointClient`: same retries, backoff, deadline and size
cap), so no more than ``settings.concurrency`` requests are in flight across the cluster. A
task gets only the endpoint settings (which name the key's environment variable, never the
key) and each job's model, prompt and sampling; it returns the answers, and the driver turns
them into records and appends them to the JSONL cache as each batch comes back, so a rerun
resumes from there.

The key: a worker reads it from its own environment, as the local client does. It is never a
task argument (Ray pickles arguments into its object store, which spills to disk) nor a
``runtime_env`` variable (Ray keeps that in its control store and shows it in job metadata):
on a cluster, set the variable in the nodes' environment. A worker without it, while the driver
has it, stops the step with a UserError instead of sending unauthenticated requests.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from biaswh.ingest.common.llm.client import Answer, EndpointClient, EndpointRefused
from biaswh.ingest.common.llm.settings import EndpointSettings
from biaswh.warehouse.errors import UserError

# Requests per task, per sending thread: large enough to amortise a task, small enough that a
# killed worker loses (and a rerun resends) little.
REQUESTS_PER_THREAD = 4


def send_batch(
    settings: EndpointSettings,
    refused_hint: str,
    requests: list[tuple[str, str, dict]],
    threads: int,
    key_expected: bool,
) -> tuple[list[Answer], tuple[str, int] | None, bool]:
    """In a Ray worker: the answers (in request order, up to a refusal), the refusal, and whether the key was set."""
    if key_expected and not os.environ.get(settings.api_key_env):
        return [], None, False
    answers: list[Answer] = []
    with EndpointClient(settings, refused_hint=refused_hint) as client, ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(client.chat, model=m, prompt=p, sampling=s) for m, p, s in requests]
        for future in futures:
            try:
                answers.append(future.result())
            except EndpointRefused as refused:
                pool.shutdown(wait=True, cancel_futures=True)
                return answers, (str(refused), refused.status), True
    return answers, None, True


@dataclass(frozen=True)
class RayChatPool:
    """Ray, started, and how many workers may send at once (built by ``biaswh.compute.common.engine.chat_pool``)."""

    ray: object
    workers: int

    def answers(self, settings: EndpointSettings, jobs: list, *, refused_hint: str) -> Iterator[tuple]:
        """(job, answer) pairs, a batch at a time as batches finish; raises EndpointRefused at the first refusal."""
        ray = self.ray
        lanes = max(1, min(self.workers, settings.concurrency))
        threads = max(1, settings.concurrency // lanes)
        size = threads * REQUESTS_PER_THREAD
        batches = deque(jobs[first : first + size] for first in range(0, len(jobs), size))
        key_expected = bool(os.environ.get(settings.api_key_env))
        # A worker that dies mid-batch: the batch is sent again (as a rerun would send it).
        task = ray.remote(num_cpus=1, max_retries=2)(send_batch)
        pending: dict = {}
        try:
            while batches or pending:
                while batches and len(pending) < lanes:
                    batch = batches.popleft()
                    requests = [(j.model, j.prompt, j.sampling) for j in batch]
                    pending[task.remote(settings, refused_hint, requests, threads, key_expected)] = batch
                (done,), _ = ray.wait(list(pending), num_returns=1)
                batch = pending.pop(done)
                answers, refused, had_key = ray.get(done)
                if not had_key:
                    raise UserError(
                        f"${settings.api_key_env} is set here but not on the Ray workers: set it in the"
                        " cluster's environment (the key is never sent through Ray)"
                    )
                yield from zip(batch, answers)
                if refused is not None:
                    raise EndpointRefused(refused[0], status=refused[1])
        finally:
            for reference in pending:
                ray.cancel(reference)
