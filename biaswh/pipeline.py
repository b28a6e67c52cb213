"""The stages the CLI chains, each usable on its own from Python too."""

from __future__ import annotations

import json
import time
from contextlib import suppress
from pathlib import Path
from typing import Sequence

from biaswh.compute.common.engine import chat_pool, compute_settings, with_compute
from biaswh.compute.common.sentence_encoding import sentence_encoding
from biaswh.plugins import RUN_LAYERS, load_plugins, loading_in_background
from biaswh.run_outcome import finish_or_fail as _finish_or_fail  # (the name tests/warehouse/test_busy_status.py calls)
from biaswh.run_outcome import print_next_steps
from biaswh.study_builds import (
    LOCAL_TARGET,
    check_spark_target,
    run_record,
    selected_build,
    start_dbt_early,
    start_dbt_process,
    study_build_target,
)
from biaswh.warehouse.database.command_lock import exclusive_command
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.dbt_build import build_process
from biaswh.warehouse.dbt_build.runner import BuildSummary, run_dbt_build
from biaswh.warehouse.relations.contracts import publish_contract_views
from biaswh.warehouse.runs.parameters import record_run_inputs, record_run_parameters
from biaswh.warehouse.runs.registry import start_run
from biaswh.warehouse.runs.study import (
    ANALYSIS_STEPS,
    STUDY_INGESTERS,
    STUDY_JOBS,
    build_selections,
    load_study,
)
from biaswh.warehouse.settings.home import warehouse_paths
from biaswh.withdrawal import withdrawn_if_failing


def dbt_build(
    extra_args: list[str] | None = None,
    *,
    label: str = "all",
    quiet: bool = True,
    run_ids: Sequence[str] = (),
    progress_label: str = "",
    opened: bool = False,
) -> BuildSummary:
    """Run ``dbt build`` on the warehouse named by ``BIASWH_HOME``; raise if anything fails.

    ``run_ids``: the runs whose rows the data tests of run-keyed models check (empty: every
    run that did not fail). ``opened``: the caller just opened (and closed) the warehouse for writing.
    """
    paths = warehouse_paths()
    paths.home.mkdir(parents=True, exist_ok=True)
    if not opened:
        with open_warehouse():
            pass  # creates the raw schema on a new warehouse, and fails fast with "busy"
    # Closed above: dbt opens the file in this process, and DuckDB refuses a second instance.
    return run_dbt_build(extra_args, label=label, quiet=quiet, run_ids=run_ids, progress_label=progress_label)


def dashboards(out: str | None = None) -> Path:
    """Write the dashboard site (default: ``$BIASWH_HOME/site``) and return its folder."""
    from biaswh.dashboards.common.site import build_site
    from biaswh.warehouse.database.output_files import checked_output

    out_dir = checked_output(out or warehouse_paths().site_dir, option="dashboards --out", folder=True)
    load_plugins()
    with open_warehouse(read_only=True) as con:
        return build_site(con, out_dir)


def export(study: str, *, run_id: str | None, output_format: str, out: str):
    """``biaswh export``: a study run's page tables as files (:mod:`biaswh.dashboards.common.export`)."""
    from biaswh.dashboards.common.export import export_study
    from biaswh.warehouse.database.output_files import checked_output

    out_dir = checked_output(out, option="export --out", folder=True)
    name = load_study(study, check_steps=False).name if study.endswith(".toml") else study
    load_plugins()
    with open_warehouse(read_only=True) as con:
        return export_study(con, name, run_id=run_id, output_format=output_format, out=out_dir)


def _ingest_step(con, study, step: dict):
    return STUDY_INGESTERS[step["source"]](con, study, step)


def _run_registered(study, run_id: str, names: list[str], registry: dict, then=None) -> None:
    """Each step of ``names``, then ``then(con)``, in one open (no dbt build between them; an open costs 40-50 ms)."""
    with open_warehouse() as con:
        for name in names:
            print(f"[{study.name}] {name}", flush=True)
            registry[name](con, study, run_id)
        if then is not None:
            then(con)


def open_study_run(study, *, target: str = LOCAL_TARGET) -> str:
    """Record a new run of kind ``study`` (its parameters, engines and run parameters); return its id."""
    parameters, engines = run_record(study, target=target)
    with open_warehouse() as con, transaction(con):
        run_id = start_run(con, kind="study", name=study.name, parameters=parameters, engines=engines).run_id
        record_run_parameters(con, run_id, study.run_parameters)
    return run_id


def ingest_stage(study, run_id: str) -> None:
    """A study run's first stage: each ``[[ingest]]`` source loaded, and the versions read recorded with the run."""
    results = []
    with open_warehouse() as con:
        for step in study.ingest:
            result = _ingest_step(con, study, step)
            results.append(result)
            for line in result.message.splitlines():  # a source that loads several files: a line each
                print(f"[{study.name}] {line}", flush=True)
        record_run_inputs(con, run_id, results)


def jobs_stage(study, run_id: str) -> None:
    """The study's jobs (between the two dbt builds), in their config order."""
    _run_registered(study, run_id, study.jobs, STUDY_JOBS)


def analysis_stage(study, run_id: str) -> None:
    """The study's analysis steps, then the contract views over what they wrote."""
    _run_registered(study, run_id, study.analysis, ANALYSIS_STEPS, then=publish_contract_views)


def run_study(
    study_path: str,
    *,
    limit: int | None = None,
    compute: str | None = None,
    ray_address: str | None = None,
    corpus_shards: int | None = None,
    target: str | None = None,
    build_site: bool = True,
) -> Path | None:
    """Run a study end to end and return the dashboard site's index page (``build_site=False``: no site, None).

    The run records its resolved parameters (``raw.run_parameters``) and the source
    versions it read (``raw.run_inputs``); run-keyed marts compute only runs they do not
    hold yet, so nothing this run does changes an earlier run's results. Stage wall times
    are printed and stored with the run (``raw.runs.stage_seconds``). The dbt builds
    select the models the study's steps declare (or ``[study] dbt_select``); the build
    before the jobs is skipped when no source and no model changed since it last ran.
    The whole run holds the warehouse's command lock (:mod:`biaswh.warehouse.database.command_lock`), so no
    other writing command can slip in between its stages. ``compute`` / ``ray_address``
    / ``corpus_shards`` override the study's ``[compute]`` table (:mod:`biaswh.compute.common.engine`).
    ``target``: where dbt builds (a target of ``dbt_project/profiles.yml``; None: the study's
    ``[compute] build_target``, else ``local``); a Spark target (``spark``, ``cluster``) builds the
    models on Spark and copies its marts into DuckDB (:mod:`biaswh.warehouse.spark.marts`);
    DuckDB builds the DuckDB-only models either way.
    """
    if target is not None:
        check_spark_target(target)
    with exclusive_command(f"biaswh run {study_path}"), build_process.serving():
        return _run_study(
            study_path,
            limit=limit,
            compute=compute,
            ray_address=ray_address,
            corpus_shards=corpus_shards,
            target=target,
            build_site=build_site,
        )


def run_studies(study_paths: list[str], *, build_site: bool = True, **options) -> Path | None:
    """Run each study of ``study_paths`` in turn with :func:`run_study`'s ``options``; return the site's index.

    One process for all: Python, the plugins and dbt's parsed project are loaded once, not once
    per study (`make demo` runs its seven studies so). Every config is checked before the first
    run starts, so a mistake in the last one costs no run; a study that fails stops the rest
    (the runs before it stay, as separate `biaswh run` calls would leave them). The site is
    drawn once, by the last study (or after the one that failed): a draw is the whole site.
    ``build_site=False`` (``biaswh run --no-site``): no study draws it, and the index is None.
    """
    if len(study_paths) == 1:
        return run_study(study_paths[0], build_site=build_site, **options)
    # One dbt process for every study, started before the configs are checked: it loads dbt (a
    # first run: parses the project) meanwhile. The command lock is held from here, so the
    # child's start-up writes nothing into a warehouse another command holds.
    with exclusive_command(f"biaswh run {' '.join(map(str, study_paths))}"), build_process.serving():
        if options.get("target") in (None, LOCAL_TARGET):
            start_dbt_process()
        load_plugins()
        for path in study_paths:
            load_study(path, limit=options.get("limit"), check_files=True)
        for n, path in enumerate(study_paths, start=1):
            print(f"== study {n}/{len(study_paths)}: {path}", flush=True)
            try:
                site = run_study(path, build_site=build_site and n == len(study_paths), **options)
            except Exception:
                if n > 1 and build_site:
                    with suppress(Exception):  # the study's own error is the one to tell
                        dashboards()
                raise
        return site


def _run_study(
    study_path: str,
    *,
    limit: int | None = None,
    compute: str | None = None,
    ray_address: str | None = None,
    corpus_shards: int | None = None,
    target: str | None = None,
    build_site: bool = True,
) -> Path | None:
    """Stages of :func:`run_study`, run while it holds the command lock."""
    started = time.perf_counter()
    if target in (None, LOCAL_TARGET):
        start_dbt_process()  # a study builds on DuckDB unless its config says otherwise: dbt loads meanwhile
    load_plugins(RUN_LAYERS)  # the dashboards' during the results build (or by dashboards())
    study = with_compute(
        load_study(study_path, limit=limit, check_files=True),
        engine=compute,
        address=ray_address,
        corpus_shards=corpus_shards,
    )
    if target is None:
        target = study_build_target(study)
        check_spark_target(target, where=f"{study.path} [compute] build_target =")
    return run_loaded_study(study, target=target, started=started, build_site=build_site, next_steps=True)[1]


def run_loaded_study(
    study,
    *,
    target: str = LOCAL_TARGET,
    started: float | None = None,
    build_site: bool = True,
    next_steps: bool = False,
) -> tuple[str, Path | None]:
    """The stages of a study run for a loaded, checked ``study``: (its run id, the site's index page).

    The caller holds the command lock and has loaded the plugins (``biaswh monitor`` runs a
    study whose settings carry the week it evaluates). ``build_site=False``: no dashboards
    (the index is None), and the queries to ask next only with ``next_steps`` (``biaswh run --no-site``).
    """
    started = time.perf_counter() if started is None else started
    run_id = open_study_run(study, target=target)
    stages: dict[str, float] = {"load plugins and config": time.perf_counter() - started}
    selections = build_selections(study)
    start_dbt_early(selections, target)  # dbt's start-up overlaps the run's own work

    def timed(stage: str, work) -> None:
        begin = time.perf_counter()
        detail = work()
        stages[stage] = stages.get(stage, 0.0) + time.perf_counter() - begin
        line = detail if isinstance(detail, str) else f"{stage}: {stages[stage]:.1f} s"
        print(f"[{study.name}] {line}", flush=True)

    def chain() -> None:
        timed("ingest", lambda: ingest_stage(study, run_id))
        if selections["sources"] != "":
            timed(
                "dbt build (sources)",
                lambda: selected_build(
                    selections["sources"], "sources", run_id=run_id, study_name=study.name, target=target
                ),
            )
        if study.jobs:
            timed("jobs", lambda: jobs_stage(study, run_id))
            if selections["results"] != "":
                # scipy.stats for the analysis (0.5 s: biaswh/warehouse/deferred_modules.py) and the dashboards' modules
                with loading_in_background(("dashboards",) if build_site else (), deferred=bool(study.analysis)):
                    timed(
                        "dbt build (results)",
                        lambda: selected_build(
                            selections["results"], "results", run_id=run_id, study_name=study.name, target=target
                        ),
                    )
        timed("analysis", lambda: analysis_stage(study, run_id))

    # A failed run's results leave the marts before it is marked failed (biaswh/withdrawal.py).
    # LLM calls of its steps (generation, conversion, the recommendation runner) go where its
    # [compute] engine says; Ray starts only if one is actually sent.
    # So do WEAT's template sentences a sentence encoder lacks in the embedding cache.
    from biaswh.ingest.common.llm.batch import chat_pool_for_calls  # the HTTP client only for a study run

    def record_stages(con) -> None:  # without a site: in the open that marks the run succeeded
        stages["total"] = time.perf_counter() - started
        con.execute("update raw.runs set stage_seconds = ? where run_id = ?", [json.dumps(stages), run_id])

    engine = compute_settings(study.settings)
    with chat_pool_for_calls(lambda: chat_pool(engine)), sentence_encoding(engine):
        _finish_or_fail(run_id, lambda: withdrawn_if_failing(run_id, chain), then=None if build_site else record_stages)
    index = None
    if build_site:
        begin = time.perf_counter()
        index = dashboards() / "index.html"
        stages["dashboards"] = time.perf_counter() - begin
        with open_warehouse() as con:
            record_stages(con)
    drawn = f"dashboards: {stages['dashboards']:.1f} s" if build_site else "dashboards: not drawn"
    print(f"[{study.name}] {drawn}; total {stages['total']:.1f} s", flush=True)
    if build_site or next_steps:
        print_next_steps(study, run_id, site=build_site)
    return run_id, index
