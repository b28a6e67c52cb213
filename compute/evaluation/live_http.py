"""A live search endpoint asked over HTTP, under the LLM client's distrust rules.

:class:`SearchClient` is :class:`~biaswh.ingest.common.llm.client.EndpointClient` pointed at a
search URL: the same whole-request deadline, byte-count cap on the streamed reply, retries with
backoff on timeouts, lost connections, 429 and 5xx, no redirect followed (a key would go to the
server it names), and a reply that is not a JSON object refused. What differs is the wire format:

- request: ``POST <url>`` with ``{"query": "<text>", "k": <depth>}``;
- reply: ``{"results": [{"id": "<doc id>", "score": <number>}, ...], "version": "<optional>"}``,
  best first; ``id`` is the corpus source's own document id (as in a TREC run file).

Header values come from environment variables (``"env:NAME"``); they are sent, never stored, and
removed from every failure reason recorded (a server may echo them back).
"""

from __future__ import annotations

import math
import os
from urllib.parse import urlsplit, urlunsplit

from biaswh.ingest.common.llm.client import EndpointClient, EndpointRefused
from biaswh.ingest.common.llm.replies import AttemptFailed
from biaswh.ingest.common.llm.settings import EndpointSettings, redact
from biaswh.warehouse.errors import UserError

ENVIRONMENT_PREFIX = "env:"


def header_values(headers: dict[str, str], *, where: str) -> dict[str, str]:
    """``{header: value}`` with every ``"env:NAME"`` read from the environment; one line per problem."""
    values = {}
    for name, spec in headers.items():
        if not isinstance(spec, str) or not spec.startswith(ENVIRONMENT_PREFIX):
            raise UserError(
                f'{where} headers.{name}: must name an environment variable ("env:NAME"): a secret written'
                " in the config would be stored with every run"
            )
        variable = spec[len(ENVIRONMENT_PREFIX) :]
        value = (os.environ.get(variable) or "").strip()
        if not value:
            raise UserError(f"{where} headers.{name}: the environment variable ${variable} is not set")
        if not (value.isascii() and value.isprintable()):
            raise UserError(
                f"{where} headers.{name}: ${variable} holds a character an HTTP header cannot carry"
                " (a control character or a non-ASCII letter)"
            )
        values[name] = value
    return values


def _base_and_path(url: str) -> tuple[str, str]:
    """``url`` as the client's base URL and the path it appends (``http://h:1/api/search`` -> ``http://h:1/api``,
    ``search``); a query string stays with the path."""
    parts = urlsplit(url)
    folder, _, last = parts.path.rstrip("/").rpartition("/")
    base = urlunsplit((parts.scheme, parts.netloc, folder, "", ""))
    return base, last + (f"?{parts.query}" if parts.query else "")


def search_results(data: dict, *, depth: int) -> tuple[list[tuple[str, float]], str | None]:
    """The ``(doc id, score)`` list (cut at ``depth``) and reported version of a reply, or AttemptFailed."""
    results = data.get("results")
    if not isinstance(results, list):
        raise AttemptFailed("the reply has no 'results' list", retryable=False)
    hits, seen = [], set()
    for position, entry in enumerate(results[:depth]):
        doc_id = entry.get("id") if isinstance(entry, dict) else None
        score = entry.get("score") if isinstance(entry, dict) else None
        if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)) or str(doc_id) == "":
            raise AttemptFailed(f"results[{position}] has no document 'id'", retryable=False)
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise AttemptFailed(f"results[{position}].score is not a finite number", retryable=False)
        if str(doc_id) in seen:
            raise AttemptFailed(f"results[{position}]: document {str(doc_id)[:60]!r} is listed twice", retryable=False)
        seen.add(str(doc_id))
        hits.append((str(doc_id), float(score)))
    version = data.get("version")
    return hits, version if isinstance(version, str) and version else None


class SearchClient(EndpointClient):
    """Search requests to one live endpoint; thread-safe; use as a context manager.

    Parameters
    ----------
    url : the search URL (``http://`` or ``https://``); requests are POSTed to it.
    headers : header name -> value (already read from the environment).
    timeout, retries, backoff, concurrency, max_reply_bytes : as for the LLM client.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str],
        timeout: float = 10.0,
        retries: int = 3,
        backoff: float = 1.0,
        concurrency: int = 4,
        max_reply_bytes: int = 1_000_000,
    ) -> None:
        base, self.path = _base_and_path(url)
        settings = EndpointSettings(
            base_url=base,
            api_key_env="",  # no Bearer key of the LLM settings: only the headers the config names
            concurrency=concurrency,
            max_retries=retries,
            backoff_seconds=backoff,
            timeout_seconds=timeout,
            max_reply_bytes=max_reply_bytes,
        )
        super().__init__(settings, refused_hint="check the live system's URL and headers")
        self._http.headers.update(headers)
        self.secrets = [value for value in headers.values() if value]

    def hide_secrets(self, text: str) -> str:
        """``text`` without any header value sent."""
        for secret in self.secrets:
            text = redact(text, secret)
        return text

    def search(self, text: str, depth: int) -> tuple[list[tuple[str, float]], str | None, int]:
        """(hits, reported version, attempts) of one query, retried; AttemptFailed with a redacted reason.

        A refusal (401, 403, 404) raises :class:`UserError`: a wrong key or URL fails every query alike.
        """
        payload = {"query": text, "k": depth}
        try:
            (hits, version), attempts = self.with_retries(
                lambda: search_results(self.request_json("POST", self.path, payload), depth=depth)
            )
        except AttemptFailed as failed:
            failed.reason = self.hide_secrets(failed.reason)
            raise
        except EndpointRefused as refused:
            raise UserError(self.hide_secrets(str(refused))) from None
        return hits, version, attempts
