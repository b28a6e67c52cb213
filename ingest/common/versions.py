"""Source versions: identical re-ingests are no-ops, changed files become new versions.

An ingest is identified by the source's sha256 together with its load parameters
(a different clean-up of the same file is a different version). Staging models read
only the latest version of each (dataset, source name).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import duckdb
import pyarrow as pa

from biaswh.warehouse.database.transactions import registered, transaction
from biaswh.warehouse.runs.registry import Run, start_run


@dataclass(frozen=True)
class SourceFile:
    """One source to ingest as a version of (``dataset``, ``name``).

    Attributes
    ----------
    dataset : the kind of source, e.g. ``squad`` or ``qrels`` (``raw.source_versions.dataset``).
    name : the source's name within the dataset, e.g. a split or a set name.
    path : where the file lies (recorded, never compared).
    sha256 : the file's sha256 (or its content's, for a source that is not one file).
    parameters : the load options; with the sha256 they make the version's identity.
    """

    dataset: str
    name: str
    path: str | Path
    sha256: str
    parameters: dict = field(default_factory=dict)


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


def latest_version(con: duckdb.DuckDBPyConnection, dataset: str, source_name: str) -> int | None:
    """The newest loaded version of source ``source_name`` of ``dataset``; None when never ingested.

    The one statement of the rule in Python (dbt's is the ``latest_versions`` macro): the latest
    version is the highest ``raw.source_versions.version`` of a (dataset, source name).
    """
    return con.execute(
        "select max(version) from raw.source_versions where dataset = ? and source_name = ?", [dataset, source_name]
    ).fetchone()[0]


def _latest(con, dataset: str, source_name: str):
    version = latest_version(con, dataset, source_name)
    if version is None:
        return None
    return con.execute(
        "select v.version, v.source_sha256, v.run_id, v.n_rows, r.parameters"
        " from raw.source_versions v join raw.runs r using (run_id)"
        " where v.dataset = ? and v.source_name = ? and v.version = ?",
        [dataset, source_name, version],
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


def _with_identity(parameters: dict, source: SourceFile) -> dict:
    return {**parameters, "dataset": source.dataset, "source_name": source.name, "source_path": str(source.path)}


def unchanged_result(con: duckdb.DuckDBPyConnection, source: SourceFile) -> IngestResult | None:
    """The no-op result when this exact source (sha256 and load options) is already the latest version.

    Ingest modules call it before parsing a large file, so a re-run costs one hash.
    """
    latest = _latest(con, source.dataset, source.name)
    if latest is None:
        return None
    version, sha, run_id, n_rows, latest_parameters = latest
    wanted = _without_locations(_with_identity(source.parameters, source))
    stored = _without_locations(json.loads(latest_parameters))
    if sha != source.sha256 or stored != wanted:
        return None
    return IngestResult(
        source.dataset,
        source.name,
        "unchanged",
        version,
        n_rows,
        run_id,
        f"{source.dataset} '{source.name}' is unchanged (identical to version {version}, run {run_id});"
        " nothing written",
    )


def ingest_version(
    con: duckdb.DuckDBPyConnection, source: SourceFile, *, write_rows: Callable[[Run, int], int]
) -> IngestResult:
    """Write one new version of ``source`` in a single transaction, or do nothing if it is already loaded.

    ``write_rows(run, version)`` inserts the raw rows and returns how many it wrote.
    Any exception rolls back everything, the run row included.
    """
    unchanged = unchanged_result(con, source)
    if unchanged is not None:
        return unchanged
    parameters = _with_identity(source.parameters, source)
    latest = _latest(con, source.dataset, source.name)
    version = 1 if latest is None else latest[0] + 1
    with transaction(con):
        run = start_run(con, kind=f"ingest_{source.dataset}", name=source.name, parameters=parameters)
        run.add_source(source.path, source.sha256)
        rows = write_rows(run, version)
        con.execute(
            "insert into raw.source_versions values (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                source.dataset,
                source.name,
                version,
                source.sha256,
                str(source.path),
                run.run_id,
                rows,
                datetime.now(timezone.utc).replace(tzinfo=None),
            ],
        )
        run.row_counts[source.dataset] = rows
        run.finish()
    return IngestResult(
        source.dataset,
        source.name,
        "loaded",
        version,
        rows,
        run.run_id,
        f"loaded {rows:,} rows into {source.dataset} '{source.name}' version {version} (run {run.run_id})",
    )


# Every versioned raw table opens with these columns: the run that loaded a row, the sha256 of
# its source file and the version it belongs to.
PROVENANCE_COLUMNS = ("run_id", "source_sha256", "source_version")


def insert_version_rows(
    con: duckdb.DuckDBPyConnection,
    raw_table: str,
    rows: pa.Table,
    *,
    run: Run,
    source_sha256: str,
    version: int,
    constants: dict[str, object],
) -> int:
    """Insert ``rows`` into ``raw.<raw_table>``, each with its provenance and ``constants``; the count.

    Columns are matched by name: ``rows``' columns, the provenance columns and the keys of
    ``constants`` (e.g. the set name every row carries) must name every column of the raw table
    exactly once, so a column left out is an error here rather than a silent null.
    """
    written = [*PROVENANCE_COLUMNS, *constants, *rows.column_names]
    declared = [
        r[0]
        for r in con.execute(
            "select column_name from information_schema.columns where table_schema = 'raw' and table_name = ?",
            [raw_table],
        ).fetchall()
    ]
    if sorted(written) != sorted(declared):
        raise ValueError(f"raw.{raw_table} has columns {sorted(declared)}, the rows to insert {sorted(written)}")
    values = ", ".join(f"? as {name}" for name in [*PROVENANCE_COLUMNS, *constants])
    with registered(con, "incoming_version_rows", rows):
        con.execute(
            f"insert into raw.{raw_table} by name select {values}, * from incoming_version_rows",
            [run.run_id, source_sha256, version, *constants.values()],
        )
    return rows.num_rows


@dataclass(frozen=True)
class CompanionFile:
    """A second file loaded as part of each version of a source (a post set's feature table).

    The run records it as a source of its own; its rows go to ``raw.<raw_table>`` with the
    version's number and constants but its own sha256.
    """

    path: Path
    sha256: str
    raw_table: str
    rows: pa.Table


def write_version(
    con: duckdb.DuckDBPyConnection,
    source: SourceFile,
    rows: pa.Table | Callable[[Run, int], pa.Table],
    *,
    raw_table: str,
    constants: dict[str, object],
    companions: tuple[CompanionFile, ...] = (),
    counted_by: str | None = None,
) -> IngestResult:
    """Ingest ``rows`` as one new version of ``source`` into ``raw.<raw_table>``, or nothing if unchanged.

    Each row gets the version's provenance and ``constants`` (see :func:`insert_version_rows`).

    Parameters
    ----------
    rows : the rows, or ``rows(run, version)`` making them, called only for a new version (when
        reading the source is slow, or writes elsewhere under the version's name first).
    companions : other files of the same version (:class:`CompanionFile`), written after ``rows``.
    counted_by : a column of ``rows`` whose sum is the version's size (a word vector set's one
        row counts its ``n_words``); by default its number of rows.
    """

    def write_rows(run: Run, version: int) -> int:
        table = rows(run, version) if callable(rows) else rows
        written = insert_version_rows(
            con, raw_table, table, run=run, source_sha256=source.sha256, version=version, constants=constants
        )
        for companion in companions:
            run.add_source(companion.path, companion.sha256)
            insert_version_rows(
                con,
                companion.raw_table,
                companion.rows,
                run=run,
                source_sha256=companion.sha256,
                version=version,
                constants=constants,
            )
        return written if counted_by is None else sum(table.column(counted_by).to_pylist())

    return ingest_version(con, source, write_rows=write_rows)
