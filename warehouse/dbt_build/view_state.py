"""Keep a view a study build would only recreate as it is: state-aware builds for views.

A study's build selects its family's models, and most of them are views (staging,
intermediate, some marts). Recreating a view whose definition did not change costs dbt's
per-node work (compile, macros, events: 0.1-0.6 s a view) and changes nothing: a view holds
no rows, and DuckDB binds it when it is read. So a study build leaves out a view when

- this warehouse last built it from the same dbt project files, target and options
  (:func:`view_fingerprint`), recorded in ``raw.dbt_view_state`` after a successful build, and
- DuckDB still holds it with the very definition and comment recorded then (so a plain
  ``dbt build`` from an edited project, or a dropped view, makes it rebuilt).

Its data tests still run (they read the view, over the tables this build wrote): the build
names its nodes explicitly (``--indirect-selection empty``), from the node list dbt's own
selector gives for the study's selection (``dbt ls``; the listing depends on the project only,
so it is kept beside the machine's parse state, ``~/.cache/biaswh/dbt/selections/``).
Incremental and table models always build.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Sequence

import duckdb
import pyarrow as pa

from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.database.raw_schema import raw_schema_ddl
from biaswh.warehouse.database.transactions import registered
from biaswh.warehouse.dbt_build import build_process
from biaswh.warehouse.dbt_build.build_state import project_digest
from biaswh.warehouse.dbt_build.invoke import invoke_dbt
from biaswh.warehouse.dbt_build.parse_cache import dbt_versions, parse_cache_dir
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR

# Characters a dbt node selector reads as a pattern or a path: a node named with one of these
# cannot be selected by its bare name, and such a build keeps nothing.
_PATTERN_CHARACTERS = set("*?[]./:+@,")
# What `dbt build` runs of a selection (sources, exposures and the like are only read;
# unit tests are left out of study builds).
_BUILT_TYPES = ("model", "seed", "snapshot", "test")
# Part of a kept listing's name: a listing written by code that listed otherwise is not read.
_LISTING_VERSION = "2"


@dataclass(frozen=True)
class SelectedNode:
    """A node (model, seed, snapshot or data test) a selection resolves to."""

    unique_id: str
    name: str
    resource_type: str
    materialized: str | None
    schema: str | None
    alias: str | None

    @property
    def is_view(self) -> bool:
        return self.resource_type == "model" and self.materialized == "view"


def view_fingerprint(args: Sequence[str]) -> str:
    """What a view's definition depends on: the dbt project's files, the raw schema the staging
    views read, and the build's options (``--target``, ``--vars``)."""
    digest = hashlib.sha256(project_digest().encode())
    digest.update(raw_schema_ddl().encode())
    digest.update("\0".join(args).encode())
    return digest.hexdigest()


def selection_nodes(selection_args: Sequence[str]) -> list[SelectedNode]:
    """The nodes dbt builds for ``selection_args`` (``--select ...`` and the
    indirect-selection options), from dbt's own selector; kept per project state. Empty when
    dbt cannot list them (the build that follows then builds everything and says why)."""
    profile = (DBT_PROJECT_DIR / "profiles.yml").read_text(encoding="utf-8")
    listed = "\0".join([_LISTING_VERSION, project_digest(), profile, *dbt_versions(), *selection_args])
    cache = parse_cache_dir() / "selections" / f"{hashlib.sha256(listed.encode()).hexdigest()[:32]}.json"
    try:
        rows = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        rows = _listed(selection_args)
        if rows is None:
            return []
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomically(cache, json.dumps(rows))
    return [SelectedNode(**row) for row in rows]


def _listed(selection_args: Sequence[str]) -> list[dict] | None:
    """``dbt ls`` of ``selection_args``: the nodes a build runs (models, seeds, snapshots, data
    tests), as :class:`SelectedNode` fields."""
    keys = "unique_id name resource_type schema alias config"
    args = [*selection_args, "--output", "json", "--output-keys", keys]
    listed = build_process.listing(args)  # a study run's dbt process answers, else this one
    if listed is None:
        outcome = invoke_dbt(["ls", *args])
        listed = outcome.success, outcome.result
    if not listed[0]:
        return None
    rows = [json.loads(line) for line in listed[1]]
    fields = ("unique_id", "name", "resource_type", "schema", "alias")
    return [
        {**{f: row.get(f) for f in fields}, "materialized": (row.get("config") or {}).get("materialized")}
        for row in rows
        if row.get("resource_type") in _BUILT_TYPES
    ]


def _definitions(con: duckdb.DuckDBPyConnection, views: Sequence[SelectedNode]) -> dict[str, str]:
    """sha256 of each view's definition and comment as DuckDB holds them, by unique id (absent: no such view)."""
    if not views:
        return {}
    found = con.execute(
        "select schema_name, view_name, sql, coalesce(comment, '') from duckdb_views()"
        " where database_name = current_database() and not internal"
    ).fetchall()
    held = {
        (schema, name): hashlib.sha256(f"{sql}\0{comment}".encode()).hexdigest() for schema, name, sql, comment in found
    }
    return {v.unique_id: held[(v.schema, v.alias)] for v in views if (v.schema, v.alias) in held}


def unchanged_views(
    con: duckdb.DuckDBPyConnection, nodes: Sequence[SelectedNode], fingerprint: str
) -> list[SelectedNode]:
    """The views of ``nodes`` this warehouse built from ``fingerprint`` and still holds as built."""
    views = [node for node in nodes if node.is_view]
    if not views or any(_PATTERN_CHARACTERS & set(node.name) for node in nodes):
        return []
    recorded = dict(
        con.execute(
            "select unique_id, definition_sha256 from raw.dbt_view_state where fingerprint = ?", [fingerprint]
        ).fetchall()
    )
    held = _definitions(con, views)
    return [v for v in views if v.unique_id in recorded and held.get(v.unique_id) == recorded[v.unique_id]]


def record_views(con: duckdb.DuckDBPyConnection, nodes: Sequence[SelectedNode], fingerprint: str) -> None:
    """Record the views of ``nodes`` as built from ``fingerprint`` (after a successful build)."""
    held = _definitions(con, [node for node in nodes if node.is_view])
    if not held:
        return
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    rows = pa.table(
        {
            "unique_id": pa.array(list(held), pa.string()),
            "fingerprint": pa.array([fingerprint] * len(held), pa.string()),
            "definition_sha256": pa.array(list(held.values()), pa.string()),
            "built_at": pa.array([now] * len(held), pa.timestamp("us")),
        }
    )
    # One statement for all rows: executemany ran (and committed) one per row, 55-95 ms of CPU
    # and 100-215 ms of a study run's results build for 22 views, against 7 ms.
    with registered(con, "built_view_state", rows):
        con.execute(
            "insert or replace into raw.dbt_view_state"
            " select unique_id, fingerprint, definition_sha256, built_at from built_view_state"
        )
