"""``biaswh where``: where each relation of the warehouse lives (DuckDB's file, or the Parquet a view reads).

After a study built on Spark (``--target spark``), the tables Spark built stay in Spark's
Parquet and DuckDB holds views over them (:mod:`biaswh.warehouse.spark.marts`); this lists every
relation with its home (:func:`biaswh.warehouse.database.parquet_views.relation_homes`).
"""

from __future__ import annotations

from biaswh.cli_help import HOME
from biaswh.command_registry import register_command


def _arguments(where) -> None:
    where.add_argument("--schema", help="only this schema (raw, staging, intermediate, marts, analysis, main)")


def where_lines(schema: str | None = None) -> list[str]:
    """The lines ``biaswh where`` prints: ``schema.relation  kind  home``, aligned, and a count."""
    from biaswh.warehouse.database.parquet_views import relation_homes
    from biaswh.warehouse.database.sandbox import open_sandbox

    with open_sandbox() as con:
        homes = [row for row in relation_homes(con) if schema is None or row[0] == schema]
    names = [f"{relation_schema}.{name}" for relation_schema, name, _, _ in homes]
    width = max((len(name) for name in names), default=0)
    lines = [f"{name:<{width}}  {kind:<5}  {home}" for name, (_, _, kind, home) in zip(names, homes)]
    in_parquet = sum(1 for *_, home in homes if home.startswith("/") or "://" in home)
    return [*lines, f"{len(homes)} relations, {in_parquet} read in place from Parquet"]


@register_command(
    "where",
    summary="where each relation lives: in the DuckDB file, or the Parquet a view reads (a Spark build's tables)",
    arguments=_arguments,
    order=135,
    explained={
        "where": (
            "List every relation of the warehouse with its kind and home: 'duckdb' (rows in the warehouse"
            " file), 'duckdb view', or the Parquet folder a view reads in place (the tables a --target spark"
            " build wrote stay in Spark's Parquet). Parquet inside the warehouse folder moves with it:"
            " a moved or copied folder reads its own (views name it ~/..., read with DuckDB's home_directory"
            " set to the folder; a plain duckdb user runs: set home_directory = '<the folder>').",
            "biaswh where --schema marts",
            f"Reads {HOME}; changes nothing.",
        )
    },
)
def where(args) -> None:
    """``biaswh where``: print :func:`where_lines`."""
    print("\n".join(where_lines(args.schema)))
