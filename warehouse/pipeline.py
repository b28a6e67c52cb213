"""The stages the CLI chains, each usable on its own from Python too."""

from __future__ import annotations

import csv
import importlib
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from warehouse.connection import open_sandbox, open_warehouse
from warehouse.errors import UserError
from warehouse.processes import DIE_WITH_PARENT
from warehouse.runs import latest_succeeded_study_run, start_run
from warehouse.settings import DBT_PROJECT_DIR, HOME_VARIABLE, warehouse_paths
from warehouse.study import ANALYSIS_STEPS, STUDY_INGESTERS, STUDY_JOBS, load_study

# Packages whose every module registers study jobs, analysis steps or dashboard pages on
# import: add a module there (e.g. analysis/steps/weat.py), never a line here.
PLUGIN_PACKAGES: tuple[str, ...] = ("ingest.jobs", "analysis.steps", "dashboards.pages")
# Ad hoc SQL sees every layer without schema prefixes (marts first).
SEARCH_PATH = "marts,analysis,intermediate,staging,raw,main"


def load_plugins() -> None:
    """Import every module of the plugin packages so their registrations take effect."""
    for package_name in PLUGIN_PACKAGES:
        package = importlib.import_module(package_name)
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package_name}.{module.name}")


def ingest_squad(source: str, *, split: str = "train"):
    from ingest.squad import load_squad

    with open_warehouse() as con:
        return load_squad(con, source, split=split)


def ingest_pairs(path: str, **options):
    from ingest.pairs import load_pairs

    with open_warehouse() as con:
        return load_pairs(con, path, **{k: v for k, v in options.items() if v is not None})


def ingest_word_vectors(path: str, **options):
    from ingest.word_vectors import load_word_vectors

    with open_warehouse() as con:
        return load_word_vectors(con, path, **{k: v for k, v in options.items() if v is not None})


def ingest_weat_tests(path: str, *, name: str | None = None):
    from ingest.weat_tests import load_weat_tests

    with open_warehouse() as con:
        return load_weat_tests(con, path, name=name)


def generate_answers(args):
    """``biaswh generate``: answer vignettes through an OpenAI-compatible endpoint (see ingest/generation.py)."""
    from ingest.generation import DEFAULT_PROMPT_TEMPLATE, GenerationSettings, generate

    template = DEFAULT_PROMPT_TEMPLATE
    if args.template_file:
        try:
            template = Path(args.template_file).read_text(encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{args.template_file}: cannot read the prompt template ({exc.strerror})") from None
    settings = GenerationSettings(
        model=args.model, base_url=args.base_url, api_key_env=args.api_key_env, prompt_template=template,
        temperature=args.temperature, top_p=args.top_p, max_tokens=args.max_tokens, seed=args.seed,
        concurrency=args.concurrency, max_retries=args.max_retries, backoff_seconds=args.backoff,
        timeout_seconds=args.timeout)
    return generate(args.vignettes, args.out, settings, limit=args.limit)


def _dbt_executable() -> str:
    beside_python = Path(sys.executable).parent / "dbt"
    found = str(beside_python) if beside_python.exists() else shutil.which("dbt")
    if not found:
        raise UserError("dbt is not installed in this environment: run `make setup`")
    return found


def dbt_build(extra_args: list[str] | None = None) -> None:
    """Run ``dbt build`` on the warehouse named by ``BIASWH_HOME``; raise if anything fails."""
    paths = warehouse_paths()
    paths.home.mkdir(parents=True, exist_ok=True)
    with open_warehouse():
        pass  # creates the raw schema on a new warehouse, and fails fast with "busy"
    env = {**os.environ, HOME_VARIABLE: str(paths.home)}
    command = [_dbt_executable(), "build", "--project-dir", str(DBT_PROJECT_DIR),
               "--profiles-dir", str(DBT_PROJECT_DIR), *(extra_args or [])]
    completed = subprocess.run(command, env=env, cwd=DBT_PROJECT_DIR, preexec_fn=DIE_WITH_PARENT)
    if completed.returncode != 0:
        raise UserError(f"dbt build failed (exit {completed.returncode}): see dbt's output above")


def dashboards(out: str | None = None) -> Path:
    from dashboards.site import build_site

    load_plugins()
    out_dir = Path(out).resolve() if out else warehouse_paths().site_dir
    with open_warehouse(read_only=True) as con:
        return build_site(con, out_dir)


def _ingest_step(con, study, step: dict):
    from ingest.pairs import load_pairs
    from ingest.squad import load_squad

    options = {k: v for k, v in step.items() if k not in ("source", "path")}
    if step["source"] == "squad":
        return load_squad(con, study.resolve(step["path"]), **options)
    if step["source"] == "pairs":
        return load_pairs(con, study.resolve(step["path"]), **options)
    return STUDY_INGESTERS[step["source"]](con, study, step)


def _run_registered(study, run_id: str, names: list[str], registry: dict) -> None:
    for name in names:
        print(f"[{study.name}] {name}", flush=True)
        with open_warehouse() as con:
            registry[name](con, study, run_id)


def analyze(study_path: str, *, run_id: str | None = None) -> str:
    """Re-run a study's analysis steps on the current marts for one of its study runs.

    The steps analyse the study run ``run_id`` (default: the study's latest succeeded run); the
    re-analysis itself is recorded as a run of kind ``analysis`` naming that target.
    """
    load_plugins()
    study = load_study(study_path)
    with open_warehouse() as con:
        target = run_id
        if target is None:
            target, finished_at = latest_succeeded_study_run(con, study)
            print(f"[{study.name}] analysing study run {target}, the latest that succeeded"
                  f" (finished {finished_at:%Y-%m-%d %H:%M:%S} UTC)", flush=True)
        analysis_run = start_run(con, kind="analysis", name=study.name,
                                 parameters={**study.parameters(), "target_run_id": target}).run_id
    _finish_or_fail(analysis_run, lambda: _run_registered(study, target, study.analysis, ANALYSIS_STEPS))
    return target


def _finish_or_fail(run_id: str, work) -> None:
    """Run ``work``; mark the run succeeded, or failed with the error's message (then re-raise)."""
    try:
        work()
    except BaseException as exc:
        with open_warehouse() as con:
            con.execute("update raw.runs set status = 'failed', finished_at = now(), message = ?"
                        " where run_id = ?", [str(exc)[:2000] or type(exc).__name__, run_id])
        raise
    with open_warehouse() as con:
        con.execute("update raw.runs set status = 'succeeded', finished_at = now() where run_id = ?", [run_id])


def run_study(study_path: str, *, limit: int | None = None) -> Path:
    """Run a study end to end and return the dashboard site's index page.

    Stage wall times are printed and stored with the study run (``raw.runs.stage_seconds``).
    A study may restrict its dbt builds to the models it needs with ``[study] dbt_select``:
    one selector for both builds, or ``{sources = "...", results = "..."}`` for the build
    before its jobs and the build after them.
    """
    started = time.perf_counter()
    load_plugins()
    study = load_study(study_path, limit=limit)
    with open_warehouse() as con:
        run_id = start_run(con, kind="study", name=study.name, parameters=study.parameters()).run_id
    stages: dict[str, float] = {"load plugins and config": time.perf_counter() - started}
    dbt_args = ["--vars", json.dumps(study.settings["dbt_vars"])] if study.settings.get("dbt_vars") else []
    select = study.dbt_select if isinstance(study.dbt_select, dict) else {"sources": study.dbt_select,
                                                                          "results": study.dbt_select}
    # Cautious: a test runs only when every model it reads was selected (and so exists).
    sources_args = dbt_args + (["--select", select["sources"], "--indirect-selection", "cautious"]
                               if select.get("sources") else [])
    results_args = dbt_args + (["--select", select["results"], "--indirect-selection", "cautious"]
                               if select.get("results") else [])

    def timed(stage: str, work) -> None:
        begin = time.perf_counter()
        work()
        stages[stage] = stages.get(stage, 0.0) + time.perf_counter() - begin
        print(f"[{study.name}] {stage}: {stages[stage]:.1f} s", flush=True)

    def ingest() -> None:
        with open_warehouse() as con:
            for step in study.ingest:
                print(f"[{study.name}] {_ingest_step(con, study, step).message}", flush=True)

    def chain() -> None:
        timed("ingest", ingest)
        timed("dbt build (sources)", lambda: dbt_build(sources_args))
        if study.jobs:
            timed("jobs", lambda: _run_registered(study, run_id, study.jobs, STUDY_JOBS))
            timed("dbt build (results)", lambda: dbt_build(results_args))
        timed("analysis", lambda: _run_registered(study, run_id, study.analysis, ANALYSIS_STEPS))

    _finish_or_fail(run_id, chain)
    begin = time.perf_counter()
    index = dashboards() / "index.html"
    stages["dashboards"] = time.perf_counter() - begin
    stages["total"] = time.perf_counter() - started
    print(f"[{study.name}] dashboards: {stages['dashboards']:.1f} s; total {stages['total']:.1f} s", flush=True)
    with open_warehouse() as con:
        con.execute("update raw.runs set stage_seconds = ? where run_id = ?", [json.dumps(stages), run_id])
    return index


def print_sql(query: str, *, as_csv: bool = False, max_rows: int = 200) -> None:
    """Run one query on a sandboxed read-only connection and print a table (or CSV) to stdout.

    The sandbox (:func:`warehouse.connection.open_sandbox`) is DuckDB's own: the query cannot
    write, read other files, attach databases, install or load extensions, or change settings.
    """
    if not query.strip():
        raise UserError("sql: the query is empty; pass one SQL statement, e.g. \"select * from dim_runs\"")
    with open_sandbox(SEARCH_PATH.split(",")) as con:
        try:
            relation = con.execute(query)
            if relation is None:
                raise UserError("sql: the query holds no statement")
            if relation.description is None:
                return
            columns = [d[0] for d in relation.description]
            rows = relation.fetchall()
        except duckdb.Error as exc:
            hint = (" (biaswh sql cannot write, read other files, attach databases, install or load extensions,"
                    " or change settings)") if isinstance(exc, duckdb.PermissionException) else ""
            raise UserError(f"SQL error: {str(exc).splitlines()[0]}{hint}") from None
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        # Booleans as SQL spells them, NULL as an empty field (as DuckDB's own CSV writer does).
        writer.writerows([["true" if v is True else "false" if v is False else v for v in row] for row in rows])
        return
    print(_format_table(columns, rows, max_rows=max_rows))


def _format_table(columns: list[str], rows: list[tuple], *, max_rows: int, max_width: int = 60) -> str:
    def cell(value) -> str:
        text = "NULL" if value is None else str(value)
        text = text.replace("\n", " ")
        return text if len(text) <= max_width else text[: max_width - 1] + "…"

    shown = [[cell(v) for v in row] for row in rows[:max_rows]]
    widths = [max([len(c)] + [len(r[i]) for r in shown]) for i, c in enumerate(columns)]
    line = lambda values: " | ".join(v.ljust(w) for v, w in zip(values, widths))  # noqa: E731
    out = [line(columns), "-+-".join("-" * w for w in widths), *(line(r) for r in shown)]
    more = f" (showing {max_rows})" if len(rows) > max_rows else ""
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''}{more})")
    return "\n".join(out)
