"""Many chat requests in a bounded pool over a resumable JSONL cache (the callers' output file).

Every finished request is appended at once, so a crash loses at most the requests in flight;
a rerun reads the cache and sends only what is missing or failed. A line cut short by a crash
(the last one, without its newline) is reported and sent again; any other unreadable line stops
the command with the file and line, since silently dropping it would send (and pay for) it again.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from biaswh.ingest.common.llm.client import Answer, EndpointClient, EndpointFailed, EndpointRefused
from biaswh.ingest.common.llm.settings import EndpointSettings
from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.progress import counted

if TYPE_CHECKING:  # imported by the caller that runs on Ray, never here
    from biaswh.ingest.common.llm.ray_pool import RayChatPool


# Where a command's chat requests go when its caller did not pass a pool: a factory set by the
# command (biaswh's pipeline or ``--compute ray``) and called at the first request, so a study
# whose answers are all cached never starts Ray.
_POOL_FACTORY: contextvars.ContextVar[Callable[[], RayChatPool | None] | None] = contextvars.ContextVar(
    "chat_pool_factory", default=None
)


@contextlib.contextmanager
def chat_pool_for_calls(factory: Callable[[], RayChatPool | None]) -> Iterator[None]:
    """Within the block, :func:`answer_all` sends through ``factory()`` (made once, when first needed).

    Parameters
    ----------
    factory : returns the pool (e.g. :func:`biaswh.compute.common.engine.chat_pool` of the study's
        ``[compute]`` settings), or None for this process's thread pool.
    """
    made: list = []

    def once() -> RayChatPool | None:
        if not made:
            made.append(factory())
        return made[0]

    token = _POOL_FACTORY.set(once)
    try:
        yield
    finally:
        _POOL_FACTORY.reset(token)


class JsonlCache:
    """A JSONL file of records keyed by ``key_field``; the latest line per key wins."""

    def __init__(self, path: str | Path, *, key_field: str = "id") -> None:
        self.path = Path(path).expanduser().resolve()
        self.key_field = key_field
        self._lock = threading.Lock()

    def read(self) -> dict[str, dict]:
        """The latest record per key; raises UserError naming the line of a corrupt record."""
        latest: dict[str, dict] = {}
        if not self.path.exists():
            return latest
        text = self.path.read_text(encoding="utf-8", errors="replace")
        lines = text.splitlines()
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            problem = None
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                problem = f"not JSON ({exc.msg} at column {exc.colno})"
            else:
                if not isinstance(record, dict) or not isinstance(record.get(self.key_field), str):
                    problem = f"not a record with a text {self.key_field!r}"
            if problem is None:
                latest[record[self.key_field]] = record
            elif number == len(lines) and not text.endswith("\n"):
                # removed, or the next append would join it and corrupt a line in the middle
                self._rewrite(text[: text.rfind("\n") + 1])
                print(
                    f"biaswh: warning: {self.path}, line {number}: cut short ({problem}); sent again", file=sys.stderr
                )
            else:
                raise UserError(f"{self.path}, line {number}: corrupt cache line, {problem}; fix or delete that line")
        return latest

    def append(self, record: dict) -> None:
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    def compact(self, order: list[str]) -> None:
        """Rewrite with one line per key (the latest), in ``order`` then the rest, atomically."""
        latest = self.read()
        keys = [k for k in order if k in latest] + sorted(set(latest) - set(order))
        self._rewrite("".join(json.dumps(latest[k], ensure_ascii=False) + "\n" for k in keys))

    def _rewrite(self, text: str) -> None:
        write_text_atomically(self.path, text)


@dataclass(frozen=True)
class ChatJob:
    """One request to send and how its answer becomes a cache record."""

    model: str
    prompt: str
    sampling: dict
    to_record: Callable[[Answer], dict]


@dataclass(frozen=True)
class BatchResult:
    """What a batch sent: the new records (in completion order), failures and retries."""

    records: list[dict]
    n_sent: int
    n_failed: int
    n_retries: int


def answer_all(
    settings: EndpointSettings,
    cache: JsonlCache,
    jobs: list[ChatJob],
    *,
    refused_hint: str,
    order: list[str] | None = None,
    pool: RayChatPool | None = None,
) -> BatchResult:
    """Send every job, at most ``settings.concurrency`` at once, appending each record to ``cache``.

    With ``order`` the cache is compacted to one line per key afterwards (also after an error).
    With ``pool`` (:class:`~biaswh.ingest.common.llm.ray_pool.RayChatPool`) the requests are sent from
    Ray workers, still at most ``settings.concurrency`` at once, and this process writes the cache.

    Raises
    ------
    EndpointRefused
        At the first 401, 403 or 404 (the requests not yet sent are cancelled).
    EndpointFailed
        When every request sent failed (their records are written first).
    """
    records, failures, retries = [], [], 0
    if pool is None and jobs and _POOL_FACTORY.get() is not None:
        pool = _POOL_FACTORY.get()()
    if pool is None:
        answers = _local_answers(settings, jobs, refused_hint=refused_hint)
    else:
        answers = pool.answers(settings, jobs, refused_hint=refused_hint)
    try:
        for job, answer in counted(answers, "llm calls", total=len(jobs), unit="answers"):
            record = job.to_record(answer)
            cache.append(record)
            records.append(record)
            retries += answer.attempts - 1
            if not answer.ok:
                failures.append(answer.failure)
    finally:
        answers.close()  # a generator left early ends its pool before the cache is compacted
        if order is not None and cache.path.exists():
            cache.compact(order)
    if jobs and len(failures) == len(jobs):
        raise EndpointFailed(
            f"every one of the {len(jobs)} request(s) failed, recorded in {cache.path}; the first reason: {failures[0]}"
        )
    return BatchResult(records, len(jobs), len(failures), retries)


def _local_answers(settings: EndpointSettings, jobs: list[ChatJob], *, refused_hint: str) -> Iterator[tuple]:
    """(job, answer) in completion order from a pool of ``settings.concurrency`` threads."""
    with EndpointClient(settings, refused_hint=refused_hint) as client:
        with ThreadPoolExecutor(max_workers=settings.concurrency) as threads:
            futures = {
                threads.submit(client.chat, model=j.model, prompt=j.prompt, sampling=j.sampling): j for j in jobs
            }
            try:
                for future in as_completed(futures):
                    yield futures[future], future.result()
            except EndpointRefused:
                threads.shutdown(wait=True, cancel_futures=True)
                raise
