"""Reading a study page's HTML against the demo site's warehouse, for the pages' fast guard tests.

A page is rendered in the test process (so a mutant of it is what renders) on the demo site's
warehouse opened read-only, or on an in-memory copy of it that a test may change (a verdict policy
planted, a table dropped). What a page should show is read from the warehouse with the test's own SQL.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from biaswh.dashboards.common.downloads import CapturedTable, capturing_tables

SHARED_TABLES = ("runs", "run_sources", "dim_runs", "dim_source_versions", "audit_comparisons")


def site_warehouse(demo_site: Path) -> duckdb.DuckDBPyConnection:
    """The demo site's warehouse, read-only."""
    return duckdb.connect(str(demo_site.parent / "warehouse.duckdb"), read_only=True)


@pytest.fixture(scope="module", name="warehouse")
def read_only_site(demo_site):
    """``warehouse``: the demo site's warehouse, read-only, for one test module (a page's test module
    imports this fixture)."""
    con = site_warehouse(demo_site)
    yield con
    con.close()


def writable_copy(demo_site: Path, family: str) -> duckdb.DuckDBPyConnection:
    """An in-memory warehouse holding a copy (as a table) of every table and view of the raw, marts and
    analysis schemas whose name holds ``family``, and of the run and source tables every page reads."""
    con = duckdb.connect()
    con.execute(f"attach '{demo_site.parent / 'warehouse.duckdb'}' as warehouse (read_only)")
    relations = con.execute(
        "select schema_name, table_name from duckdb_tables() where database_name = 'warehouse'"
        " union all select schema_name, view_name from duckdb_views()"
        " where database_name = 'warehouse' and not internal"
    ).fetchall()
    for schema, name in relations:
        if schema in ("raw", "marts", "analysis") and (family in name or name in SHARED_TABLES):
            con.execute(f"create schema if not exists memory.{schema}")
            con.execute(f'create table memory.{schema}."{name}" as select * from warehouse.{schema}."{name}"')
    con.execute("detach warehouse")
    return con


def rendered(render, *args) -> tuple[str, list[CapturedTable]]:
    """A page's HTML and the tables it drew (headers, display text and stored values), in page order."""
    with capturing_tables() as tables:
        html = render(*args)
    return html, tables


def run_of(con: duckdb.DuckDBPyConnection, study: str) -> str:
    """The latest succeeded run of ``study`` (the run its page shows by default)."""
    return con.execute(
        "select run_id from raw.runs where name = ? and status = 'succeeded' order by started_at desc limit 1",
        [study],
    ).fetchone()[0]


def between(html: str, start: str, end: str) -> str:
    """The text after the first ``start`` up to the next ``end``."""
    return html.split(start, 1)[1].split(end, 1)[0]


def plain(html: str) -> str:
    """HTML as the reader reads it: tags dropped, whitespace collapsed (entities kept)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()
