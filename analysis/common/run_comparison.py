"""Did two runs give the same results? Checked on the stored rows, never assumed from their inputs.

One set of rules serves ``biaswh diff RUN_A RUN_B``, the study pages' "identical to run X"
sentence and ``benchmarks/compare_warehouses.py`` (two warehouses, table by table):

- every base table of ``marts`` and ``analysis`` takes part; a run's rows are those whose
  ``run_id`` (or ``series_run_id``, an evaluation series) is the run or one of its evaluation runs;
- what differs between any two runs of one config is left out: run ids, timestamps, paths,
  durations, run fingerprints, measured latencies (:func:`kept_column`);
- floats are equal to :data:`DIGITS` significant digits, or else within :data:`TOLERANCE`
  (DuckDB sums in parallel, so a mean's last bits follow the order its threads finished in).

An ANN index (``[retrieval.ann]``) is trained unseeded: it is built once per warehouse and
reused, so two runs in one warehouse agree, but runs in two fresh warehouses differ in its rows.
"""

from __future__ import annotations

import json
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


def kept_column(column: str, data_type: str) -> bool:
    """Whether a column takes part: not a run id, time, path, or a measured latency (wall clock)."""
    volatile = "run_id" in column or column.endswith("_at") or "path" in column or column in _VOLATILE
    return not (volatile or "latency" in column or "TIMESTAMP" in data_type.upper())


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
    """(schema, table) of every base table in ``analysis`` and ``marts``, sorted."""
    return con.execute(
        "select table_schema, table_name from information_schema.tables"
        " where table_schema in ('analysis', 'marts') and table_type = 'BASE TABLE' order by all"
    ).fetchall()


def table_columns(con: duckdb.DuckDBPyConnection, schema: str, table: str) -> list[tuple[str, str]]:
    """(name, type) of a table's columns in order."""
    return con.execute(
        "select column_name, data_type from information_schema.columns"
        " where table_schema = ? and table_name = ? order by ordinal_position",
        [schema, table],
    ).fetchall()


def _sort_key(row: tuple) -> tuple:
    # coarse digits: two rows equal within the tolerance sort alike in both runs
    return tuple(f"{v:.6g}" if isinstance(v, float) else repr(v) for v in row)


@dataclass(frozen=True)
class RunRows:
    """One run's kept rows of one table, sorted, with the kept columns' names."""

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]


def _family(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The run and the evaluation runs of its series (their rows belong to the study run)."""
    children = con.execute(
        "select run_id from marts.dim_runs where parameters ->> 'series_run_id' = ?", [run_id]
    ).fetchall()
    return [run_id, *(child for (child,) in children)]


def run_rows(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, RunRows]:
    """``schema.table`` -> the run's kept rows, for every run-keyed table holding any."""
    family = _family(con, run_id)
    found = {}
    for schema, table in result_tables(con):
        columns = table_columns(con, schema, table)
        names = {name for name, _ in columns}
        keys = [c for c in RUN_COLUMNS if c in names]
        kept = [name for name, data_type in columns if kept_column(name, data_type)]
        if not keys or not kept:
            continue
        where = " or ".join(f'list_contains(?, "{key}")' for key in keys)
        selected = ", ".join(f'"{name}"' for name in kept)
        rows = con.execute(f'select {selected} from {schema}."{table}" where {where}', [family] * len(keys)).fetchall()
        if rows:
            found[f"{schema}.{table}"] = RunRows(tuple(kept), tuple(sorted(rows, key=_sort_key)))
    return found


@dataclass(frozen=True)
class Difference:
    """One group of differences between two runs: ``group`` (config, inputs, code, a table) and what."""

    group: str
    detail: str

    def line(self) -> str:
        return f"{self.group}: {self.detail}"


def _flat(value, prefix: str = "") -> dict[str, str]:
    """A nested parameter dict as dotted keys -> JSON text."""
    if isinstance(value, dict) and value:
        out = {}
        for key, inner in value.items():
            out.update(_flat(inner, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: json.dumps(value, sort_keys=True)}


def _run_record(con, run_id: str) -> dict | None:
    cursor = con.execute("select * from marts.dim_runs where run_id = ?", [run_id])
    row = cursor.fetchone()
    return None if row is None else dict(zip([d[0] for d in cursor.description], row))


def _json(text) -> dict:
    try:
        found = json.loads(text or "{}")
    except (TypeError, ValueError):
        return {"(text)": text}
    return found if isinstance(found, dict) else {"(value)": found}


def _changed_keys(a: dict, b: dict) -> list[str]:
    flat_a, flat_b = _flat(a), _flat(b)
    return sorted(key for key in set(flat_a) | set(flat_b) if flat_a.get(key) != flat_b.get(key))


def _inputs(con, run: dict) -> set[tuple]:
    """(dataset, name, version, sha256) of each input a run read (sha256 from marts.dim_source_versions)."""
    pinned = {(i["dataset"], i["name"], i["version"]) for i in run.get("inputs") or []}
    (versions,) = con.execute(
        "select count(*) from information_schema.tables"
        " where table_schema = 'marts' and table_name = 'dim_source_versions'"
    ).fetchone()
    if not versions or not pinned:
        return {(*p, None) for p in pinned}
    rows = con.execute(
        "select dataset, source_name, source_version, source_sha256 from marts.dim_source_versions"
    ).fetchall()
    sha = {(d, n, v): s for d, n, v, s in rows}
    return {(*p, sha.get(p)) for p in pinned}


def _shown(inputs: set[tuple]) -> str:
    """Inputs as "dataset name vVERSION sha256 PREFIX", sorted."""
    found = sorted(inputs, key=str)
    return ", ".join(f"{d} {n} v{v}" + (f" sha256 {s[:12]}" if s else "") for d, n, v, s in found) or "none"


def _table_difference(name: str, a: RunRows | None, b: RunRows | None) -> Difference | None:
    if a is None or b is None:
        held = a or b
        return Difference(name, f"rows only in run {'A' if b is None else 'B'} ({len(held.rows):,})")
    if a.columns != b.columns:
        return Difference(name, "the table's columns changed between the runs")
    if len(a.rows) == len(b.rows) and all(rows_close(x, y) for x, y in zip(a.rows, b.rows)):
        return None
    numeric = [i for i, column in enumerate(a.columns) if any(isinstance(r[i], float) for r in a.rows + b.rows)]
    key = [i for i in range(len(a.columns)) if i not in numeric]
    by_key_a = {tuple(r[i] for i in key): r for r in a.rows}
    by_key_b = {tuple(r[i] for i in key): r for r in b.rows}
    matched = [k for k in by_key_a if k in by_key_b]
    changed_columns: set[str] = set()
    beyond = 0
    bounds = [a.columns.index(c) for c in BOUNDS if c in a.columns]
    for k in matched:
        ra, rb = by_key_a[k], by_key_b[k]
        moved = [i for i in numeric if not values_close(ra[i], rb[i])]
        changed_columns |= {a.columns[i] for i in moved}
        if len(bounds) == 2 and None not in (ra[bounds[0]], ra[bounds[1]]):
            low, high = ra[bounds[0]], ra[bounds[1]]
            beyond += any(
                rb[i] is not None and ra[i] is not None and low <= ra[i] <= high and not low <= rb[i] <= high
                for i in moved
                if i not in bounds
            )
    only = len(by_key_a) - len(matched), len(by_key_b) - len(matched)
    parts = [f"{len(a.rows):,} vs {len(b.rows):,} rows"]
    if only != (0, 0):
        parts.append(f"{only[0]:,} only in A, {only[1]:,} only in B")
    if changed_columns:
        parts.append("changed " + ", ".join(sorted(changed_columns)))
    if beyond:
        parts.append(f"{beyond:,} outside run A's interval")
    return Difference(name, "; ".join(parts))


def compare_runs(
    con: duckdb.DuckDBPyConnection, run_a: str, run_b: str, *, rows: tuple[dict, dict] | None = None
) -> list[Difference]:
    """What differs between two runs, one :class:`Difference` per group ([] when identical).

    Groups, in order: ``study`` (name), ``config`` (the stored parameters that differ, dotted keys),
    ``inputs`` (dataset, name, version, sha256), ``code`` (code version, package versions), then
    each run-keyed table whose rows differ. ``rows``: the two runs' :func:`run_rows`, when read
    already. Raises ``KeyError`` naming a run not in ``marts.dim_runs``.
    """
    runs = {}
    for run_id in (run_a, run_b):
        record = _run_record(con, run_id)
        if record is None:
            raise KeyError(run_id)
        runs[run_id] = record
    a, b = runs[run_a], runs[run_b]
    found = []
    if a["run_name"] != b["run_name"]:
        found.append(Difference("study", f"{a['run_name']} vs {b['run_name']}"))
    changed = _changed_keys(_json(a["parameters"]), _json(b["parameters"]))
    changed += [f"run_parameters.{k}" for k in _changed_keys(_json(a["run_parameters"]), _json(b["run_parameters"]))]
    if changed:
        found.append(Difference("config", ", ".join(sorted(set(changed)))))
    inputs_a, inputs_b = _inputs(con, a), _inputs(con, b)
    if inputs_a != inputs_b:
        only_a, only_b = _shown(inputs_a - inputs_b), _shown(inputs_b - inputs_a)
        found.append(Difference("inputs", f"A read {only_a}; B read {only_b}"))
    code = []
    if a["code_version"] != b["code_version"]:
        code.append(f"code version {str(a['code_version'])[:12]} vs {str(b['code_version'])[:12]}")
    packages_a, packages_b = _json(a["package_versions"]), _json(b["package_versions"])
    code += [f"{p} {packages_a.get(p)} vs {packages_b.get(p)}" for p in _changed_keys(packages_a, packages_b)]
    if code:
        found.append(Difference("code", ", ".join(code)))
    rows_a, rows_b = rows or (run_rows(con, run_a), run_rows(con, run_b))
    for name in sorted(set(rows_a) | set(rows_b)):
        difference = _table_difference(name, rows_a.get(name), rows_b.get(name))
        if difference is not None:
            found.append(difference)
    return found


def results_identical(differences: list[Difference]) -> bool:
    """Whether none of the differences is in a result table (only config, inputs or code differ)."""
    return not any("." in d.group for d in differences)
