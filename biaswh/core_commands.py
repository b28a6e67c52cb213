"""The commands every warehouse has, whatever its study families hold.

``ingest`` (whose sources the families register), ``build``, ``rebuild``, ``analyze``,
``dashboards``, ``export``, ``run``, ``sql`` and ``shell``; each imports what it needs when it
runs, so ``--help`` answers at once. ``biaswh diff`` registers in :mod:`biaswh.diff_cli`.
"""

from __future__ import annotations

from biaswh.arguments import build_target, number, ray_address
from biaswh.cli_help import BUILD_EPILOG, NO_SITE_HELP
from biaswh.command_registry import register_command, register_command_group
from biaswh.output_options import register_output_options
from biaswh.warehouse.settings.config_schema import POSITIVE_INTEGER

register_command_group(
    "ingest", summary="load a source into the raw schema", order=10, dest="source", metavar="SOURCE", writes=True
)


def _build_arguments(build) -> None:
    build.epilog = BUILD_EPILOG
    build.add_argument("-v", "--verbose", action="store_true", help="show dbt's own output")


@register_command(
    "build",
    summary="run `dbt build` (models, data tests, unit tests)",
    arguments=_build_arguments,
    order=20,
    writes=True,
    passes_on=True,
)
def build(args) -> None:
    """``biaswh build``: ``dbt build`` with the arguments given after the command's own."""
    from biaswh import pipeline  # at call time: the fault tests replace pipeline.dbt_build

    print(pipeline.dbt_build(args.passed_on, quiet=not args.verbose).line)


@register_command(
    "rebuild",
    summary="recompute one run's rows in every run-keyed mart, on purpose",
    arguments=lambda rebuild: rebuild.add_argument("--run", required=True, help="the run_id (see dim_runs)"),
    order=30,
    writes=True,
)
def rebuild(args) -> None:
    """``biaswh rebuild --run RUN``: recompute that run's rows of every run-keyed mart."""
    from biaswh.rebuild import rebuild_run

    print(rebuild_run(args.run).line)


def _analyze_arguments(analyze) -> None:
    analyze.add_argument("study", help="study config (TOML)")
    analyze.add_argument("--run", help="the study run to analyse (default: the study's latest succeeded run)")


@register_command(
    "analyze",
    summary="run a study's analysis steps on the built marts",
    arguments=_analyze_arguments,
    order=40,
    writes=True,
)
def analyze(args) -> None:
    """``biaswh analyze STUDY``: its analysis steps on one of its runs."""
    from biaswh import reanalysis

    print(f"analysed study run {reanalysis.analyze(args.study, run_id=args.run)}")


register_output_options("dashboards", "out", folder=True)
register_output_options("export", "out", folder=True)
register_output_options("sql", "out", creates_folder=False)


@register_command(
    "dashboards",
    summary="write the static dashboard site",
    arguments=lambda site: site.add_argument("--out", help="output folder (default: $BIASWH_HOME/site)"),
    order=50,
)
def dashboards(args) -> None:
    """``biaswh dashboards``: write the site."""
    from biaswh import pipeline

    print(f"dashboard site: {pipeline.dashboards(args.out)}")


def _export_arguments(export) -> None:
    export.add_argument("study", help="the study: its config (TOML) or its name")
    export.add_argument("--run", help="the study run (default: the study's latest succeeded run)")
    export.add_argument(
        "--format",
        required=True,
        choices=("csv", "parquet", "latex", "markdown"),
        dest="export_format",
        help="csv/parquet: the stored values; latex/markdown: the page's tables for a paper",
    )
    export.add_argument("--out", default="exports", help="output folder (default: ./exports)")


@register_command(
    "export",
    summary="write a study run's page tables: csv/parquet (stored values), latex/markdown (for papers)",
    arguments=_export_arguments,
    order=60,
)
def export(args) -> None:
    """``biaswh export STUDY --format F``: a study run's page tables as files."""
    from biaswh import pipeline

    print(pipeline.export(args.study, run_id=args.run, output_format=args.export_format, out=args.out).line)


def _run_arguments(run) -> None:
    run.add_argument(
        "study", nargs="+", help="study config(s) (TOML); several run in turn in this one process, like `make demo`"
    )
    run.add_argument("--limit", type=number(POSITIVE_INTEGER), help="only the first N pairs/queries: a quick dry run")
    run.add_argument(
        "--compute", choices=("local", "ray"), help="where the compute jobs run (default: the study's [compute] engine)"
    )
    run.add_argument(
        "--target",
        type=build_target,
        help="where dbt builds the models: local (DuckDB), spark (dbt-spark in this process) or cluster (a Spark"
        " Thrift server at BIASWH_SPARK_HOST/PORT); default: the study's [compute] build_target, else local",
    )
    run.add_argument(
        "--ray-address", type=ray_address, help="Ray cluster to use: auto, or ray://host:10001 (implies --compute ray)"
    )
    run.add_argument(
        "--corpus-shards",
        type=number(POSITIVE_INTEGER),
        help="with Ray: retrieve over N corpus shards, one per worker, merged exactly ([compute] corpus_shards)",
    )
    # dest: not an output option (tests/hostile/test_output_guard.py guards every dest naming a site)
    run.add_argument("--no-site", action="store_false", dest="dashboards", help=NO_SITE_HELP)


@register_command(
    "run",
    summary="run a study end to end: ingest, build, jobs, analyze, dashboards",
    arguments=_run_arguments,
    order=70,
    writes=True,
)
def run(args) -> None:
    """``biaswh run STUDY...``: each study end to end, in turn."""
    from biaswh.warehouse.dbt_build import build_process
    from biaswh.warehouse.spark.targets import LOCAL_TARGET

    with build_process.serving():
        if args.target in (None, LOCAL_TARGET):
            # Before the run's own modules load (0.17 s of CPU): dbt's process loads meanwhile, and
            # its results build waits less for it.
            build_process.start()
        from biaswh import pipeline
        from biaswh.run_outcome import SITE_NOT_REDRAWN

        options = dict(
            limit=args.limit,
            compute=args.compute,
            ray_address=args.ray_address,
            corpus_shards=args.corpus_shards,
            target=args.target,
        )
        index = pipeline.run_studies(args.study, build_site=args.dashboards, **options)
    print(f"dashboard site: {index}" if args.dashboards else SITE_NOT_REDRAWN)


def _sql_arguments(sql) -> None:
    sql.add_argument("query", help="one SQL statement; unqualified names resolve through marts, analysis, ..., raw")
    sql.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        default="table",
        help="output: an aligned table with rounded numbers (default), csv, json, or parquet (needs --out)",
    )
    sql.add_argument("--csv", action="store_true", help="same as --format csv")
    sql.add_argument("--out", help="write the result to this file instead of the terminal")


@register_command(
    "sql",
    summary="run ad hoc SQL against the warehouse (read-only)",
    arguments=_sql_arguments,
    order=130,
)
def sql(args) -> None:
    """``biaswh sql QUERY``: one read-only statement (never loads dbt or the pipeline)."""
    from biaswh import adhoc_sql

    adhoc_sql.print_sql(args.query, output_format="csv" if args.csv else args.format, out=args.out)


@register_command("shell", summary="an interactive read-only SQL prompt on the warehouse", order=140)
def shell(args) -> None:
    """``biaswh shell``: the interactive read-only prompt."""
    from biaswh import sql_shell

    sql_shell.shell()
