"""One OpenAI-compatible client: a whole-request deadline, a size cap, distrusted replies, one retry policy.

Requests go through httpx2 (no SDK: an SDK parses and trusts the reply before we can look).
Each attempt runs in its own thread and the caller waits at most ``timeout_seconds`` for it,
so a server that drips bytes, or sends headers slowly, cannot hold a request longer than
that; the abandoned attempt stops at its next byte (or at its read timeout). A reply is an
answer only when it is at most ``max_reply_bytes``, valid UTF-8 JSON of the right shape,
with non-empty content; anything else is a failure with its reason. Timeouts, lost
connections, 429 and 5xx are retried with exponential backoff; 401, 403 and 404 mean a wrong
key, model or URL, which no retry can fix, and end the whole command.
"""

from __future__ import annotations

import os
import random
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone

import httpx2

from biaswh.ingest.common.llm.replies import AttemptFailed, _detail, _json_object, chat_reply
from biaswh.ingest.common.llm.settings import EndpointSettings, public_url, redact
from biaswh.warehouse.errors import UserError

_STATUS_NAMES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    409: "ConflictError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
}
_REFUSED = (401, 403, 404)  # every request would fail the same way


class EndpointRefused(UserError):
    """A wrong key, model or URL (HTTP 401, 403 or 404): the command stops at the first one."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


class EndpointFailed(UserError):
    """Every request failed (after its retries); the CLI exits 1, not 2: the input may be fine."""

    exit_code = 1


@dataclass(frozen=True)
class Answer:
    """The outcome of one chat request after its retries; ``failure`` is empty when it is an answer."""

    content: str
    reasoning: str | None
    server_model: str | None
    attempts: int
    latency_ms: int
    failure: str
    base_url: str

    @property
    def ok(self) -> bool:
        return not self.failure

    def text_with_reasoning(self) -> str:
        """The content, after the separate chain of thought of vLLM / LM Studio reasoning models."""
        return f"<think>\n{self.reasoning}\n</think>\n{self.content}" if self.reasoning else self.content

    def record_fields(self) -> dict:
        """The fields every cache line carries: the reason of a failure, the model the server named, timing."""
        return {
            "error_message": self.failure,
            "server_model": self.server_model,
            "timestamp": datetime.now(timezone.utc).isoformat(),
            "meta": {"latency_ms": self.latency_ms, "attempts": self.attempts, "base_url": self.base_url},
        }


class EndpointClient:
    """Requests to one OpenAI-compatible endpoint; thread-safe; use as a context manager.

    Parameters
    ----------
    settings : the endpoint, key variable, retries, deadline and size cap.
    refused_hint : what to check when the endpoint refuses (names the caller's options).
    """

    def __init__(self, settings: EndpointSettings, *, refused_hint: str | None = None) -> None:
        self.settings = settings
        # A key pasted with its newline went out as an illegal header, and the error recorded with
        # each failure showed it escaped, where redaction cannot find it; a non-ASCII one crashed.
        key = (os.environ.get(settings.api_key_env) or "").strip()
        if key and not (key.isascii() and key.isprintable()):
            raise UserError(
                f"${settings.api_key_env} holds a character an HTTP header cannot carry"
                " (a control character or a non-ASCII letter); set it to the key alone"
            )
        self.key = key or None
        self.base_url = public_url(settings.base_url)
        self.refused_hint = refused_hint or f"check the base URL, the model and ${settings.api_key_env}"
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        self._http = httpx2.Client(timeout=settings.timeout_seconds, headers=headers, follow_redirects=False)
        self._jitter = None if settings.jitter_seed is None else random.Random(settings.jitter_seed)
        self._jitter_lock = threading.Lock()

    def __enter__(self) -> EndpointClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before retry ``attempt + 1``: doubling, scaled by a seeded factor when jittered."""
        wait = self.settings.backoff_seconds * 2**attempt
        if self._jitter is None:
            return wait
        with self._jitter_lock:
            return wait * (0.5 + self._jitter.random() / 2)

    def with_retries(self, call):
        """``(call(), attempts)``, retrying retryable failures; the last AttemptFailed carries ``attempts``."""
        for attempt in range(self.settings.max_retries + 1):
            try:
                return call(), attempt + 1
            except AttemptFailed as failure:
                failure.attempts = attempt + 1
                if not failure.retryable or attempt == self.settings.max_retries:
                    raise
                time.sleep(self.backoff(attempt))
        raise AssertionError("unreachable")

    def request_json(self, method: str, path: str, payload: dict | None = None) -> dict:
        """One attempt: the reply's JSON object, within the whole-request deadline, or AttemptFailed."""
        timeout = self.settings.timeout_seconds
        deadline = time.monotonic() + timeout
        outcome: dict = {}
        finished, abandoned = threading.Event(), threading.Event()

        def attempt() -> None:
            try:
                outcome["value"] = self._send(method, path, payload, deadline, abandoned)
            except AttemptFailed as failed:  # its words may quote the reply, a header line or a redirect's address
                outcome["error"] = AttemptFailed(redact(failed.reason, self.key), retryable=failed.retryable)
            except BaseException as exc:  # handed to the waiting thread, which raises it
                outcome["error"] = exc
            finally:
                finished.set()

        threading.Thread(target=attempt, name="endpoint-request", daemon=True).start()
        if not finished.wait(timeout):
            abandoned.set()
            raise self._past_deadline()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]

    def _send(self, method: str, path: str, payload, deadline: float, abandoned: threading.Event) -> dict:
        url = f"{self.settings.base_url.rstrip('/')}/{path}"
        limit = self.settings.max_reply_bytes
        too_large = AttemptFailed(f"the reply is larger than {limit:,} bytes (--max-reply-bytes)", retryable=False)
        try:
            with self._http.stream(method, url, json=payload) as response:
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limit:
                    raise too_large
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > limit:
                        raise too_large
                    if abandoned.is_set() or time.monotonic() > deadline:
                        raise self._past_deadline()
                status, content_type = response.status_code, response.headers.get("content-type", "")
                location = response.headers.get("location", "")
        except httpx2.TimeoutException as exc:
            if time.monotonic() >= deadline:  # the read timeout and the deadline are the same seconds
                raise self._past_deadline() from None
            raise AttemptFailed(f"APITimeoutError: {type(exc).__name__}", retryable=True) from None
        except httpx2.HTTPError as exc:
            raise AttemptFailed(f"APIConnectionError: {type(exc).__name__}: {exc}", retryable=True) from None
        if 300 <= status < 400:  # never followed: the key would go to whatever server it names
            where = public_url(location) if location else "nowhere"
            raise AttemptFailed(
                f"HTTP {status}: the endpoint redirects to {where}; redirects are not followed"
                " (give that address as the base URL if you trust it)",
                retryable=False,
            )
        if status >= 400:
            self._status_failure(status, bytes(body))
        return _json_object(bytes(body), content_type, lambda text: redact(text, self.key))

    def _past_deadline(self) -> AttemptFailed:
        """The one failure of a request past its deadline, whichever thread (the waiting one or the
        one reading the reply) notices it first: two wordings made the recorded reason a race."""
        seconds = self.settings.timeout_seconds
        return AttemptFailed(f"no complete reply within the {seconds:g} s deadline", retryable=True)

    def _status_failure(self, status: int, body: bytes) -> None:
        name = _STATUS_NAMES.get(status, "InternalServerError" if status >= 500 else "APIStatusError")
        detail = _detail(body, lambda text: redact(text, self.key))
        if status in _REFUSED:
            raise EndpointRefused(
                f"the endpoint refused the request (HTTP {status} {name}): {self.refused_hint}: {detail}", status=status
            )
        raise AttemptFailed(f"HTTP {status} {name}: {detail}", retryable=status == 429 or status >= 500)

    def chat(self, *, model: str, prompt: str, sampling: dict) -> Answer:
        """One user message to ``model``, retried; a failure is an Answer with its reason (EndpointRefused raises)."""
        started = time.monotonic()
        payload = {"model": model, "messages": [{"role": "user", "content": prompt}], **sampling}
        try:
            (content, reasoning, server_model), attempts = self.with_retries(
                lambda: chat_reply(self.request_json("POST", "chat/completions", payload))
            )
            failure = ""
        except AttemptFailed as failed:
            content, reasoning, server_model, attempts, failure = "", None, None, failed.attempts, failed.reason
        latency_ms = round((time.monotonic() - started) * 1000)
        return Answer(content, reasoning, server_model, attempts, latency_ms, failure, self.base_url)
