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

from biaswh.warehouse.database.busy import busy_error, is_lock_conflict
from biaswh.warehouse.dbt_build import build_process
from biaswh.warehouse.dbt_build.checks import describe_failed_checks, failing_checks
from biaswh.warehouse.dbt_build.invoke import dbt_folder, invoke_dbt, parsed_nodes
from biaswh.warehouse.dbt_build.options import target_name
from biaswh.warehouse.dbt_build.project_dir import dbt_project_dir
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.progress import node_progress
from biaswh.warehouse.runs.processes import DIE_WITH_PARENT
from biaswh.warehouse.settings.home import (
    DBT_PROJECT_DIR,
    HOME_VARIABLE,
    MEMORY_LIMIT_VARIABLE,
    duckdb_memory_limit,
    warehouse_paths,
)
from biaswh.warehouse.spark.targets import LOCAL_TARGET, is_spark_target

FAILED_STATUSES = {"error", "fail", "runtime error"}

# The runs a build's data tests check (comma-separated; macro is_built_run). An environment
# variable, not a dbt var: a new --vars value makes dbt re-parse the whole project.
BUILD_RUN_IDS_VARIABLE = "BIASWH_BUILD_RUN_IDS"

__all__ = ["BuildSummary", "dbt_folder", "run_dbt_build"]


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


def dbt_executable() -> str:
    beside_python = Path(sys.executable).parent / "dbt"
    found = str(beside_python) if beside_python.exists() else shutil.which("dbt")
    if not found:
        raise UserError("dbt is not installed in this environment: run `make setup`")
    return found


def _manifest_nodes(target: Path) -> dict:
    try:
        return json.loads((target / "manifest.json").read_text(encoding="utf-8"))["nodes"]
    except (OSError, ValueError, KeyError):
        return {}


def _failed_node(nodes: dict, target: Path, unique_id: str, *, on_duckdb: bool = True) -> tuple[str, str | None]:
    """A failed node's readable name and compiled query's path, from dbt's manifest ``nodes``.

    A data test reads ``data test expression_is_true ((n_hits = 0) = ...) on stg_retrieval__query_stats``
    (its unique id ends in a hash, and its compiled file's name is truncated). A model's
    ``checks`` test names the checks that failed, asked of the warehouse when the build ran on
    DuckDB (:mod:`biaswh.warehouse.dbt_build.checks`), else every check it holds.
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
    tested = node["attached_node"].split(".")[-1]
    if test["name"] == "checks":
        failing = failing_checks(compiled, warehouse_paths().duckdb_file) if path and on_duckdb else None
        return describe_failed_checks(arguments, tested, failing), path
    shown = ", ".join(str(v) if k in ("expression", "column_name") else f"{k}={v}" for k, v in arguments.items())
    return f"data test {test['name']}" + (f" ({shown})" if shown else "") + f" on {tested}", path


def build_environment(run_ids: Sequence[str]) -> dict[str, str]:
    """The variables the profile and macros read: the warehouse, its memory limit, the runs to test."""
    return {
        HOME_VARIABLE: str(warehouse_paths().home),
        MEMORY_LIMIT_VARIABLE: duckdb_memory_limit(),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        BUILD_RUN_IDS_VARIABLE: ",".join(run_ids),
    }


def _counts_and_failures(results: list[tuple[str, str, str]]) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Per-status counts and the failed ``(unique_id, message)`` of ``(unique_id, status, message)`` rows."""
    counts: dict[str, int] = {}
    failed = []
    for unique_id, status, message in results:
        counts[status] = counts.get(status, 0) + 1
        if status in FAILED_STATUSES:
            failed.append((unique_id, " ".join(str(message or "").split())[:300]))
    return counts, failed


def _run_in_process(command: list[str], env: dict, log_file: Path, *, quiet: bool, callbacks=()):
    """``dbt build`` through :func:`~biaswh.warehouse.dbt_build.invoke.invoke_dbt`: (ok, result rows, error, nodes),
    in the study run's dbt process when one is running (:mod:`~biaswh.warehouse.dbt_build.build_process`)."""
    if target_name(command) in (None, LOCAL_TARGET):
        served = build_process.build(command, env=env, log_file=log_file, console=not quiet, callbacks=callbacks)
        if served is not None:
            return served
    outcome = invoke_dbt(["build", *command], env=env, callbacks=callbacks, log_file=log_file, console=not quiet)
    if isinstance(outcome.exception, KeyboardInterrupt):
        raise outcome.exception
    run = outcome.result if hasattr(outcome.result, "results") else None
    rows = [(r.node.unique_id, str(r.status), r.message) for r in (run.results if run else [])]
    failed_ids = [uid for uid, status, _ in rows if status in FAILED_STATUSES]
    return outcome.success, rows, str(outcome.exception or ""), parsed_nodes(failed_ids)


def _run_subprocess(command: list[str], env: dict, log, target: Path, *, quiet: bool):
    """``dbt build`` as a child process (``BIASWH_DBT_SUBPROCESS=1``): the same four values."""
    full = [
        dbt_executable(),
        "--no-use-colors",
        "--log-path",
        str(Path(log.name).parent),
        "build",
        "--project-dir",
        str(dbt_project_dir()),
        "--profiles-dir",
        str(DBT_PROJECT_DIR),
        "--target-path",
        str(target),
        *command,
    ]
    log.write(f"{' '.join(full)}\n")
    log.flush()
    with warnings.catch_warnings():
        # preexec_fn means fork: lancedb (imported for the embedding cache) warns about forks,
        # but the child only execs dbt.
        warnings.filterwarnings("ignore", message="lancedb fork support")
        completed = subprocess.run(
            full,
            env={**os.environ, **env},
            cwd=dbt_project_dir(),
            preexec_fn=DIE_WITH_PARENT,
            stdout=log if quiet else None,
            stderr=subprocess.STDOUT if quiet else None,
        )
    results_file = target / "run_results.json"
    rows = []
    if results_file.exists():
        for result in json.loads(results_file.read_text(encoding="utf-8")).get("results", []):
            rows.append((result["unique_id"], str(result.get("status")), result.get("message")))
    return completed.returncode == 0, rows, "", _manifest_nodes(target)


def run_dbt_build(
    args: list[str] | None = None,
    *,
    label: str = "all",
    quiet: bool = True,
    run_ids: Sequence[str] = (),
    progress_label: str = "",
) -> BuildSummary:
    """Run ``dbt build`` on the warehouse named by ``BIASWH_HOME``; raise a one-line error on failure.

    dbt runs in this process (:func:`biaswh.warehouse.dbt_build.invoke.invoke_dbt`), or as a child process
    when ``BIASWH_DBT_SUBPROCESS=1``. No connection of ours may be open on the warehouse file
    meanwhile. ``quiet``: dbt's own output goes to ``$BIASWH_HOME/dbt/logs/dbt-build.log``
    instead of the terminal. ``run_ids``: the runs whose rows the data tests of run-keyed
    models check (empty: every run that neither failed nor was interrupted). ``progress_label``:
    the prefix of the node counter shown on a terminal (in-process only).
    """
    folder = dbt_folder()
    target, logs = folder / "target", folder / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = build_environment(run_ids)
    command = list(args or [])
    (target / "run_results.json").unlink(missing_ok=True)
    log_file = logs / "dbt-build.log"
    log_start = log_file.stat().st_size if log_file.exists() else 0
    with open(log_file, "a", encoding="utf-8") as log:
        log.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} dbt build {' '.join(command)}\n")
    begin = time.perf_counter()
    if os.environ.get(build_process.SUBPROCESS_VARIABLE) == "1":
        with open(log_file, "a", encoding="utf-8") as log:
            ok, rows, error, nodes = _run_subprocess(command, env, log, target, quiet=quiet)
    else:
        with node_progress(f"{progress_label}dbt build ({label})") as counter:
            ok, rows, error, nodes = _run_in_process(command, env, log_file, quiet=quiet, callbacks=[counter])
    seconds = time.perf_counter() - begin
    counts, failed = _counts_and_failures(rows)
    on_duckdb = not is_spark_target(target_name(command) or "local")
    failures = [(*_failed_node(nodes, target, uid, on_duckdb=on_duckdb), message) for uid, message in failed]
    summary = BuildSummary(label, seconds, counts, failures, str(log_file))
    if not ok:
        details = "; ".join(
            f"{name}: {msg}" + (f" (compiled: {path})" if path else "") for name, path, msg in failures[:5]
        )
        if not failures:
            if is_lock_conflict(error):
                raise busy_error(error, warehouse_paths().duckdb_file, during=f"dbt build ({label})")
            _raise_if_busy(log_file, log_start, label)
            first = error.strip().splitlines()[0][:300] if error.strip() else ""
            details = "dbt stopped before building (a parse or connection error" + (f": {first})" if first else ")")
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
