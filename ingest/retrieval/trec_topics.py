"""Read a TREC topics file as a corpus query set (``[[ingest]] source = "corpus_queries"``,
``format = "trec_topics"``).

The classic SGML-like layout of the TREC ad hoc tracks::

    <top>
    <num> Number: 301
    <title> International Organized Crime
    <desc> Description:
    Identify organizations that participate in international criminal activity.
    <narr> Narrative:
    A relevant document must as a minimum identify the organization ...
    </top>

Closing tags (``</title>``) are allowed and ignored; each ``<top>`` needs its ``</top>``. The
query id is the ``<num>`` value without its ``Number:`` label; the query text is one field
(``topic_field``: ``title`` by default, ``desc`` or ``narr``) with its
``Description:``/``Narrative:`` label dropped and whitespace collapsed. A topic without a
number or without the chosen field is refused with file, line and field; duplicate ids and
empty texts are refused by the caller's checks.
"""

from __future__ import annotations

import re
from pathlib import Path

from biaswh.ingest.common.readers import read_utf8
from biaswh.warehouse.errors import InputError

TOPIC_FIELDS = ("title", "desc", "narr")
_TAG = re.compile(r"<\s*(/?)\s*(top|num|title|desc|narr)\s*>", re.IGNORECASE)
_LABEL = re.compile(r"^\s*(number|description|narrative|topic)\s*:\s*", re.IGNORECASE)


def looks_like_trec_topics(path: Path) -> bool:
    """True when the file's first non-blank text is a ``<top>`` tag."""
    with path.open("rb") as file:
        head = file.read(4096).decode("utf-8", errors="replace").lstrip().lower()
    return head.startswith("<top>")


def _topics(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    """(line of ``<top>``, field -> raw text) per topic, in file order.

    A ``<top>`` left open (another ``<top>`` or the end of the file before its ``</top>``) is
    refused: a lenient reader would merge it into the next topic or drop it.
    """
    topics, current, field, start = [], None, None, 0
    position = 0
    for match in _TAG.finditer(text):
        chunk = text[position : match.start()]
        if current is not None and field is not None:
            current[field] = current.get(field, "") + chunk
        closing, tag = match.group(1), match.group(2).lower()
        position = match.end()
        line = text.count("\n", 0, match.start()) + 1
        if tag == "top":
            if closing and current is None:
                raise InputError(path, "</top> without an open <top>", row=line, field="top")
            if not closing and current is not None:
                raise InputError(path, f"<top> on line {start} is not closed before this <top>", row=line, field="top")
            if closing:
                topics.append((start, current))
                current, field = None, None
            else:
                current, field, start = {}, None, line
        elif closing:
            field = None
        else:
            field = tag
    if current is not None:
        raise InputError(path, "<top> is not closed: no </top> before the end of the file", row=start, field="top")
    return topics


def read_trec_topics(path: Path, *, topic_field: str = "title") -> list[tuple[int, str, str, str]]:
    """(line of ``<top>``, query id, title, query text) of every topic of a TREC topics file, in file order."""
    if topic_field not in TOPIC_FIELDS:
        raise InputError(path, f"topic_field must be one of {', '.join(TOPIC_FIELDS)}, got {topic_field!r}")
    entries = []
    for line, fields in _topics(path, read_utf8(path)):
        number = _LABEL.sub("", fields.get("num", "")).strip()
        if not number:
            raise InputError(path, "topic without a <num>", row=line, field="num")
        text = " ".join(_LABEL.sub("", fields.get(topic_field, "")).split())
        if not text:
            raise InputError(path, f"topic {number!r} has no <{topic_field}> text", row=line, field=topic_field)
        title = " ".join(_LABEL.sub("", fields.get("title", "")).split())
        entries.append((line, number, title, text))
    return entries
