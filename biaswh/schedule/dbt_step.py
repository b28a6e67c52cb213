"""A study's dbt builds run by dagster-dbt: the models each build selects become Dagster's asset events.

:func:`biaswh.study_builds.selected_build` decides what a build selects (and skips a build whose
inputs are unchanged), exactly as ``biaswh run`` does; :func:`dagster_dbt_build` is the ``build`` it
calls: ``dbt build`` through dagster-dbt's :class:`~dagster_dbt.DbtCliResource`, which reports each
model built as an asset materialization and each data test as an observation, keyed as the
project's :func:`dbt_manifest` names them. dbt runs as a child process here (dagster-dbt's way), in
the warehouse's own ``dbt/dagster`` target folder, so its partial parse is kept between builds.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.dbt_build.invoke import dbt_folder, environment, invoke_dbt
from biaswh.warehouse.dbt_build.project_dir import dbt_project_dir
from biaswh.warehouse.dbt_build.runner import FAILED_STATUSES, BuildSummary, build_environment, dbt_executable
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR, warehouse_paths

# the dbt flags that take a list of values (one value per flag for dagster-dbt)
_LIST_FLAGS = frozenset({"--exclude", "--select"})


def dbt_manifest() -> Path:
    """The project's ``manifest.json`` as parsed now (dbt's parse state is reused: about a second)."""
    outcome = invoke_dbt(["parse"])
    if not outcome.success:
        raise UserError(f"dbt could not parse the project: {outcome.exception or 'see the dbt log'}")
    return dbt_folder() / "target" / "manifest.json"


def joined_selection(args: Sequence[str]) -> list[str]:
    """``args`` with the values after ``--select`` / ``--exclude`` joined into one argument each.

    dagster-dbt reads one value per flag (``--select "a b"``) and would pass the second of
    ``--select a b`` to dbt as a stray argument.
    """
    out: list[str] = []
    values: list[str] | None = None
    for arg in args:
        if arg in _LIST_FLAGS:
            out.append(arg)
            values = []
            out.append("")
        elif values is not None and not arg.startswith("--"):
            values.append(arg)
            out[-1] = " ".join(values)
        else:
            values = None
            out.append(arg)
    return out


def dagster_dbt_build(context, events: list):
    """A ``build`` for :func:`~biaswh.study_builds.selected_build` run by dagster-dbt in the op ``context``.

    The Dagster events dbt's nodes give (materializations, test observations) are appended to
    ``events`` for the op to yield; a failing node raises a one-line :class:`UserError`.
    """
    from dagster_dbt import DbtCliResource

    def build(args: list[str], *, label: str, run_ids: Sequence[str] = (), progress_label: str = "") -> BuildSummary:
        paths = warehouse_paths()
        paths.home.mkdir(parents=True, exist_ok=True)
        with open_warehouse():
            pass  # creates the raw schema on a new warehouse, and fails fast with "busy"
        manifest = dbt_manifest()
        dbt = DbtCliResource(
            project_dir=str(dbt_project_dir()), profiles_dir=str(DBT_PROJECT_DIR), dbt_executable=dbt_executable()
        )
        begin = time.perf_counter()
        with environment(build_environment(run_ids)):
            invocation = dbt.cli(
                ["build", *joined_selection(args)],
                manifest=manifest,
                context=context,
                target_path=dbt_folder() / "dagster",
                raise_on_error=False,
            )
            events.extend(invocation.stream())
        results = invocation.get_artifact("run_results.json").get("results", [])
        counts: dict[str, int] = {}
        for result in results:
            counts[str(result["status"])] = counts.get(str(result["status"]), 0) + 1
        failures = [
            (result["unique_id"], " ".join(str(result.get("message") or "").split())[:300])
            for result in results
            if str(result["status"]) in FAILED_STATUSES
        ]
        summary = BuildSummary(label, time.perf_counter() - begin, counts, failures, str(invocation.target_path))
        if not invocation.is_successful():
            details = "; ".join(f"{node}: {message}" for node, message in failures[:5]) or "dbt stopped before building"
            raise UserError(f"dbt build ({label}) failed: {details}. Full log: {invocation.target_path / 'dbt.log'}")
        return summary

    return build
