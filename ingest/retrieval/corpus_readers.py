"""Read a retrieval corpus or a query set from the layouts people keep them in.

Documents (:func:`read_documents`):

- a BEIR folder (``corpus.jsonl`` with ``_id``, ``title``, ``text``), or that file itself;
- an MS MARCO style TSV (``.tsv``: ``id<TAB>text`` per line, no header);
- JSONL, JSON, CSV or Parquet with named id and text columns (``id_column``, default ``_id``
  or ``id``; ``text_column``, default ``text``; ``title_column``, default ``title`` if present);
- a folder of text or Markdown files (``.md``, ``.markdown``, ``.txt``, in path order), or one
  such file, cut into one document per file, per non-empty line, or per heading (``unit``).

Queries (:func:`read_queries`): BEIR ``queries.jsonl`` (``_id``, ``text``), a TSV
(``id<TAB>text``), JSONL/JSON/CSV/Parquet with named columns, or a Markdown file in which each
heading opens one query: its id is the heading's first number (else the heading), its text the
quoted text after ``**Query:**`` (else the heading); or a TREC topics file
(``<top><num> Number: 301 <title> ...``, :mod:`biaswh.ingest.retrieval.trec_topics`).

Ids are the source's own, as strings; a duplicate or missing id and an empty text are refused
with the file, row and field.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from biaswh.ingest.common.readers import is_blank, read_records, read_utf8
from biaswh.ingest.retrieval.trec_topics import looks_like_trec_topics, read_trec_topics
from biaswh.warehouse.errors import InputError

TEXT_SUFFIXES = (".md", ".markdown", ".txt")
UNITS = ("file", "line", "heading")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_QUERY_LINE = re.compile(r"^\s*\*\*Query:?\*\*:?\s*(.+?)\s*$")


@dataclass(frozen=True)
class Entry:
    """One document or query: ``row`` is where it is in its source (1-based), ``source_id`` its own id."""

    row: int
    source_id: str
    title: str
    text: str
    source_file: str


def _checked(path: Path, entries: list[Entry], what: str) -> list[Entry]:
    if not entries:
        raise InputError(path, f"no {what} in the source")
    seen: dict[str, int] = {}
    for entry in entries:
        if is_blank(entry.text):  # zero-width characters alone count as empty
            raise InputError(path, f"{what[:-1]} {entry.source_id!r} has an empty text", row=entry.row, field="text")
        if entry.source_id in seen:
            raise InputError(
                path,
                f"id {entry.source_id!r} is listed twice (first at row {seen[entry.source_id]})",
                row=entry.row,
                field="id",
            )
        seen[entry.source_id] = entry.row
    return entries


def _value(path: Path, record: dict, column: str | None, row: int, *, required: bool) -> str:
    """The text of one cell; a value that is not text or a number (an object, a list, bytes, NaN)
    is refused rather than stored as its Python repr."""
    value = record.get(column) if column else None
    if value is None or (isinstance(value, str) and is_blank(value) and required):
        if required:
            raise InputError(path, f"missing {column!r}", row=row, field=column)
        return ""
    if isinstance(value, (bytes, bytearray)):
        raise InputError(path, "is binary data, not text (store the column as a string)", row=row, field=column)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(path, f"must be text or a number, got {type(value).__name__}", row=row, field=column)
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(path, f"{value!r} is not a value (NaN or infinity)", row=row, field=column)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip() if required else str(value)


def _from_records(path: Path, id_column: str | None, text_column: str, title_column: str | None) -> list[Entry]:
    records = read_records(path)
    if records and id_column is None:
        id_column = "_id" if "_id" in records[0] else "id"
    if records and id_column not in records[0]:
        raise InputError(path, f"no id column {id_column!r} (set id_column)", row=1, field=id_column)
    if records and text_column not in records[0]:
        raise InputError(path, f"no text column {text_column!r} (set text_column)", row=1, field=text_column)
    if title_column is None and records and "title" in records[0]:
        title_column = "title"
    return [
        Entry(
            row,
            _value(path, record, id_column, row, required=True),
            _value(path, record, title_column, row, required=False),
            _value(path, record, text_column, row, required=False),
            path.name,
        )
        for row, record in enumerate(records, start=1)
    ]


def _from_tsv(path: Path) -> list[Entry]:
    entries = []
    for row, line in enumerate(read_utf8(path).splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            # a third column would otherwise become part of the text
            found = f"{len(fields)} columns" if len(fields) > 2 else "no tab"
            raise InputError(path, f"expected 'id<TAB>text', found {found}", row=row, field="line")
        source_id, text = fields
        entries.append(Entry(row, source_id.strip(), "", text, path.name))
    return entries


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower()).strip("-") or "section"


def _sections(lines: list[str]) -> list[tuple[int, str, list[str]]]:
    """(line number of the heading or 1, heading text or '', body lines) per section, preamble first."""
    sections: list[tuple[int, str, list[str]]] = [(1, "", [])]
    for number, line in enumerate(lines, start=1):
        match = _HEADING.match(line)
        if match:
            sections.append((number, match.group(2), []))
        else:
            sections[-1][2].append(line)
    return [s for s in sections if s[1] or any(x.strip() for x in s[2])]


def _from_text_file(path: Path, name: str, unit: str, first_row: int) -> list[Entry]:
    lines = read_utf8(path).splitlines()
    if unit == "file":
        headings = [m.group(2) for m in map(_HEADING.match, lines) if m]
        title = headings[0] if headings else path.stem
        return [Entry(first_row, name, title, "\n".join(lines).strip(), name)]
    if unit == "line":
        return [
            Entry(first_row + number - 1, f"{name}:{number}", "", line.strip(), name)
            for number, line in enumerate(lines, start=1)
            if line.strip()
        ]
    entries, used = [], {}
    for number, heading, body in _sections(lines):
        slug = _slug(heading) if heading else "preamble"
        used[slug] = used.get(slug, 0) + 1
        source_id = f"{name}#{slug}" + (f"-{used[slug]}" if used[slug] > 1 else "")
        text = "\n".join([heading, *body]).strip()
        entries.append(Entry(first_row + number - 1, source_id, heading, text, name))
    return entries


def _text_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES)


def read_documents(
    path: str | Path,
    *,
    unit: str = "file",
    id_column: str | None = None,
    text_column: str = "text",
    title_column: str | None = None,
) -> list[Entry]:
    """Every document of a corpus source (see the module docstring), in source order."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file or folder")
    if unit not in UNITS:
        raise InputError(path, f"unit must be one of {', '.join(UNITS)}, got {unit!r}", field="unit")
    if path.is_dir() and (path / "corpus.jsonl").is_file():
        path = path / "corpus.jsonl"
    if path.is_dir() or path.suffix.lower() in TEXT_SUFFIXES:
        files = _text_files(path)
        if not files:
            raise InputError(path, f"no text or Markdown files ({', '.join(TEXT_SUFFIXES)}) in the folder")
        base = path if path.is_dir() else path.parent
        entries = []
        for number, file in enumerate(files, start=1):
            # row: the line in its file (per line / heading), the file's position (per file)
            entries += _from_text_file(file, file.relative_to(base).as_posix(), unit, number if unit == "file" else 1)
        return _checked(path, entries, "documents")
    if path.suffix.lower() == ".tsv":
        return _checked(path, _from_tsv(path), "documents")
    return _checked(path, _from_records(path, id_column, text_column, title_column), "documents")


def read_queries(
    path: str | Path,
    *,
    id_column: str | None = None,
    text_column: str = "text",
    format: str | None = None,
    topic_field: str = "title",
) -> list[Entry]:
    """Every query of a query source (see the module docstring), in source order.

    ``format = "trec_topics"`` reads a TREC topics file (``topic_field`` is the text); a file that
    opens with ``<top>`` is read as one without being told.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file or folder")
    if format not in (None, "trec_topics"):
        raise InputError(path, f"unknown query format {format!r} (known: trec_topics)")
    if path.is_dir() and (path / "queries.jsonl").is_file():
        path = path / "queries.jsonl"
    if format == "trec_topics" or (path.is_file() and looks_like_trec_topics(path)):
        topics = read_trec_topics(path, topic_field=topic_field)
        return _checked(path, [Entry(row, qid, title, text, path.name) for row, qid, title, text in topics], "queries")
    if path.suffix.lower() in TEXT_SUFFIXES:
        entries = []
        for number, heading, body in _sections(read_utf8(path).splitlines()):
            if not heading:
                continue
            quoted = next((m.group(1) for m in map(_QUERY_LINE.match, body) if m), None)
            number_match = re.search(r"\d+", heading)
            source_id = number_match.group(0) if number_match else _slug(heading)
            if quoted is not None:
                entries.append(Entry(number, source_id, heading, quoted.strip().strip('"“”'), path.name))
        return _checked(path, entries, "queries")
    if path.suffix.lower() == ".tsv":
        return _checked(path, _from_tsv(path), "queries")
    return _checked(path, _from_records(path, id_column, text_column, None), "queries")
