"""What every OpenAI-compatible caller shares, checked when built (no HTTP library imported)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from warehouse.errors import UserError

DEFAULT_MAX_REPLY_BYTES = 1_000_000
_KEY_LIKE = re.compile(r"sk-[A-Za-z0-9_\-*]{4,}")
# The command-line option of each field, so one message serves the CLI and a study config.
_OPTION = {
    "concurrency": "--concurrency",
    "max_retries": "--max-retries",
    "backoff_seconds": "--backoff",
    "timeout_seconds": "--timeout",
    "max_reply_bytes": "--max-reply-bytes",
}


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True, kw_only=True)
class EndpointSettings:
    """Where requests go and how they are sent; a caller's settings extend this.

    Parameters
    ----------
    base_url : the endpoint's base URL (``.../v1``).
    api_key_env : the environment variable holding the key; the key is read only from there.
    concurrency : requests in flight at once (at least 1).
    max_retries : retries after a timeout, lost connection, 429 or 5xx (0 or more).
    backoff_seconds : the wait before the first retry; it doubles each retry.
    timeout_seconds : the deadline of one whole request (connect, send, every byte of the reply).
    max_reply_bytes : a longer reply is refused (a failure, not an answer).
    jitter_seed : with a seed, each wait is scaled by a factor in [0.5, 1) drawn from it; none: no jitter.

    Raises
    ------
    UserError
        When a number is out of range (the CLI and the config schema check too; this catches any caller).
    """

    base_url: str
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 4
    max_retries: int = 3
    backoff_seconds: float = 1.0
    timeout_seconds: float = 60.0
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    jitter_seed: int | None = None

    def __post_init__(self) -> None:
        checks = {
            "concurrency": (_whole(self.concurrency) and self.concurrency >= 1, "a whole number, at least 1"),
            "max_retries": (_whole(self.max_retries) and self.max_retries >= 0, "a whole number, 0 or more"),
            "backoff_seconds": (_number(self.backoff_seconds) and self.backoff_seconds >= 0, "seconds, 0 or more"),
            "timeout_seconds": (_number(self.timeout_seconds) and self.timeout_seconds > 0, "seconds, more than 0"),
            "max_reply_bytes": (_whole(self.max_reply_bytes) and self.max_reply_bytes >= 1, "bytes, at least 1"),
        }
        for name, (valid, expected) in checks.items():
            if not valid:
                value = getattr(self, name)
                raise UserError(f"{name} ({_OPTION[name]}) must be {expected}, not {value!r}")
        if not isinstance(self.base_url, str) or urlsplit(self.base_url).scheme not in ("http", "https"):
            raise UserError(f"base_url (--base-url) must be an http:// or https:// URL, not {self.base_url!r}")


def public_url(url: str) -> str:
    """The base URL without user info or query (where a key could hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def redact(text: str, key: str | None) -> str:
    """``text`` without the key, nor anything shaped like an OpenAI key."""
    if key:
        text = text.replace(key, "***")
    return _KEY_LIKE.sub("sk-***", text)
