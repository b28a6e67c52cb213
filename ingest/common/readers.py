"""Read source files into records, naming the file, row and field of anything wrong.

Rows are numbered from 1 in the order records appear: the n-th object of a JSON array,
the n-th non-blank line of a JSONL file, the n-th data row of a CSV file (after its header).
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from biaswh.warehouse.errors import InputError

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_DIGITS = re.compile(r"\s*[+-]?[0-9]+\s*")
_INVISIBLE = {"Cc", "Cf", "Zs", "Zl", "Zp"}  # control, format (zero-width, BOM) and separator characters
RECORD_FORMATS = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".parquet": "parquet"}


def file_format(path: Path, allowed: tuple[str, ...]) -> str:
    """Return the format named by the file's suffix, refusing any not in ``allowed``."""
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a folder, not a file")
    fmt = RECORD_FORMATS.get(path.suffix.lower())
    if fmt not in allowed:
        wanted = ", ".join(sorted(s for s, f in RECORD_FORMATS.items() if f in allowed))
        raise InputError(path, f"unsupported file type '{path.suffix or '(none)'}'; expected one of {wanted}")
    return fmt


def read_utf8(path: Path) -> str:
    """Decode a file as strict UTF-8 (a leading byte-order mark is dropped, as ``utf-8-sig`` does);
    on failure name the line and byte offset."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            path, f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}, line {line})"
        ) from None


def int32_value(path: Path, value, *, row=None, field: str, minimum: int | None = None) -> int:
    """``value`` as an integer the warehouse can store (32-bit), or an error naming file, row and field.

    Accepted: an int, a float with no fractional part (``3.0``, as pandas writes), or a string
    of digits. Refused, never truncated or wrapped: ``3.7``, ``Infinity``, NaN, booleans,
    and anything outside -2,147,483,648..2,147,483,647 (or below ``minimum``).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _DIGITS.fullmatch(value):
        number = int(value) if len(value) < 100 else INT32_MAX + 1  # int() refuses thousands of digits
    else:
        raise InputError(path, f"{value!r} is not an integer", row=row, field=field)
    if not INT32_MIN <= number <= INT32_MAX:
        raise InputError(
            path,
            f"{number} is out of range (the warehouse stores it as a 32-bit integer, at most {INT32_MAX:,})",
            row=row,
            field=field,
        )
    if minimum is not None and number < minimum:
        raise InputError(path, f"{number} is below {minimum}", row=row, field=field)
    return number


def parse_json(path: Path, text: str):
    """Parse the JSON ``text`` of ``path``; a syntax error names the file, line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def read_jsonl(path: Path, text: str) -> list[dict]:
    """The objects of a JSON Lines ``text``; a bad line names the file and line."""
    records = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                path, f"malformed JSON on line {line_number} column {exc.colno}: {exc.msg}", row=len(records) + 1
            ) from None
        if not isinstance(record, dict):
            raise InputError(path, f"line {line_number} is not a JSON object", row=len(records) + 1)
        records.append(record)
    return records


def is_blank(text: str) -> bool:
    """True when ``text`` shows nothing: only whitespace, zero-width or other invisible characters
    (``'\\u200b\\u200b'`` is blank, though ``str.strip`` keeps it)."""
    return all(c.isspace() or unicodedata.category(c) in _INVISIBLE for c in text)


def allow_csv_fields_of(size: int) -> None:
    """Let the csv module read a field as long as ``size`` characters (its default stops at 131,072,
    though the same text loads as JSONL): no field of a file is longer than the file itself."""
    if size > csv.field_size_limit():
        csv.field_size_limit(min(size, 2**31 - 1))


def csv_rows(path: Path, text: str) -> tuple[list[str], list[dict]]:
    """(header, data rows as dicts) of a CSV file; a malformed row is refused with its number.

    Parsed strictly: an unterminated quote (which a lenient reader lets swallow the rest of the
    file into one field) and text after a closing quote are errors naming the row and column.
    """
    allow_csv_fields_of(len(text))
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        raise InputError(path, f"malformed CSV header ({exc})", field="header") from None
    if not header:
        raise InputError(path, "empty CSV file: no header row")
    rows = []
    while True:
        started = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return header, rows
        except csv.Error as exc:
            raise _csv_error(path, text, header, len(rows) + 1, started, exc) from None
        if None in row:
            raise InputError(path, "more values than header columns", row=len(rows) + 1)
        rows.append(row)


def _csv_error(path: Path, text: str, header: list[str], row: int, line: int, exc: csv.Error) -> InputError:
    """Name the column a malformed row breaks in: the last one a lenient reader reaches on it."""
    tail = "".join(text.splitlines(keepends=True)[line - 1 :])
    reached = next(csv.reader(io.StringIO(tail, newline="")), [""])
    column = header[min(len(reached), len(header)) - 1]
    reason = "an unterminated quote" if "unexpected end of data" in str(exc) else str(exc)
    return InputError(path, f"malformed CSV row starting on line {line}: {reason}", row=row, field=column)


def read_csv(path: Path, text: str) -> list[dict]:
    """The rows of a CSV ``text`` as dicts keyed by its header."""
    return csv_rows(path, text)[1]


def read_parquet(path: Path) -> pa.Table:
    """A Parquet file as an Arrow table."""
    try:
        return pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(path, f"not a readable Parquet file ({exc})") from None


def read_records(path: Path, *, allowed: tuple[str, ...] = ("json", "jsonl", "csv", "parquet")) -> list[dict]:
    """Read a JSON array, JSONL, CSV or Parquet file into a list of dicts."""
    fmt = file_format(path, allowed)
    if fmt == "parquet":
        return read_parquet(path).to_pylist()
    text = read_utf8(path)
    if fmt == "jsonl":
        return read_jsonl(path, text)
    if fmt == "csv":
        return read_csv(path, text)
    document = parse_json(path, text)
    if isinstance(document, dict):
        # Accept the common {"data": [...]} wrapper as well as a bare array.
        document = document.get("data", document.get("records"))
    if not isinstance(document, list):
        raise InputError(path, "expected a JSON array of objects (or an object with a 'data' array)")
    for index, record in enumerate(document, start=1):
        if not isinstance(record, dict):
            raise InputError(path, "is not a JSON object", row=index)
    return document
