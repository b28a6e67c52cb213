"""Run ``dbt build`` quietly: per-node output to a log file, one summary line to the terminal.

dbt writes its per-node lines, compiled SQL and ``run_results.json`` under the warehouse
folder (``$BIASWH_HOME/dbt/``), so each warehouse keeps its own partial-parse state and
logs. The terminal gets one line per build (nodes, passes, failures, seconds) and, on a
failure, each failing node's name, message and compiled query path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from warehouse.busy import busy_error, is_lock_conflict
from warehouse.errors import UserError
from warehouse.processes import DIE_WITH_PARENT
from warehouse.settings import (
    DBT_PROJECT_DIR,
    HOME_VARIABLE,
    MEMORY_LIMIT_VARIABLE,
    duckdb_memory_limit,
    warehouse_paths,
)

FAILED_STATUSES = {"error", "fail", "runtime error"}

# The runs a build's data tests check (comma-separated; macro is_built_run). An environment
# variable, not a dbt var: a new --vars value makes dbt re-parse the whole project.
BUILD_RUN_IDS_VARIABLE = "BIASWH_BUILD_RUN_IDS"


@dataclass(frozen=True)
class BuildSummary:
    """What one ``dbt build`` did."""

    label: str
    seconds: float
    counts: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)
    log_path: str = ""

    @property
    def line(self) -> str:
        nodes = sum(self.counts.values())
        parts = ", ".join(f"{n} {status}" for status, n in sorted(self.counts.items()))
        return f"dbt build ({self.label}): {nodes} nodes ({parts or 'nothing selected'}) in {self.seconds:.1f} s"


def _dbt_executable() -> str:
    beside_python = Path(sys.executable).parent / "dbt"
    found = str(beside_python) if beside_python.exists() else shutil.which("dbt")
    if not found:
        raise UserError("dbt is not installed in this environment: run `make setup`")
    return found


def dbt_folder() -> Path:
    """Where dbt keeps this warehouse's target (compiled SQL, run results) and logs."""
    return warehouse_paths().home / "dbt"


def _manifest_nodes(target: Path) -> dict:
    try:
        return json.loads((target / "manifest.json").read_text(encoding="utf-8"))["nodes"]
    except (OSError, ValueError, KeyError):
        return {}


def _failed_node(nodes: dict, target: Path, unique_id: str) -> tuple[str, str | None]:
    """A failed node's readable name and compiled query's path, from dbt's manifest ``nodes``.

    A data test reads ``data test expression_is_true ((n_hits = 0) = ...) on stg_retrieval__query_stats``
    (its unique id ends in a hash, and its compiled file's name is truncated).
    """
    node = nodes.get(unique_id)
    if node is None:
        return unique_id, None
    compiled = target / "compiled" / node["package_name"] / node["original_file_path"]
    if node["resource_type"] == "test":
        compiled = compiled / node["path"]
    path = str(compiled) if compiled.is_file() else None
    test = node.get("test_metadata") or {}
    if not test or not node.get("attached_node"):
        return unique_id, path
    arguments = {k: v for k, v in (test.get("kwargs") or {}).items() if k != "model"}
    shown = ", ".join(str(v) if k in ("expression", "column_name") else f"{k}={v}" for k, v in arguments.items())
    tested = node["attached_node"].split(".")[-1]
    return f"data test {test['name']}" + (f" ({shown})" if shown else "") + f" on {tested}", path


def run_dbt_build(
    args: list[str] | None = None, *, label: str = "all", quiet: bool = True, run_ids: Sequence[str] = ()
) -> BuildSummary:
    """Run ``dbt build`` on the warehouse named by ``BIASWH_HOME``; raise a one-line error on failure.

    ``quiet``: dbt's own output goes to ``$BIASWH_HOME/dbt/logs/dbt-build.log`` instead of
    the terminal. ``run_ids``: the runs whose rows the data tests of run-keyed models check
    (empty: every run that neither failed nor was interrupted).
    """
    folder = dbt_folder()
    target, logs = folder / "target", folder / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        HOME_VARIABLE: str(warehouse_paths().home),
        MEMORY_LIMIT_VARIABLE: duckdb_memory_limit(),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        BUILD_RUN_IDS_VARIABLE: ",".join(run_ids),
    }
    command = [
        _dbt_executable(),
        "--no-use-colors",
        "--log-path",
        str(logs),
        "build",
        "--project-dir",
        str(DBT_PROJECT_DIR),
        "--profiles-dir",
        str(DBT_PROJECT_DIR),
        "--target-path",
        str(target),
        *(args or []),
    ]
    results_file = target / "run_results.json"
    results_file.unlink(missing_ok=True)
    log_file = logs / "dbt-build.log"
    log_start = log_file.stat().st_size if log_file.exists() else 0
    begin = time.perf_counter()
    with open(log_file, "a", encoding="utf-8") as log, warnings.catch_warnings():
        # preexec_fn means fork: lancedb (imported for the embedding cache) warns about forks,
        # but the child only execs dbt.
        warnings.filterwarnings("ignore", message="lancedb fork support")
        log.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(command)}\n")
        log.flush()
        completed = subprocess.run(
            command,
            env=env,
            cwd=DBT_PROJECT_DIR,
            preexec_fn=DIE_WITH_PARENT,
            stdout=log if quiet else None,
            stderr=subprocess.STDOUT if quiet else None,
        )
    seconds = time.perf_counter() - begin
    counts: dict[str, int] = {}
    failed = []
    if results_file.exists():
        for result in json.loads(results_file.read_text(encoding="utf-8")).get("results", []):
            status = str(result.get("status"))
            counts[status] = counts.get(status, 0) + 1
            if status in FAILED_STATUSES:
                failed.append((result["unique_id"], " ".join(str(result.get("message") or "").split())[:300]))
    nodes = _manifest_nodes(target) if failed else {}
    failures = [(*_failed_node(nodes, target, unique_id), message) for unique_id, message in failed]
    summary = BuildSummary(label, seconds, counts, failures, str(log_file))
    if completed.returncode != 0:
        details = "; ".join(
            f"{name}: {msg}" + (f" (compiled: {path})" if path else "") for name, path, msg in failures[:5]
        )
        if not failures:
            _raise_if_busy(log_file, log_start, label)
            details = "dbt stopped before building (a parse or connection error)"
        raise UserError(f"dbt build ({label}) failed: {details}. Full log: {log_file}")
    return summary


def _raise_if_busy(log_file: Path, start: int, label: str) -> None:
    """Raise the "warehouse is busy" error when this build's log shows DuckDB refused dbt the file.

    dbt opens the warehouse itself; a reader that took it after our last open (dbt takes
    seconds to start) makes dbt's connection fail with DuckDB's lock-conflict text, which names
    the holder's process id.
    """
    with open(log_file, "rb") as handle:
        handle.seek(start)
        text = handle.read().decode("utf-8", errors="replace")
    conflict = next((line for line in text.splitlines() if is_lock_conflict(line)), None)
    if conflict is not None:
        raise busy_error(conflict, warehouse_paths().duckdb_file, during=f"dbt build ({label})")
