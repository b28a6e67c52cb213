"""What a reply must be before it is an answer: JSON of bounded depth, UTF-8, an object, a chat
completion with non-empty content; anything else is an :class:`AttemptFailed` with its reason."""

from __future__ import annotations

import itertools
import json
import re
from typing import Callable

_DETAIL_CHARACTERS = 200
# A chat completion nests 4 deep (object, choices, choice, message); Python's JSON parser recurses
# and dies with a RecursionError near 1,000. Checked before parsing, with the size cap.
MAX_REPLY_DEPTH = 64
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


class AttemptFailed(Exception):
    """One attempt did not give a usable reply; ``reason`` is recorded, ``retryable`` decides a retry."""

    def __init__(self, reason: str, *, retryable: bool) -> None:
        super().__init__(reason)
        self.reason, self.retryable, self.attempts = reason, retryable, 1


def _detail(body: bytes, clean: Callable[[str], str] = str) -> str:
    """The error message an endpoint sent, on one line and short. ``clean`` (the key's redaction)
    reads the whole text before it is cut: a key the cut halved would no longer be found."""
    text = clean(body.decode("utf-8", "replace"))[:4000]  # JSON is looked for in the first 4,000 only
    try:
        error = json.loads(text).get("error")
        text = str(error.get("message", error) if isinstance(error, dict) else error)
    except (ValueError, AttributeError):
        pass
    return " ".join(text.split())[:_DETAIL_CHARACTERS]  # the reason is redacted again whole (request_json)


def nesting_depth(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings do not count)."""
    brackets = _JSON_STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _json_object(body: bytes, content_type: str, clean: Callable[[str], str] = str) -> dict:
    """The reply as a JSON object, or AttemptFailed; ``clean`` (the key's redaction) reads a
    non-JSON reply whole before its start is quoted."""
    if body.count(b"[") + body.count(b"{") > MAX_REPLY_DEPTH and nesting_depth(body) > MAX_REPLY_DEPTH:
        raise AttemptFailed(f"the reply's JSON nests deeper than {MAX_REPLY_DEPTH} levels", retryable=False)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise AttemptFailed("the reply is not UTF-8 text", retryable=False) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        html = "html" in content_type.lower() or text.lstrip()[:1] == "<"
        start = " ".join(clean(text).split())[:60]
        what = "HTML, not JSON" if html else "not JSON"
        raise AttemptFailed(f"the reply is {what} ({exc.msg}); it starts {start!r}", retryable=False) from None
    if not isinstance(data, dict):
        raise AttemptFailed(f"the reply is JSON but not an object (a {type(data).__name__})", retryable=False)
    return data


def chat_reply(data: dict) -> tuple[str, str | None, str | None]:
    """(content, separate reasoning, server-reported model) of a chat completion, or AttemptFailed."""
    choices = data.get("choices")
    if not isinstance(choices, list):
        raise AttemptFailed("the reply has no 'choices' list (not a chat completion)", retryable=False)
    if not choices:
        raise AttemptFailed("the reply's 'choices' is empty", retryable=False)
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        raise AttemptFailed("the reply has no choices[0].message object", retryable=False)
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        found = "null" if content is None else ("empty" if isinstance(content, str) else type(content).__name__)
        raise AttemptFailed(f"the reply's choices[0].message.content is {found}, not text", retryable=False)
    reasoning = message.get("reasoning_content")
    model = data.get("model")
    return (
        content,
        reasoning if isinstance(reasoning, str) and reasoning else None,
        model if isinstance(model, str) else None,
    )
