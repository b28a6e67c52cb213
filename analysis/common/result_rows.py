"""The stored result rows of a run, and the rules two runs' rows are compared by.

One set of rules serves ``biaswh diff`` and the run pages (:mod:`biaswh.analysis.common.run_comparison`:
two runs of one warehouse) and ``benchmarks/compare_warehouses.py`` (two warehouses):

- every base table of ``marts`` and ``analysis`` takes part; a run's rows are those whose
  ``run_id`` (or ``series_run_id``, an evaluation series) is the run or one of its evaluation runs;
- what differs between any two runs of one config is left out: run ids, timestamps, paths,
  durations, run fingerprints, measured latencies (:func:`kept_column`), and the rows whose
  ``depends_on_machine`` is true (the latency alerts and checks: :func:`machine_rows_left_out`);
- floats are equal to :data:`DIGITS` significant digits, or else within :data:`TOLERANCE`
  (DuckDB sums in parallel, so a mean's last bits follow the order its threads finished in).

Two runs' rows are compared in DuckDB (``except all``), so a table of millions of rows is never
read into Python; only rows that differ are, up to :data:`MOST_ROWS_READ` a table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import duckdb

_VOLATILE = {"run", "runs", "inputs", "parameters", "sources", "source_files", "fingerprint"}
_VOLATILE |= {"duration_seconds", "elapsed_seconds", "stage_seconds"}
DIGITS = 12
TOLERANCE = 1e-9  # relative, and absolute near zero
# The columns that say which study run a row belongs to (an evaluation series' rows carry both).
RUN_COLUMNS = ("run_id", "series_run_id")
# Interval bounds: a number of the later run outside the earlier run's interval is named as such.
BOUNDS = ("ci_low", "ci_high")
FLOAT_TYPES = ("DOUBLE", "FLOAT", "REAL")
MOST_ROWS_READ = 50_000  # differing rows of one table read to say which columns changed
# A result row computed from a measurement of the machine (a latency alert) says so in this column.
MACHINE_COLUMN = "depends_on_machine"
_SIDE = "__run_side"  # which run a row is from, while two runs' rows are counted together


def kept_column(column: str, data_type: str) -> bool:
    """Whether a column takes part: not a run id, time, path, or a measured latency (wall clock)."""
    volatile = "run_id" in column or column.endswith("_at") or "path" in column or column in _VOLATILE
    return not (volatile or "latency" in column or "TIMESTAMP" in data_type.upper())


def machine_rows_left_out(column_names) -> str:
    """A SQL condition keeping a table's rows that do not depend on the machine (``true`` when it has
    no :data:`MACHINE_COLUMN`): a latency alert can fire in one run and not the next."""
    return f'not coalesce("{MACHINE_COLUMN}", false)' if MACHINE_COLUMN in column_names else "true"


def cell_text(value) -> str:
    """A value as compared: floats to :data:`DIGITS` significant digits, anything else by ``repr``."""
    return f"{value:.{DIGITS}g}" if isinstance(value, float) else repr(value)


def values_close(x, y) -> bool:
    """Equal, or two floats within :data:`TOLERANCE` (NaN equals NaN: both runs found no value)."""
    if isinstance(x, float) and isinstance(y, float):
        return math.isclose(x, y, rel_tol=TOLERANCE, abs_tol=TOLERANCE) or (math.isnan(x) and math.isnan(y))
    return x == y


def rows_close(a: tuple, b: tuple) -> bool:
    """Two rows of kept cells agree cell by cell (:func:`values_close`)."""
    return len(a) == len(b) and all(values_close(x, y) for x, y in zip(a, b))


def result_tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """(schema, table) of every stored table in ``analysis`` and ``marts``, sorted: base tables and
    the views over a Spark build's Parquet (``--target spark``), not views computed from them."""
    return con.execute(
        "select table_schema, table_name from information_schema.tables"
        " where table_schema in ('analysis', 'marts') and (table_type = 'BASE TABLE' or (table_schema, table_name)"
        " in (select (schema_name, view_name) from duckdb_views() where sql like '%read_parquet(%'))"
        " order by all"
    ).fetchall()


def table_columns(con: duckdb.DuckDBPyConnection, schema: str, table: str) -> list[tuple[str, str]]:
    """(name, type) of a table's columns in order."""
    return con.execute(
        "select column_name, data_type from information_schema.columns"
        " where table_schema = ? and table_name = ? order by ordinal_position",
        [schema, table],
    ).fetchall()


@dataclass(frozen=True)
class ResultTable:
    """A run-keyed result table: its name, the columns compared, which of them are floats, its run
    columns, and the condition its compared rows meet (:func:`machine_rows_left_out`)."""

    name: str
    kept: tuple[str, ...]
    floats: frozenset[str]
    run_columns: tuple[str, ...]
    rows_kept: str = "true"

    def rows(self, family: list[str], *, rounded: bool) -> tuple[str, list]:
        """SQL (and its parameters) of the kept cells of a run's rows; floats as text to :data:`DIGITS`
        significant digits when ``rounded`` (as :func:`cell_text` prints them)."""
        cells = ", ".join(
            f"format('{{:.{DIGITS}g}}', \"{c}\")" if rounded and c in self.floats else f'"{c}"' for c in self.kept
        )
        where = " or ".join(f'list_contains(?, "{c}")' for c in self.run_columns)
        schema, table = self.name.split(".", 1)
        sql = f'select {cells} from {schema}."{table}" where ({where}) and {self.rows_kept}'
        return sql, [family] * len(self.run_columns)


def run_keyed_tables(con: duckdb.DuckDBPyConnection) -> list[ResultTable]:
    """Every result table with a run column and a kept column."""
    # Every table's columns in one read of the catalog (a query per table cost more than the
    # comparison of a small run's rows on a run's page).
    columns_of: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for schema, table, name, data_type in con.execute(
        "select table_schema, table_name, column_name, data_type from information_schema.columns"
        " where table_schema in ('analysis', 'marts') order by table_schema, table_name, ordinal_position"
    ).fetchall():
        columns_of.setdefault((schema, table), []).append((name, data_type))
    found = []
    for schema, table in result_tables(con):
        columns = columns_of.get((schema, table), [])
        run_columns = tuple(c for c in RUN_COLUMNS if c in {name for name, _ in columns})
        kept = [(name, data_type) for name, data_type in columns if kept_column(name, data_type)]
        if run_columns and kept:
            floats = frozenset(name for name, data_type in kept if data_type.upper() in FLOAT_TYPES)
            rows_kept = machine_rows_left_out([name for name, _ in columns])
            found.append(ResultTable(f"{schema}.{table}", tuple(n for n, _ in kept), floats, run_columns, rows_kept))
    return found


def run_family(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The run and the evaluation runs of its series (their rows belong to the study run)."""
    children = con.execute(
        "select run_id from marts.dim_runs where parameters ->> 'series_run_id' = ?", [run_id]
    ).fetchall()
    return [run_id, *(child for (child,) in children)]


def row_counts(con: duckdb.DuckDBPyConnection, run_id: str, tables: list[ResultTable]) -> dict[str, int]:
    """``schema.table`` -> how many rows the run has there (tables without any left out)."""
    family = run_family(con, run_id)
    counts = {}
    for table in tables:
        sql, parameters = table.rows(family, rounded=False)
        (count,) = con.execute(f"select count(*) from ({sql})", parameters).fetchone()
        if count:
            counts[table.name] = count
    return counts


def _only_in_first(con, table: ResultTable, first: list[str], second: list[str], *, rounded: bool, limit=None):
    sql_a, parameters_a = table.rows(first, rounded=rounded)
    sql_b, parameters_b = table.rows(second, rounded=rounded)
    query = f"({sql_a}) except all ({sql_b})"
    if limit is None:
        return con.execute(f"select count(*) from ({query})", parameters_a + parameters_b).fetchone()[0]
    return con.execute(f"{query} limit {int(limit)}", parameters_a + parameters_b).fetchall()


def _same_rows(con, table: ResultTable, first: list[str], second: list[str]) -> bool:
    """Whether two runs' rounded rows are the same multiset, as both ``except all`` of
    :func:`_only_in_first` finding nothing says, in one grouping: no distinct row counted more
    often in one run than in the other (the usual answer, at a fraction of their cost)."""
    sql_a, parameters_a = table.rows(first, rounded=True)
    sql_b, parameters_b = table.rows(second, rounded=True)
    both = f'select *, 1 as "{_SIDE}" from ({sql_a}) union all select *, -1 from ({sql_b})'
    counts = f'select * exclude ("{_SIDE}") from ({both}) group by all having sum("{_SIDE}") <> 0'
    return con.execute(f"select count(*) from ({counts})", parameters_a + parameters_b).fetchone()[0] == 0


def counted(n: int, noun: str) -> str:
    """``n`` with thousands separators and its noun, plural unless one ("1 row", "2,000 rows")."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _sort_key(row: tuple) -> tuple:
    # coarse digits: two rows equal within the tolerance sort alike in both runs
    return tuple(f"{v:.6g}" if isinstance(v, float) else repr(v) for v in row)


def table_difference(
    con, table: ResultTable, run_a: str, run_b: str, counts: tuple[int, int], *, families: tuple | None = None
) -> str | None:
    """What differs between two runs' rows of one table (None: the same rows, floats by the rules).

    ``families``: the two runs' :func:`run_family`, when the caller has read them already.
    """
    family_a, family_b = families or (run_family(con, run_a), run_family(con, run_b))
    if _same_rows(con, table, family_a, family_b):
        return None
    rounded = [_only_in_first(con, table, x, y, rounded=True) for x, y in ((family_a, family_b), (family_b, family_a))]
    if rounded == [0, 0]:
        return None
    if 0 in counts:
        return f"{counted(max(counts), 'row')}, only in run {'A' if counts[1] == 0 else 'B'}"
    residual = [
        _only_in_first(con, table, x, y, rounded=False, limit=MOST_ROWS_READ + 1)
        for x, y in ((family_a, family_b), (family_b, family_a))
    ]
    summary = f"{counts[0]:,} vs {counted(counts[1], 'row')}"
    if max(len(rows) for rows in residual) > MOST_ROWS_READ:
        return f"{summary}; {counted(rounded[0], 'row')} of A and {rounded[1]:,} of B differ"
    rows_a, rows_b = (sorted(rows, key=_sort_key) for rows in residual)
    if len(rows_a) == len(rows_b) and all(rows_close(x, y) for x, y in zip(rows_a, rows_b)):
        return None  # floats that fell on either side of their 12th digit
    return _described(table, summary, rows_a, rows_b)


def _hashable(value):
    """A cell as a dictionary key: a list (``VARCHAR[]``) as a tuple, a struct or map as its sorted items."""
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def _described(table: ResultTable, summary: str, rows_a: list[tuple], rows_b: list[tuple]) -> str:
    """Rows of A and B that differ, matched by their cells that are not floats: what changed."""
    columns = table.kept
    numeric = [i for i, column in enumerate(columns) if column in table.floats]
    key = [i for i in range(len(columns)) if i not in numeric]
    by_key_a = {tuple(_hashable(r[i]) for i in key): r for r in rows_a}
    by_key_b = {tuple(_hashable(r[i]) for i in key): r for r in rows_b}
    matched = [k for k in by_key_a if k in by_key_b]
    bounds = [columns.index(c) for c in BOUNDS if c in columns]
    changed: set[str] = set()
    beyond = 0
    for k in matched:
        ra, rb = by_key_a[k], by_key_b[k]
        moved = [i for i in numeric if not values_close(ra[i], rb[i])]
        changed |= {columns[i] for i in moved}
        if len(bounds) == 2 and None not in (ra[bounds[0]], ra[bounds[1]]):
            low, high = ra[bounds[0]], ra[bounds[1]]
            beyond += any(
                None not in (ra[i], rb[i]) and low <= ra[i] <= high and not low <= rb[i] <= high
                for i in moved
                if i not in bounds
            )
    parts = [summary]
    only = len(rows_a) - len(matched), len(rows_b) - len(matched)
    if only != (0, 0):
        parts.append(f"{only[0]:,} only in A, {only[1]:,} only in B")
    if changed:
        parts.append("changed " + ", ".join(sorted(changed)))
    if beyond:
        parts.append(f"{counted(beyond, 'estimate')} outside run A's interval")
    return "; ".join(parts)
