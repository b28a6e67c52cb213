"""What every OpenAI-compatible caller shares, checked when built (no HTTP library imported)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import quote, quote_plus, urlsplit, urlunsplit

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.config_schema import BACKOFF_SECONDS, CONCURRENCY, RETRIES, TIMEOUT_SECONDS, Number

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


_SHAPES = {
    "concurrency": CONCURRENCY,
    "max_retries": RETRIES,
    "backoff_seconds": BACKOFF_SECONDS,
    "timeout_seconds": TIMEOUT_SECONDS,
    "max_reply_bytes": Number(integer=True, minimum=1),
}


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
        # The CLI's and the study schema's ranges: a timeout of 1e300 s passes "finite" but makes
        # the first request die in threading with an OverflowError.
        for name, shape in _SHAPES.items():
            value = getattr(self, name)
            if shape.problem(value):
                raise UserError(f"{name} ({_OPTION[name]}) must be {shape.describe()}, not {value!r}")
        if not isinstance(self.base_url, str) or urlsplit(self.base_url).scheme not in ("http", "https"):
            raise UserError(f"base_url (--base-url) must be an http:// or https:// URL, not {self.base_url!r}")


def public_url(url: str) -> str:
    """The base URL without user info or query (where a key could hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def key_forms(key: str) -> list[str]:
    r"""Every spelling of ``key`` a recorded error can hold, longest first: as sent; inside JSON text
    (``\\`` ``\"``, and ``\/`` from some servers); inside a Python repr of either (the HTTP parser's
    ``bytearray(b'...')``, a reply's first characters: ``\\\\`` ``\'``); percent-encoded in a URL."""
    in_json = json.dumps(key)[1:-1]
    texts = {key, in_json, in_json.replace("/", "\\/")}
    quoted = {text.replace("\\", "\\\\") for text in texts}
    quoted |= {text.replace("'", "\\'") for text in quoted}
    encoded = {quote(key, safe=""), quote(key), quote_plus(key)}
    encoded |= {re.sub("%[0-9A-F]{2}", lambda escape: escape.group().lower(), text) for text in encoded}
    return sorted(texts | quoted | encoded, key=len, reverse=True)


def redact(text: str, key: str | None) -> str:
    """``text`` without the key in any of its :func:`key_forms`, nor anything shaped like an OpenAI key."""
    if key:
        text = re.sub("|".join(map(re.escape, key_forms(key))), "***", text)
    return _KEY_LIKE.sub("sk-***", text)
