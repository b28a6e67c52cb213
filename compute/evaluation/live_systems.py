"""A live system as a retriever of an evaluation series: an HTTP search endpoint or a Python callable.

```toml
[[evaluation.runs]]
label = "prod_live"
system = "prod"                            # the retriever name its answers are evaluated as
live = { http = "https://search.example.com/search", headers = { Authorization = "env:SEARCH_KEY" },
         timeout = 10, concurrency = 4, retries = 3 }   # (one line in a config)

[[evaluation.runs]]
label = "app_live"
system = "app"
live = { callable = "mypackage.search:top_k" }   # fn(query_texts, k) -> per query [(doc_id, score), ...]
```

A callable may take a keyword ``partition`` (a :class:`datetime.date`): a monitoring tick passes
its week (``biaswh monitor``); the shipped demo uses it to know which week it is. Each query is
asked on its own (its latency is the time of its own call or request), ``concurrency`` at a time.
A query whose call raises, times out or answers malformed is a failure with its reason; the
others are evaluated (see :mod:`biaswh.compute.evaluation.live_runs`).
"""

from __future__ import annotations

import datetime
import importlib
import inspect
import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

from biaswh.compute.evaluation.live_http import SearchClient, header_values
from biaswh.ingest.common.llm.replies import AttemptFailed
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.config_schema import (
    BACKOFF_SECONDS,
    CONCURRENCY,
    POSITIVE_INTEGER,
    RETRIES,
    STRING,
    STRING_MAP,
    TIMEOUT_SECONDS,
    Table,
)

LIVE = Table(
    {
        "http": STRING,
        "callable": STRING,
        "headers": STRING_MAP,
        "timeout": TIMEOUT_SECONDS,
        "concurrency": CONCURRENCY,
        "retries": RETRIES,
        "backoff": BACKOFF_SECONDS,
        "max_reply_bytes": POSITIVE_INTEGER,
    }
)
"""The keys of a run's ``live`` table."""

_HTTP_ONLY = ("headers", "retries", "backoff", "max_reply_bytes")
_REASON_CHARACTERS = 200


@dataclass(frozen=True)
class LiveAnswer:
    """One query's answer: ``hits`` (source doc id, score), best first, or a ``failure`` reason."""

    hits: list[tuple[str, float]]
    latency_ms: float
    attempts: int
    failure: str = ""
    version: str | None = None


def check_live(live: dict, *, where: str) -> None:
    """Raise UserError (one line, naming ``where`` and the key) when a ``live`` table cannot work."""
    kinds = [kind for kind in ("http", "callable") if kind in live]
    if len(kinds) != 1:
        raise UserError(f"{where} live: give exactly one of http = URL or callable = 'package.module:function'")
    if kinds == ["callable"]:
        extra = sorted(set(live) & set(_HTTP_ONLY))
        if extra:
            raise UserError(f"{where} live.{extra[0]}: only an http system takes {', '.join(_HTTP_ONLY)}")
        load_callable(live["callable"], where=where)
    else:
        if not live["http"].startswith(("http://", "https://")):
            raise UserError(f"{where} live.http: must be an http:// or https:// URL, not {live['http']!r}")
        header_values(live.get("headers") or {}, where=f"{where} live.")


def load_callable(spec: str, *, where: str) -> Callable:
    """The function ``package.module:function`` names; UserError when it cannot be imported."""
    module_name, colon, name = spec.partition(":")
    if not colon or not module_name or not name:
        raise UserError(f"{where} live.callable: write 'package.module:function', not {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UserError(f"{where} live.callable: cannot import {module_name!r} ({exc})") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise UserError(f"{where} live.callable: {module_name!r} has no function {name!r}")
    return function


def _callable_hits(answer, depth: int) -> list[tuple[str, float]]:
    """One query's answer from a callable as (doc id, score) pairs cut at ``depth``, or ValueError."""
    if not isinstance(answer, (list, tuple)):
        raise ValueError(f"the answer is a {type(answer).__name__}, not a list of (doc_id, score)")
    hits, seen = [], set()
    for position, pair in enumerate(list(answer)[:depth]):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"entry {position} is not a (doc_id, score) pair")
        doc_id, score = pair
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise ValueError(f"entry {position}: the score is not a finite number")
        if str(doc_id) in seen:
            raise ValueError(f"entry {position}: document {str(doc_id)[:60]!r} is listed twice")
        seen.add(str(doc_id))
        hits.append((str(doc_id), float(score)))
    return hits


def _ask_callable(function: Callable, keywords: dict, text: str, depth: int) -> LiveAnswer:
    started = time.perf_counter()
    try:
        answers = function([text], depth, **keywords)
        if not isinstance(answers, (list, tuple)) or len(answers) != 1:
            raise ValueError("the function must return one answer per query text")
        hits, failure = _callable_hits(answers[0], depth), ""
    except Exception as exc:  # the user's code: any error is this query's failure, with its reason
        hits, failure = [], " ".join(f"{type(exc).__name__}: {exc}".split())[:_REASON_CHARACTERS]
    return LiveAnswer(hits, (time.perf_counter() - started) * 1000, 1, failure)


def _ask_http(client: SearchClient, text: str, depth: int) -> LiveAnswer:
    started = time.perf_counter()
    try:
        hits, version, attempts = client.search(text, depth)
    except AttemptFailed as failed:
        return LiveAnswer([], (time.perf_counter() - started) * 1000, failed.attempts, failed.reason)
    return LiveAnswer(hits, (time.perf_counter() - started) * 1000, attempts, "", version)


def ask_live_system(
    live: dict, texts: list[str], depth: int, *, partition: datetime.date | None = None, where: str = ""
) -> list[LiveAnswer]:
    """Each text's answer from the live system ``live`` (aligned with ``texts``).

    Raises UserError when the system cannot be reached as configured (an unset key, a refusal:
    HTTP 401, 403 or 404); any other failure is the query's own :attr:`LiveAnswer.failure`.
    """
    check_live(live, where=where)
    if "callable" in live:
        function = load_callable(live["callable"], where=where)
        takes_partition = "partition" in inspect.signature(function).parameters
        keywords = {"partition": partition} if takes_partition and partition is not None else {}
        with ThreadPoolExecutor(max_workers=int(live.get("concurrency", 1))) as pool:
            return list(pool.map(lambda text: _ask_callable(function, keywords, text, depth), texts))
    with SearchClient(
        live["http"],
        headers=header_values(live.get("headers") or {}, where=f"{where} live."),
        timeout=float(live.get("timeout", 10.0)),
        retries=int(live.get("retries", 3)),
        backoff=float(live.get("backoff", 1.0)),
        concurrency=int(live.get("concurrency", 4)),
        max_reply_bytes=int(live.get("max_reply_bytes", 1_000_000)),
    ) as client:
        with ThreadPoolExecutor(max_workers=client.settings.concurrency) as pool:
            return list(pool.map(lambda text: _ask_http(client, text, depth), texts))
