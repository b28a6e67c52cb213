"""Parse a recommender's reply into post ids: tolerant of prose, code fences and bad ids.

The reply should hold a JSON list of ids; models often wrap it in prose or a code fence,
number the ids, repeat one, invent one or give fewer than asked. The parse keeps the known
ids in order, drops unknown and repeated ones (recording them) and truncates to k.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_LIST = re.compile(r"\[[^\[\]]*\]", re.DOTALL)
_TOKEN = re.compile(r"[A-Za-z0-9_\-:.]+")


@dataclass(frozen=True)
class ParsedReply:
    """The ids a reply recommends and what was wrong with it."""

    ids: tuple[str, ...]
    unknown_ids: tuple[str, ...]
    duplicate_ids: tuple[str, ...]
    status: str  # ok (k valid ids), partial (fewer than k), failed (none)
    method: str  # json_list or id_scan


def _candidates(reply: str) -> tuple[list[str], str]:
    for match in _LIST.finditer(reply):
        try:
            value = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(value, list) and value and all(isinstance(v, (str, int)) for v in value):
            return [str(v).strip() for v in value], "json_list"
    return _TOKEN.findall(reply), "id_scan"


def parse_reply(reply: str, *, shown_ids: list[str], k: int) -> ParsedReply:
    """The first k distinct shown ids the reply names, in its order.

    A JSON list in the reply is read first; without one, every id-like token that is a
    shown id counts (unknown tokens are then prose, not recorded as unknown ids).
    """
    candidates, method = _candidates(reply or "")
    shown = set(shown_ids)
    ids, unknown, duplicates = [], [], []
    for candidate in candidates:
        if candidate not in shown:
            if method == "json_list":
                unknown.append(candidate)
        elif candidate in ids:
            duplicates.append(candidate)
        elif len(ids) < k:
            ids.append(candidate)
    status = "ok" if len(ids) == k else "partial" if ids else "failed"
    return ParsedReply(tuple(ids), tuple(unknown), tuple(duplicates), status, method)
