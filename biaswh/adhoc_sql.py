"""Ad hoc SQL: ``biaswh sql`` (one query, four output formats) and ``biaswh shell`` (a prompt).

Both run on DuckDB's sandboxed read-only connection (:func:`biaswh.warehouse.database.sandbox.open_sandbox`):
a query cannot write, read any file (the warehouse's own file and WAL included), attach
databases, install or load extensions, or change settings; COPY, EXPORT, ATTACH and DETACH are
refused before they run. Output files (``--out``) are written by this module, not by the SQL,
and never onto the warehouse or inside ``BIASWH_HOME`` (:func:`biaswh.warehouse.database.output_files.checked_output`).
Unqualified names resolve through the layers (marts first).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Iterator, Literal

import duckdb

from biaswh.signals import is_interrupted_query
from biaswh.warehouse.database.output_files import atomic_output, checked_output
from biaswh.warehouse.database.sandbox import open_sandbox, refuse_file_statements
from biaswh.warehouse.errors import UserError

if TYPE_CHECKING:
    import pyarrow as pa  # imported only for Parquet: the text formats answer without it

OutputFormat = Literal["table", "csv", "json", "parquet"]
FORMATS = ("table", "csv", "json", "parquet")
# Ad hoc SQL sees every layer without schema prefixes (marts first).
SEARCH_PATH = ("marts", "analysis", "intermediate", "staging", "raw", "main")
_SANDBOX_HINT = (
    " (biaswh sql cannot write, read files, attach databases, install or load extensions, or change settings)"
)


class SqlError(UserError):
    """DuckDB's error in full: its first line is the message, the rest is ``detail``.

    ``detail`` holds what DuckDB adds below that line: a ``Did you mean "..."?``, the candidate
    bindings, the ``LINE 1: ...`` excerpt and the caret under the fault, printed as they are.
    """

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.detail = detail

    def full_text(self) -> str:
        return f"{self}\n{self.detail}" if self.detail else str(self)


@dataclass(frozen=True)
class Rows:
    """A result as Python values, as DuckDB fetches them: its column names and every row."""

    columns: list[str]
    rows: list[tuple]

    @property
    def num_rows(self) -> int:
        return len(self.rows)

    def records(self) -> list[dict]:
        return [dict(zip(self.columns, row)) for row in self.rows]


@contextmanager
def _duckdb_errors() -> Iterator[None]:
    """DuckDB's error, whole, as a :class:`SqlError` (while the statement runs and while it is fetched)."""
    try:
        yield
    except duckdb.Error as exc:
        if is_interrupted_query(exc):
            raise KeyboardInterrupt from None  # Ctrl-C: the command exits 130, not "SQL error"
        hint = _SANDBOX_HINT if isinstance(exc, duckdb.PermissionException) else ""
        first, _, rest = str(exc).partition("\n")
        raise SqlError(f"SQL error: {first}{hint}", rest.strip("\n")) from None


def _executed(con: duckdb.DuckDBPyConnection, query: str) -> duckdb.DuckDBPyConnection | None:
    """Run ``query`` after the sandbox's checks; the connection holding its rows, None when it has none."""
    if not query.strip().strip(";").strip():
        raise UserError('sql: the query is empty; pass one SQL statement, e.g. "select * from dim_runs"')
    refuse_file_statements(con, query)
    relation = con.execute(query)
    if relation is None:
        raise UserError("sql: the query holds no statement (only comments or semicolons)")
    return None if relation.description is None else relation


def run_query(con: duckdb.DuckDBPyConnection, query: str) -> pa.Table | None:
    """One statement's result as an Arrow table (None for a statement without rows)."""
    with _duckdb_errors():
        relation = _executed(con, query)
        return None if relation is None else relation.to_arrow_table()


def fetch_rows(con: duckdb.DuckDBPyConnection, query: str) -> Rows | None:
    """One statement's result as :class:`Rows` (None for a statement without rows); no Arrow needed."""
    with _duckdb_errors():
        relation = _executed(con, query)
        return None if relation is None else Rows([d[0] for d in relation.description], relation.fetchall())


def _cell(value, *, max_width: int = 60) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        # Rounded in the table view (csv, json and parquet keep every digit); 1.0 stays a float.
        text = f"{value:.1f}" if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"
    else:
        text = str(value)
    text = text.replace("\n", " ")
    return text if len(text) <= max_width else text[: max_width - 1] + "…"


def format_table(table: Rows, *, max_rows: int = 200, max_width: int = 60) -> str:
    """An aligned text table of the first ``max_rows`` rows (cells cut at ``max_width``), with the row count."""
    columns = table.columns
    shown = [[_cell(value, max_width=max_width) for value in row] for row in table.rows[:max_rows]]
    widths = [max([len(c)] + [len(r[i]) for r in shown]) for i, c in enumerate(columns)]
    line = lambda values: " | ".join(v.ljust(w) for v, w in zip(values, widths))  # noqa: E731
    out = [line(columns), "-+-".join("-" * w for w in widths), *(line(r) for r in shown)]
    more = f" (showing {max_rows})" if table.num_rows > max_rows else ""
    out.append(f"({table.num_rows} row{'s' if table.num_rows != 1 else ''}{more})")
    return "\n".join(out)


def csv_text(table: Rows) -> str:
    """The rows as CSV text with a header line (booleans as true/false, NULL as an empty field)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    # Booleans as SQL spells them, NULL as an empty field (as DuckDB's own CSV writer does).
    for row in table.rows:
        writer.writerow(["true" if v is True else "false" if v is False else v for v in row])
    return buffer.getvalue()


def _json_default(value):
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    return str(value)


def json_text(table: Rows) -> str:
    """The rows as a JSON array of objects, one per row, keys in column order."""
    return json.dumps(table.records(), default=_json_default, ensure_ascii=False, indent=1) + "\n"


def print_sql(
    query: str, *, output_format: OutputFormat = "table", out: str | None = None, max_rows: int = 200
) -> None:
    """Run one query on the sandboxed connection; print it, or write it to ``out``."""
    if output_format not in FORMATS:
        raise UserError(f"sql: --format must be one of {', '.join(FORMATS)}, got {output_format!r}")
    if output_format == "parquet" and not out:
        raise UserError("sql: --format parquet writes a file: add --out FILE.parquet")
    target = checked_output(out, option="--out") if out else None  # refused before the query runs
    with open_sandbox(SEARCH_PATH) as con:
        table = (run_query if output_format == "parquet" else fetch_rows)(con, query)
    if table is None:
        return
    if output_format == "parquet":
        import pyarrow.parquet as pq  # only for this format: a query in text answers sooner without Arrow

        with atomic_output(target, "wb") as handle:
            pq.write_table(table, handle)
        print(f"wrote {table.num_rows:,} rows to {out}")
        return
    text = {
        "table": lambda: format_table(table, max_rows=max_rows) + "\n",
        "csv": lambda: csv_text(table),
        "json": lambda: json_text(table),
    }[output_format]()
    if out:
        with atomic_output(target) as handle:
            handle.write(text)
        print(f"wrote {table.num_rows:,} rows to {out}")
    else:
        sys.stdout.write(text)
