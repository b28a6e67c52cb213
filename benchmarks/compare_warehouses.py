"""Are two warehouses' results the same, row for row? ``python -m benchmarks.compare_warehouses A B``.

For a refactor that must not change results: build the same studies into two homes, one with
the code before and one after, then compare. Every ``marts.*`` and ``analysis.*`` table is
hashed over its rows in sorted order, leaving out what differs between any two builds (run
ids, timestamps, paths, durations, run fingerprints, latencies, rows marked
``depends_on_machine``), floats to 12 digits and then
within 1e-9: the rules of :mod:`biaswh.analysis.common.result_rows`, which ``biaswh diff`` applies
to two runs of one warehouse. A mart or analysis table renamed in between
(:data:`biaswh.warehouse.relations.renamed_marts.RENAMED_RELATIONS`) is compared under its new name. Not a speed
measurement: not in ``make bench``. Exit code 1 when any table differs.
"""

from __future__ import annotations

import hashlib
import sys

import duckdb

from biaswh.analysis.common.result_rows import (
    TOLERANCE,
    cell_text,
    kept_column,
    machine_rows_left_out,
    result_tables,
    rows_close,
    table_columns,
)
from biaswh.warehouse.database.connection import warehouse_config
from biaswh.warehouse.relations.renamed_marts import RENAMED_RELATIONS


def _run_labels(con) -> dict[str, str]:
    """run_id -> its name and its place among the runs of that name (``demo#1``), alike in two warehouses."""
    rows = con.execute("select run_id, coalesce(name, kind) from raw.runs order by started_at, run_id").fetchall()
    seen: dict[str, int] = {}
    labels = {}
    for run_id, name in rows:
        seen[name] = seen.get(name, 0) + 1
        labels[run_id] = f"{name}#{seen[name]}"
    return labels


def _digest(rows: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(rows)).encode()).hexdigest()[:16]


def _table_rows(con, schema: str, table: str, labels: dict[str, str]) -> tuple[bool, list[tuple[str, tuple]]]:
    """(whether it has runs, [(run label or "", kept cells)]) of one table; no kept column: no rows."""
    columns = table_columns(con, schema, table)
    kept = [f'"{name}"' for name, data_type in columns if kept_column(name, data_type)]
    has_runs = "run_id" in {name for name, _ in columns}
    if not kept:
        return has_runs, []
    run = "run_id" if has_runs else "null"
    kept_rows = machine_rows_left_out([name for name, _ in columns])
    rows = con.execute(f'select {run}, {", ".join(kept)} from {schema}."{table}" where {kept_rows}').fetchall()
    return has_runs, [(labels.get(row[0], "") if has_runs else "", row[1:]) for row in rows]


def table_digests(path: str) -> dict[str, tuple[int, str, dict[str, str]]]:
    """``schema.table`` -> (rows, digest of the sorted rows' kept columns, {run label: digest of its rows}).

    Renamed marts and analysis tables under their new names; the per-run digests (tables with a
    ``run_id``) tell which runs differ.
    """
    out = {}
    with duckdb.connect(path, read_only=True, config=warehouse_config(path)) as con:
        labels = _run_labels(con)
        for schema, table in result_tables(con):
            has_runs, rows = _table_rows(con, schema, table, labels)
            if not rows and not has_runs:
                continue
            by_run: dict[str, list[str]] = {}
            for label, cells in rows:
                by_run.setdefault(label, []).append("(" + ", ".join(cell_text(v) for v in cells) + ")")
            name = RENAMED_RELATIONS.get(schema, {}).get(table, table)
            runs = {label: _digest(group) for label, group in by_run.items()} if has_runs else {}
            out[f"{schema}.{name}"] = (len(rows), _digest([r for group in by_run.values() for r in group]), runs)
    return out


def equal_within_tolerance(before: str, after: str, name: str) -> bool:
    """Whether ``schema.table`` holds the same rows in both, floats within :data:`TOLERANCE` (a
    rounded float that fell on either side of its last printed digit makes the digests differ)."""
    schema, table = name.split(".", 1)
    found = []
    for path, wanted in ((before, table), (after, table)):
        with duckdb.connect(path, read_only=True, config=warehouse_config(path)) as con:
            old = {new: old for old, new in RENAMED_RELATIONS.get(schema, {}).items()}
            names = {t for _, t in result_tables(con)}
            real = wanted if wanted in names else old.get(wanted, wanted)
            _, rows = _table_rows(con, schema, real, _run_labels(con))
            coarse = lambda row: (row[0], tuple(f"{v:.6g}" if isinstance(v, float) else repr(v) for v in row[1]))  # noqa: E731
            found.append(sorted(rows, key=coarse))
    return len(found[0]) == len(found[1]) and all(la == lb and rows_close(ra, rb) for (la, ra), (lb, rb) in zip(*found))


def main(argv: list[str]) -> int:
    """Print each differing table (with the runs whose rows differ) and a count; return 1 when any differs."""
    if len(argv) != 2:
        print("usage: python -m benchmarks.compare_warehouses BEFORE.duckdb AFTER.duckdb", file=sys.stderr)
        return 2
    before, after = table_digests(argv[0]), table_digests(argv[1])
    names = sorted(set(before) | set(after))
    differ = [n for n in names if before.get(n, (None,) * 2)[:2] != after.get(n, (None,) * 2)[:2]]
    close = [n for n in differ if n in before and n in after and equal_within_tolerance(argv[0], argv[1], n)]
    differ = [n for n in differ if n not in close]
    for name in differ:
        if name not in before or name not in after:
            print(f"DIFF {name}: only in {'the second' if name not in before else 'the first'} warehouse")
            continue
        (rows_a, _, runs_a), (rows_b, _, runs_b) = before[name], after[name]
        runs = sorted(label for label in set(runs_a) | set(runs_b) if runs_a.get(label) != runs_b.get(label))
        print(f"DIFF {name}: {rows_a:,} vs {rows_b:,} rows" + (f"; runs: {', '.join(runs)}" if runs else ""))
    same = [name for name in before if name not in differ]
    print(
        f"{len(same)} tables identical ({sum(before[n][0] for n in same):,} rows; {len(close)} of them with"
        f" floats equal within {TOLERANCE:g}), {len(differ)} differ"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
