"""Are two warehouses' results the same, row for row? ``python -m benchmarks.compare_warehouses A B``.

For a refactor that must not change results: build the same studies into two homes, one with
the code before and one after, then compare. Every ``marts.*`` and ``analysis.*`` table is
hashed over its rows in sorted order, leaving out what differs between any two builds (run
ids, timestamps, paths, durations, run fingerprints). A mart renamed in between
(:data:`warehouse.renamed_marts.RENAMED_MARTS`) is compared under its new name. Not a speed
measurement: not in ``make bench``. Exit code 1 when any table differs.
"""

from __future__ import annotations

import hashlib
import sys

import duckdb

from warehouse.renamed_marts import RENAMED_MARTS

_VOLATILE = {"run", "runs", "inputs", "parameters", "sources", "source_files", "fingerprint"}
_VOLATILE |= {"duration_seconds", "elapsed_seconds"}


def _kept(column: str, data_type: str) -> bool:
    volatile = "run_id" in column or column.endswith("_at") or "path" in column or column in _VOLATILE
    return not (volatile or "TIMESTAMP" in data_type.upper())


def table_digests(path: str) -> dict[str, tuple[int, str]]:
    """``schema.table`` -> (rows, sha256 prefix of the sorted rows' kept columns), new mart names."""
    out = {}
    with duckdb.connect(path, read_only=True) as con:
        tables = con.execute(
            "select table_schema, table_name from information_schema.tables"
            " where table_schema in ('analysis', 'marts') and table_type = 'BASE TABLE' order by all"
        ).fetchall()
        for schema, table in tables:
            columns = con.execute(
                "select column_name, data_type from information_schema.columns"
                " where table_schema = ? and table_name = ? order by ordinal_position",
                [schema, table],
            ).fetchall()
            kept = [f'"{name}"' for name, data_type in columns if _kept(name, data_type)]
            if not kept:
                continue
            rows = sorted(repr(r) for r in con.execute(f'select {", ".join(kept)} from {schema}."{table}"').fetchall())
            name = RENAMED_MARTS.get(table, table) if schema == "marts" else table
            out[f"{schema}.{name}"] = (len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16])
    return out


def main(argv: list[str]) -> int:
    """Print each differing table and a count; return 1 when any differs."""
    if len(argv) != 2:
        print("usage: python -m benchmarks.compare_warehouses BEFORE.duckdb AFTER.duckdb", file=sys.stderr)
        return 2
    before, after = table_digests(argv[0]), table_digests(argv[1])
    differ = [name for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)]
    for name in differ:
        print(f"DIFF {name}: {before.get(name)} vs {after.get(name)}")
    same = [name for name in before if name not in differ]
    print(f"{len(same)} tables identical ({sum(before[n][0] for n in same):,} rows), {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
