"""A study's two dbt builds: the models its steps select, skipped when their inputs are unchanged.

The data tests of a build check the study run's rows (and its evaluation runs'), not every
run the warehouse holds; on a Spark target (``spark``, ``cluster``) Spark builds what it can and DuckDB the rest.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Callable

from biaswh.compute.common.engine import compute_settings
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.dbt_build import build_process
from biaswh.warehouse.dbt_build.build_process import SUBPROCESS_VARIABLE
from biaswh.warehouse.dbt_build.build_state import is_up_to_date, mark_built
from biaswh.warehouse.dbt_build.invoke import environment, start_dbt_in_background
from biaswh.warehouse.dbt_build.selection import site_selection
from biaswh.warehouse.dbt_build.view_state import record_views, selection_nodes, unchanged_views, view_fingerprint
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.registry import ENGINE_PACKAGES
from biaswh.warehouse.spark.jvm import missing_spark_extra
from biaswh.warehouse.spark.marts import WAREHOUSE_LOCATION_VARIABLE
from biaswh.warehouse.spark.raw_export import check_raw_location
from biaswh.warehouse.spark.targets import (
    LOCAL_TARGET,
    SPARK_TARGET_VARIABLE,
    check_build_target,
    is_spark_target,
    missing_thrift_extra,
    spark_method,
    unreachable_thrift_server,
)
from biaswh.withdrawal import built_run_ids

# Study builds leave dbt's unit tests out: they test the SQL, not the data, and run once in
# `make test` / `biaswh build`.
STUDY_BUILD_ARGS = ["--exclude-resource-type", "unit_test"]


def check_spark_target(target: str, *, where: str = "--target") -> None:
    """Refuse, before any work, a build target the profile lacks or that cannot run here, in one line."""
    check_build_target(target, where=where)
    if not is_spark_target(target):
        return
    check_raw_location()  # before the extra: a URL is refused whatever is installed
    if spark_method(target) == "session":
        missing = missing_spark_extra()
    else:
        missing = missing_thrift_extra()
        if missing is None and not os.environ.get(WAREHOUSE_LOCATION_VARIABLE):
            # DuckDB reads the marts in the server's table folders: it must be told where they are.
            missing = (
                f"{where} {target}: set {WAREHOUSE_LOCATION_VARIABLE} to the Spark server's spark.sql.warehouse.dir"
                " (a path this machine reads: a shared filesystem or a mounted bucket)"
            )
        missing = missing or unreachable_thrift_server(target)
    if missing:
        raise UserError(missing)


def study_build_target(study) -> str:
    """The study's ``[compute] build_target``, else ``local``."""
    return (study.settings.get("compute") or {}).get("build_target", LOCAL_TARGET)


def run_record(study, *, target: str = LOCAL_TARGET) -> tuple[dict, tuple[str, ...]]:
    """What a study run records of where it ran: its parameters (with ``build_target`` when dbt
    builds on another target than DuckDB; the compute engine is in its ``[compute]`` settings) and
    the engines whose package versions it records besides the tracked ones (Ray, Spark)."""
    parameters = study.parameters()
    if target != LOCAL_TARGET:
        parameters["build_target"] = target
    spark = None
    if is_spark_target(target):
        spark = "spark" if spark_method(target) == "session" else f"spark_{spark_method(target)}"
    used = (compute_settings(study.settings).engine, spark)
    return parameters, tuple(engine for engine in used if engine in ENGINE_PACKAGES)


def start_dbt_early(selections: dict[str, str | None], target: str = LOCAL_TARGET) -> None:
    """Load dbt while the run ingests and computes, when a build of ``selections`` (step ->
    selection; ``""``: no build) will call dbt from this process on DuckDB: in the child that
    then runs the builds (:func:`start_dbt_process`), else in a background thread."""
    builds = any(selection != "" for selection in selections.values())
    if builds and target == LOCAL_TARGET and not start_dbt_process() and os.environ.get(SUBPROCESS_VARIABLE) != "1":
        start_dbt_in_background()


def start_dbt_process() -> bool:
    """Start the child that loads dbt and runs the builds of a study run (inside
    :func:`~biaswh.warehouse.dbt_build.build_process.serving`; not with ``BIASWH_DBT_SUBPROCESS=1``)."""
    return build_process.start()


def selected_build(
    selection: str | None,
    label: str,
    *,
    run_id: str,
    study_name: str = "",
    target: str = LOCAL_TARGET,
    build: Callable | None = None,
) -> str:
    """Build ``selection`` (None: the whole project) unless its inputs are unchanged since its last build.

    Its data tests check the rows of study run ``run_id`` and its evaluation runs, not every
    run the warehouse holds: an earlier run's rows were tested when it was built. On a Spark
    ``target`` (``spark``, ``cluster``) Spark builds every model of the selection it can and DuckDB the rest
    (:mod:`biaswh.warehouse.spark.marts`). ``build``: what runs ``dbt build`` (its ``args``,
    ``label``, ``run_ids`` and ``progress_label``; a summary with a ``line`` back), default
    :func:`biaswh.pipeline.dbt_build` (the Dagster jobs pass dagster-dbt's, :mod:`biaswh.schedule.dbt_step`).
    """
    key = selection or "<all>"
    args = list(STUDY_BUILD_ARGS)
    if selection and label == "sources":
        selection += f" {site_selection()}"  # views: the dashboards' runs and their sources
    if selection:
        # Cautious: a test runs only when every model it reads was selected (and so exists).
        args += ["--select", selection, "--indirect-selection", "cautious"]
    lines = []
    fingerprint = view_fingerprint(STUDY_BUILD_ARGS)
    # One open before the build and one after it (an open and close costs 40-50 ms), none while
    # dbt builds: the build opens the file from its own process.
    with open_warehouse() as con:
        if label == "sources" and is_up_to_date(con, key):
            return f"dbt build ({label}): inputs unchanged since the last build, skipped"
        run_ids = built_run_ids(con, run_id)
        # dbt's listing (kept per project state; `dbt ls` opens no database).
        nodes = selection_nodes(args[len(STUDY_BUILD_ARGS) :]) if selection and target == LOCAL_TARGET else []
        views = [node for node in nodes if node.is_view]
        kept = unchanged_views(con, nodes, fingerprint) if nodes else []
        if kept and all(node in kept for node in nodes):
            mark_built(con, key)
            return f"dbt build ({label}): {len(kept)} unchanged views kept, nothing else selected"
    if kept:
        # Every other node by name, tests of the kept views included.
        built = [node.name for node in nodes if node not in kept]
        args = [*STUDY_BUILD_ARGS, "--select", *built, "--indirect-selection", "empty"]
    if is_spark_target(target):
        from biaswh.warehouse.spark.marts import build_on_spark_into_duckdb

        spark_args = [_with_view_ancestors(arg) if selection and arg == selection else arg for arg in args]
        with environment({SPARK_TARGET_VARIABLE: target}):
            spark_summary, built_on_spark = build_on_spark_into_duckdb(spark_args, label=label, run_ids=run_ids)
        lines.append(spark_summary.line)
        if built_on_spark:
            args += ["--exclude", *built_on_spark]
    from biaswh import pipeline  # at call time: the fault tests replace pipeline.dbt_build

    # The open above made the raw schema and waited for any reader: dbt_build need not open again.
    summary = (build or partial(pipeline.dbt_build, opened=True))(
        args, label=label, run_ids=run_ids, progress_label=f"[{study_name}] " if study_name else ""
    )
    with open_warehouse() as con:
        mark_built(con, key)
        record_views(con, views, fingerprint)
    kept_line = f", {len(kept)} unchanged views kept" if kept else ""
    return "; ".join([*lines, summary.line + kept_line])


def _with_view_ancestors(selection: str) -> str:
    """``selection`` and the views its models read: Spark's session holds only the views its own
    builds created, while DuckDB keeps every view in the warehouse file from earlier builds."""
    plain = [part for part in selection.split() if "," not in part]
    return " ".join([selection, *(f"+{part.lstrip('+')},config.materialized:view" for part in plain)])
