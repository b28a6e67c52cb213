"""Skip a dbt build whose inputs did not change since its last success.

A build's inputs are the dbt project's files and the versions of every ingested source
(``raw.source_versions``); run-keyed models are incremental, so a build that only adds a
new run is never skipped by this (it is the results build, which always runs).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

import duckdb

from biaswh.warehouse.dbt_build.project_dir import PLUGIN_DBT_FOLDERS
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR
from biaswh.warehouse.settings.plugin_roots import plugin_folders

_PROJECT_FOLDERS = ("models", "macros", "seeds", "tests")


def project_digest() -> str:
    """sha256 over the dbt project's source files (names and contents), the plugin folders' models
    and macros included."""
    digest = hashlib.sha256()
    files = [(DBT_PROJECT_DIR, DBT_PROJECT_DIR / "dbt_project.yml")]
    for folder in _PROJECT_FOLDERS:
        files += [(DBT_PROJECT_DIR, p) for p in sorted((DBT_PROJECT_DIR / folder).rglob("*")) if p.is_file()]
    for plugin in plugin_folders():
        for kind in PLUGIN_DBT_FOLDERS.values():
            files += [(plugin, p) for p in sorted((plugin / "dbt_project" / kind).rglob("*")) if p.is_file()]
    for root, path in files:
        name = str(path.relative_to(root)) if root == DBT_PROJECT_DIR else str(path)
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_fingerprint(con: duckdb.DuckDBPyConnection, selection: str) -> str:
    """The fingerprint of a build of ``selection`` against this warehouse's sources now."""
    versions = con.execute(
        "select dataset, source_name, version, source_sha256 from raw.source_versions order by all"
    ).fetchall()
    digest = hashlib.sha256(selection.encode() + b"\0" + project_digest().encode())
    for row in versions:
        digest.update(repr(row).encode())
    return digest.hexdigest()


def is_up_to_date(con: duckdb.DuckDBPyConnection, selection: str) -> bool:
    """True when ``selection`` was built and neither the dbt project nor any ingested source version changed since."""
    row = con.execute("select fingerprint from raw.dbt_build_state where selection = ?", [selection]).fetchone()
    return row is not None and row[0] == build_fingerprint(con, selection)


def mark_built(con: duckdb.DuckDBPyConnection, selection: str) -> None:
    """Record that ``selection`` was built from the current dbt project and source versions."""
    con.execute(
        "insert or replace into raw.dbt_build_state values (?, ?, ?)",
        [selection, build_fingerprint(con, selection), datetime.now(timezone.utc).replace(tzinfo=None)],
    )
