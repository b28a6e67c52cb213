"""Source versions: identical re-ingests are no-ops, changed files become new versions.

An ingest is identified by the source's sha256 together with its load parameters
(a different clean-up of the same file is a different version). Staging models read
only the latest version of each (dataset, source name).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import duckdb

from warehouse.runs import Run, start_run
from warehouse.transactions import transaction


@dataclass(frozen=True)
class IngestResult:
    """What an ingest did: ``status`` is ``loaded`` or ``unchanged``."""

    dataset: str
    source_name: str
    status: str
    version: int
    rows: int
    run_id: str
    message: str


def _latest(con, dataset: str, source_name: str):
    return con.execute(
        "select v.version, v.source_sha256, v.run_id, v.n_rows, r.parameters"
        " from raw.source_versions v join raw.runs r using (run_id)"
        " where v.dataset = ? and v.source_name = ? order by v.version desc limit 1",
        [dataset, source_name],
    ).fetchone()


# Where a file lies is recorded with the run, never compared: the same content loaded from a
# moved warehouse, another clone or another user's folder is the same version. What each of
# these files holds is in the identity otherwise (its sha256, or the rows it produced).
LOCATION_KEYS = frozenset({"source_path", "features_path", "trials_file", "simulation_spec", "prompt_styles_path"})


def _without_locations(value):
    """``value`` with every :data:`LOCATION_KEYS` entry left out, at any depth."""
    if isinstance(value, dict):
        return {k: _without_locations(v) for k, v in value.items() if k not in LOCATION_KEYS}
    return value


def _with_identity(parameters: dict, dataset: str, source_name: str, source_path) -> dict:
    return {**parameters, "dataset": dataset, "source_name": source_name, "source_path": str(source_path)}


def unchanged_result(
    con: duckdb.DuckDBPyConnection,
    *,
    dataset: str,
    source_name: str,
    source_path: str | Path,
    source_sha256: str,
    parameters: dict,
) -> IngestResult | None:
    """The no-op result when this exact source (sha256 and load options) is already the latest version.

    Ingest modules call it before parsing a large file, so a re-run costs one hash.
    """
    latest = _latest(con, dataset, source_name)
    if latest is None:
        return None
    version, sha, run_id, n_rows, latest_parameters = latest
    wanted = _without_locations(_with_identity(parameters, dataset, source_name, source_path))
    stored = _without_locations(json.loads(latest_parameters))
    if sha != source_sha256 or stored != wanted:
        return None
    return IngestResult(
        dataset,
        source_name,
        "unchanged",
        version,
        n_rows,
        run_id,
        f"{dataset} '{source_name}' is unchanged (identical to version {version}, run {run_id}); nothing written",
    )


def ingest_version(
    con: duckdb.DuckDBPyConnection,
    *,
    dataset: str,
    source_name: str,
    source_path: str | Path,
    source_sha256: str,
    parameters: dict,
    write_rows: Callable[[Run, int], int],
) -> IngestResult:
    """Write one new version in a single transaction, or do nothing if it is already loaded.

    ``write_rows(run, version)`` inserts the raw rows and returns how many it wrote.
    Any exception rolls back everything, the run row included.
    """
    unchanged = unchanged_result(
        con,
        dataset=dataset,
        source_name=source_name,
        source_path=source_path,
        source_sha256=source_sha256,
        parameters=parameters,
    )
    if unchanged is not None:
        return unchanged
    parameters = _with_identity(parameters, dataset, source_name, source_path)
    latest = _latest(con, dataset, source_name)
    version = 1 if latest is None else latest[0] + 1
    with transaction(con):
        run = start_run(con, kind=f"ingest_{dataset}", name=source_name, parameters=parameters)
        run.add_source(source_path, source_sha256)
        rows = write_rows(run, version)
        con.execute(
            "insert into raw.source_versions values (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                dataset,
                source_name,
                version,
                source_sha256,
                str(source_path),
                run.run_id,
                rows,
                datetime.now(timezone.utc).replace(tzinfo=None),
            ],
        )
        run.row_counts[dataset] = rows
        run.finish()
    return IngestResult(
        dataset,
        source_name,
        "loaded",
        version,
        rows,
        run.run_id,
        f"loaded {rows:,} rows into {dataset} '{source_name}' version {version} (run {run.run_id})",
    )
