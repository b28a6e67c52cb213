"""The exported raw Parquet declared as Spark tables, once per Spark session: later builds add only new runs.

The first build of a session (a JVM in session mode, a server for the cluster target) declares
every raw table on its folder and recovers its ``run_id=<id>`` partitions (dbt macro
``register_raw_tables``). Later builds of the same session send only what changed since:

- a table not declared yet, or whose columns or folder changed (a new raw column, another
  warehouse opened by the same process), is declared again in full;
- a partitioned table gets its new runs' partitions added, and is refreshed when a folder
  Spark already lists was written again (``raw.runs``: a run's status changes when it ends);
- a table without ``run_id`` is written whole by every export, so it is refreshed.

What a session holds is remembered in this process, by the session's identity (the
SparkContext's application id, or the Thrift server's address): a new session starts over.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.spark.raw_export import RawTable
from biaswh.warehouse.spark.target import invoke_dbt
from biaswh.warehouse.spark.targets import spark_method, spark_target_name, thrift_address


@dataclass(frozen=True)
class _Declared:
    """One raw table as a session declared it: what must match to keep it, and its partitions."""

    columns: tuple[tuple[str, str], ...]
    partitioned: bool
    location: str
    partitions: frozenset[str]


# session identity -> {table name -> how it is declared there}
_declared: dict[str, dict[str, _Declared]] = {}


def session_identity() -> str | None:
    """Which Spark session the next build talks to, or None when none has started in this process."""
    target = spark_target_name()
    if spark_method(target) != "session":
        host, port = thrift_address(target)
        return f"{target}:{host}:{port}"
    try:
        from pyspark import SparkContext
    except ImportError:
        return None
    context = SparkContext._active_spark_context
    return f"session:{context.applicationId}" if context is not None else None


def registration_plan(tables: list[RawTable], declared: dict[str, _Declared]) -> list[dict]:
    """The macro's payload: per table, ``create`` (declare, recover partitions) or ``update``
    (``add``: new partitions, ``refresh``: files Spark lists were written again); unchanged tables left out."""
    plan = []
    for table in tables:
        before = declared.get(table.name)
        same = before is not None and (before.columns, before.partitioned, before.location) == (
            table.columns,
            table.partitioned,
            table.location,
        )
        spec = {"name": table.name, "location": table.location, "partitioned": table.partitioned}
        if not same:
            plan.append({**spec, "action": "create", "columns": [list(c) for c in table.columns]})
            continue
        if not table.partitioned:
            plan.append({**spec, "action": "update", "add": [], "refresh": True})
            continue
        added = sorted(set(table.partitions) - before.partitions)
        refresh = bool(set(table.written) & before.partitions)
        if added or refresh:
            plan.append({**spec, "action": "update", "add": added, "refresh": refresh})
    return plan


def register_raw_tables(tables: list[RawTable]) -> list[dict]:
    """Declare on Spark what changed in the exported raw tables since this session last saw them; the plan sent."""
    identity = session_identity()
    declared = _declared.get(identity, {}) if identity else {}
    plan = registration_plan(tables, declared)
    if plan:
        result, _ = invoke_dbt(["run-operation", "register_raw_tables", "--args", json.dumps({"tables": plan})])
        if not result.success:
            raise UserError(f"registering the raw Parquet on Spark failed: {result.exception or 'see dbt.log'}")
    identity = session_identity()  # the first build of a process started the session
    if identity:
        remembered = _declared.setdefault(identity, {})
        for table in tables:
            remembered[table.name] = _Declared(
                table.columns, table.partitioned, table.location, frozenset(table.partitions)
            )
    return plan
