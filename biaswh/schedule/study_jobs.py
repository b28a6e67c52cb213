"""A study config as a Dagster job whose ops are the stages of ``biaswh run``.

start (the run recorded) -> ingest -> dbt build (sources) -> jobs -> dbt build (results) ->
analysis (the run marked succeeded) -> dashboards. Each op calls the stage
:mod:`biaswh.pipeline` chains, so a study run from Dagster records what ``biaswh run`` records. A
stage that fails withdraws the run's results from the marts and marks it failed, as ``biaswh run``
does; the ops after it do not run. The job runs its ops in one process, one after another
(DuckDB has one writer), under the warehouse's command lock for the whole run.
"""

from __future__ import annotations

import json
import re
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

from biaswh import pipeline
from biaswh.compute.common.engine import chat_pool, compute_settings
from biaswh.plugins import load_plugins
from biaswh.run_outcome import record_failure
from biaswh.schedule.dbt_step import dagster_dbt_build
from biaswh.study_builds import selected_build
from biaswh.warehouse.database.command_lock import exclusive_command
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.runs.study import Study, build_selections, load_study
from biaswh.withdrawal import withdrawn_if_failing


@dataclass(frozen=True)
class StudyUnderWay:
    """The study a job runs (its config checked, its files found) while the run holds the command lock."""

    study: Study


@dg.resource(config_schema={"config": str})
def study_resource(init_context) -> StudyUnderWay:
    """The study config ``config``, loaded and checked; the command lock and the LLM call pool held
    for the run's life (a Dagster run's resources live as long as the run, in its one process)."""
    from biaswh.ingest.common.llm.batch import chat_pool_for_calls

    path = init_context.resource_config["config"]
    load_plugins()
    study = load_study(path, check_files=True)
    with ExitStack() as held:
        held.enter_context(exclusive_command(f"dagster study job {path}"))
        held.enter_context(chat_pool_for_calls(lambda: chat_pool(compute_settings(study.settings))))
        yield StudyUnderWay(study)


def _stage(context, run_id: str, stage: str, work) -> None:
    """Run one stage of study run ``run_id``: its seconds kept with the run; a failure withdraws the
    run's results and marks it failed (then re-raised, so Dagster fails the op)."""
    begin = time.perf_counter()
    try:
        withdrawn_if_failing(run_id, work)
    except BaseException as exc:
        record_failure(run_id, str(exc)[:2000] or type(exc).__name__)
        raise
    seconds = time.perf_counter() - begin
    with open_warehouse() as con:
        stored = con.execute("select stage_seconds from raw.runs where run_id = ?", [run_id]).fetchone()[0]
        stages = {**json.loads(stored or "{}"), stage: seconds}
        con.execute("update raw.runs set stage_seconds = ? where run_id = ?", [json.dumps(stages), run_id])
    context.log.info(f"{stage}: {seconds:.1f} s")


def _study(context) -> Study:
    return context.resources.study.study


@dg.op(required_resource_keys={"study"}, out=dg.Out(str))
def start(context) -> str:
    """Record the study run (its parameters and the versions of the code and packages)."""
    run_id = pipeline.open_study_run(_study(context))
    context.add_output_metadata({"run_id": run_id})
    return run_id


@dg.op(required_resource_keys={"study"}, out=dg.Out(str))
def ingest(context, run_id: str) -> str:
    """Load each ``[[ingest]]`` source (an unchanged file is no new version)."""
    _stage(context, run_id, "ingest", lambda: pipeline.ingest_stage(_study(context), run_id))
    return run_id


def _dbt_build_op(label: str):
    """The op that builds what the study's ``label`` build selects (``sources`` or ``results``)."""

    @dg.op(name=f"dbt_build_{label}", required_resource_keys={"study"}, out=dg.Out(str))
    def build(context, run_id: str):
        study = _study(context)
        selection = build_selections(study)[label]
        if selection != "" and (label == "sources" or study.jobs):
            events: list = []
            _stage(
                context,
                run_id,
                f"dbt build ({label})",
                lambda: context.log.info(
                    selected_build(
                        selection,
                        label,
                        run_id=run_id,
                        study_name=study.name,
                        build=dagster_dbt_build(context, events),
                    )
                ),
            )
            yield from events
        yield dg.Output(run_id)

    return build


dbt_build_sources = _dbt_build_op("sources")
dbt_build_results = _dbt_build_op("results")


@dg.op(required_resource_keys={"study"}, out=dg.Out(str))
def jobs(context, run_id: str) -> str:
    """The study's jobs (retrieval, generation, evaluation...), between the two dbt builds."""
    study = _study(context)
    if study.jobs:
        _stage(context, run_id, "jobs", lambda: pipeline.jobs_stage(study, run_id))
    return run_id


@dg.op(required_resource_keys={"study"}, out=dg.Out(str))
def analysis(context, run_id: str) -> str:
    """The analysis steps; the run is then marked succeeded."""
    _stage(context, run_id, "analysis", lambda: pipeline.analysis_stage(_study(context), run_id))
    with open_warehouse() as con:
        con.execute("update raw.runs set status = 'succeeded', finished_at = now() where run_id = ?", [run_id])
    return run_id


@dg.op(required_resource_keys={"study"})
def dashboards(context, run_id: str) -> None:
    """The dashboard site rebuilt over the warehouse (``$BIASWH_HOME/site``)."""
    index = pipeline.dashboards() / "index.html"
    context.add_output_metadata({"site": dg.MetadataValue.path(str(index)), "run_id": run_id})


def job_name(study_name: str) -> str:
    """A study's Dagster job name: its name with anything but letters, digits and ``_`` as ``_``."""
    return "study_" + re.sub(r"[^A-Za-z0-9_]", "_", study_name)


def study_job(config: Path) -> dg.JobDefinition:
    """The Dagster job that runs the study config ``config`` end to end, as ``biaswh run`` does."""
    study = load_study(config)

    @dg.job(
        name=job_name(study.name),
        description=study.description or f"biaswh run {config.name}",
        resource_defs={"study": study_resource.configured({"config": str(config)})},
        executor_def=dg.in_process_executor,
        tags={"biaswh/study": study.name},
    )
    def run_study():
        dashboards(analysis(dbt_build_results(jobs(dbt_build_sources(ingest(start()))))))

    return run_study
