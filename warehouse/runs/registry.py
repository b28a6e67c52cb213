"""The run registry: every ingest and study run records what it did and with what.

A run row holds its id, kind, parameters, code version (the git SHA when the code is a
git checkout), the versions of the packages that shape results, start and end time,
status, row counts, and one ``raw.run_sources`` row per source file with its sha256.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Sequence

import duckdb

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.processes import process_alive
from biaswh.warehouse.settings.home import REPOSITORY_ROOT

TRACKED_PACKAGES = (
    "bias-warehouse",
    "duckdb",
    "dbt-core",
    "dbt-duckdb",
    "polars",
    "pyarrow",
    "numpy",
    "rank-bm25",
    "lancedb",
    "pylance",  # builds the ANN indexes (compute/retrieval/ann.py)
    "sentence-transformers",
    "torch",
    "openai",
    "scipy",
    "statsmodels",
    "altair",
)
# The packages of an engine a run used besides DuckDB (Ray's compute, Spark's dbt build).
ENGINE_PACKAGES = {
    "ray": ("ray",),
    "spark": ("pyspark", "dbt-spark"),  # Spark inside this process (session mode)
    "spark_thrift": ("dbt-spark", "PyHive", "thrift"),  # a Spark Thrift server's client
}


def file_sha256(path: str | Path) -> str:
    """Return the hex sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


# Tracked files a command writes: their changes do not make the code dirty.
OUTPUT_PATHSPECS = (":(exclude)benchmarks/results",)


def code_version() -> str:
    """The git SHA of the checkout (``-dirty`` when its code has uncommitted changes), else the package version.

    The benchmarks' recorded results are outputs, not code: ``make bench`` rewrites them as it
    goes, and the later benchmarks of that run still measure the commit.
    """
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=REPOSITORY_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", *OUTPUT_PATHSPECS],
            cwd=REPOSITORY_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        return f"{sha}-dirty" if dirty else sha
    except (OSError, subprocess.SubprocessError):
        try:
            return f"bias-warehouse {metadata.version('bias-warehouse')}"
        except metadata.PackageNotFoundError:
            return "unknown"


def package_versions(engines: Sequence[str] = ()) -> dict[str, str]:
    """Installed versions of the packages whose behaviour shapes results, with those of ``engines``
    (names in :data:`ENGINE_PACKAGES`: the engines the run used)."""
    versions = {}
    for name in [*TRACKED_PACKAGES, *(p for engine in engines for p in ENGINE_PACKAGES[engine])]:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


@dataclass
class Run:
    """A run in progress; ``finish`` or ``fail`` closes it."""

    con: duckdb.DuckDBPyConnection
    kind: str
    name: str
    parameters: dict
    engines: tuple[str, ...] = ()
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    row_counts: dict = field(default_factory=dict)

    def start(self) -> "Run":
        self.con.execute(
            "insert into raw.runs (run_id, kind, name, status, parameters, code_version,"
            " package_versions, started_at, pid, host) values (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)",
            [
                self.run_id,
                self.kind,
                self.name,
                json.dumps(self.parameters, sort_keys=True),
                code_version(),
                json.dumps(package_versions(self.engines), sort_keys=True),
                _now(),
                os.getpid(),
                socket.gethostname(),
            ],
        )
        return self

    def add_source(self, path: str | Path, sha256: str) -> None:
        size = Path(path).stat().st_size if Path(path).exists() else None
        self.con.execute(
            "insert into raw.run_sources values (?, ?, ?, ?)",
            [self.run_id, str(path), sha256, size],
        )

    def _close(self, status: str, message: str | None) -> None:
        self.con.execute(
            "update raw.runs set status = ?, finished_at = ?, row_counts = ?, message = ? where run_id = ?",
            [status, _now(), json.dumps(self.row_counts, sort_keys=True), message, self.run_id],
        )

    def finish(self, message: str | None = None) -> None:
        self._close("succeeded", message)

    def fail(self, message: str) -> None:
        self._close("failed", message)


def start_run(
    con: duckdb.DuckDBPyConnection, *, kind: str, name: str, parameters: dict, engines: Sequence[str] = ()
) -> Run:
    """Register a new run (status ``running``) on ``con`` and return it; ``engines``: the engines
    besides DuckDB it uses (:data:`ENGINE_PACKAGES`), whose package versions it records too."""
    return Run(con=con, kind=kind, name=name, parameters=parameters, engines=tuple(engines)).start()


def latest_succeeded_study_run(con: duckdb.DuckDBPyConnection, study) -> tuple[str, datetime]:
    """The run id and end time of ``study``'s latest study run that succeeded.

    A failed, interrupted or still running study run has incomplete results, so commands that
    read a study's results (``analyze``, ``peek``) never pick one by default.

    Raises
    ------
    UserError
        When the study has no succeeded run; the message names its latest run and that run's status.
    """
    row = con.execute(
        "select run_id, coalesce(finished_at, started_at) from raw.runs where kind = 'study'"
        " and name = ? and status = 'succeeded' order by started_at desc limit 1",
        [study.name],
    ).fetchone()
    if row is not None:
        return row[0], row[1]
    latest = con.execute(
        "select run_id, status from raw.runs where kind = 'study' and name = ? order by started_at desc limit 1",
        [study.name],
    ).fetchone()
    what = "no run" if latest is None else f"no succeeded run (its latest, {latest[0]}, {latest[1]})"
    raise UserError(f"study {study.name!r} has {what} in this warehouse: `biaswh run {study.path}` first")


def check_study_run(con: duckdb.DuckDBPyConnection, study, run_id: str) -> None:
    """Refuse ``run_id`` unless it is a study run of ``study`` (``analyze --run`` of another study's
    run analysed it as this study's and said "analysed").

    Raises
    ------
    UserError
        When no run has that id, or it is another kind of run, or another study's.
    """
    row = con.execute("select kind, name from raw.runs where run_id = ?", [run_id]).fetchone()
    if row is None:
        raise UserError(f"--run {run_id}: no run with that id in this warehouse (biaswh sql 'select * from dim_runs')")
    kind, name = row
    if kind != "study" or name != study.name:
        raise UserError(f"--run {run_id}: that is a run of {kind} {name!r}, not of study {study.name!r}")


def mark_interrupted_runs(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Mark this host's ``running`` runs whose process is gone as ``interrupted``; return their ids.

    A run whose process was killed (``kill -9``, a crash, a closed terminal) never closes
    itself. Runs of other hosts, and old rows without a pid, are left alone: their process
    cannot be checked from here.
    """
    host = socket.gethostname()
    running = con.execute(
        "select run_id, pid from raw.runs where status = 'running' and host = ? and pid is not null", [host]
    ).fetchall()
    dead = [(run_id, pid) for run_id, pid in running if pid != os.getpid() and not process_alive(pid)]
    for run_id, pid in dead:
        con.execute(
            "update raw.runs set status = 'interrupted', finished_at = ?, message = ? where run_id = ?"
            " and status = 'running'",
            [_now(), f"interrupted: process {pid} on {host} ended without finishing the run", run_id],
        )
    return [run_id for run_id, _ in dead]
