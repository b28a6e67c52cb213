"""Study configs (TOML) and the chain that runs one: ingest, build, jobs, analyse, dashboards.

A study config names its sources under ``[[ingest]]`` and the Python jobs that run
between dbt builds (e.g. retrieval) under ``jobs``; each study family registers its jobs in
``STUDY_JOBS``. Paths in a config resolve relative to the config file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from biaswh.warehouse.dbt_build.selection import StepDeclaration, declared_relations, family_of, study_selections
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.parameters import parameter_defaults, resolve_parameters
from biaswh.warehouse.settings.config_schema import Table
from biaswh.warehouse.settings.study_schema import INGEST_SOURCES, config_problems, ingest_step, suggestion

# name -> callable(con, study, run) run after the first `dbt build` (reads marts, writes raw).
STUDY_JOBS: dict[str, Callable] = {}
# name -> callable(con, study, run) run after the final `dbt build` (reads marts, writes analysis).
ANALYSIS_STEPS: dict[str, Callable] = {}
# name -> callable(study) run by load_study before any work: it raises UserError when its family's
# values do not make sense together (an unknown retriever or metric, k beyond the depth).
CONFIG_CHECKS: dict[str, Callable] = {}


@dataclass(frozen=True)
class Study:
    """A parsed study config."""

    path: Path
    name: str
    seed: int
    ingest: list[dict]
    jobs: list[str]
    analysis: list[str]
    settings: dict = field(default_factory=dict)
    limit: int | None = None
    dbt_select: str | dict | None = None
    run_parameters: dict = field(default_factory=dict)
    data: str | None = None  # "real", "synthetic" or "demo" (warehouse/runs/data_kind.py); None: inferred
    description: str = ""

    def resolve(self, relative: str) -> str:
        """Resolve a path from the config relative to the config's folder (``hf:`` ids pass through)."""
        if relative.startswith("hf:"):
            return relative
        return str((self.path.parent / relative).resolve())

    def parameters(self) -> dict:
        return {
            "config": str(self.path),
            "name": self.name,
            "seed": self.seed,
            "ingest": self.ingest,
            "jobs": self.jobs,
            "analysis": self.analysis,
            "settings": self.settings,
            "limit": self.limit,
            "dbt_select": self.dbt_select,
            "run_parameters": self.run_parameters,
            "data": self.data,
            "description": self.description,
        }


def load_study(
    path: str | Path, *, limit: int | None = None, check_steps: bool = True, check_files: bool = False
) -> Study:
    """Parse and check a study TOML file, whole, before any work; every mistake is reported at once.

    Every table, key, type and range is checked against :mod:`biaswh.warehouse.settings.study_schema`, then the
    ``[parameters]``, the step names (``check_steps``: jobs, analysis steps, ingest sources and
    family tables must be registered: load the plugins first)
    and each registered config check (:data:`CONFIG_CHECKS`) on the values that passed. A
    :class:`UserError` lists every problem found, one line each, with the key's path and a
    did-you-mean. ``check_files``: every input file the config names must exist (a run checks
    this; re-analysing or peeking reads the warehouse, not the files).
    """
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise UserError(f"{path}: no such study config")
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid TOML ({exc})") from None
    problems, cleaned = config_problems(path, config, check_sources=check_steps, check_files=check_files)
    head = cleaned.get("study", {})
    if check_steps:
        problems += [
            f"{path}: [study] {key}: unknown {kind} {name!r}{suggestion(name, registry)}; known: {', '.join(registry)}"
            for key, kind, registry in (("jobs", "job", STUDY_JOBS), ("analysis", "analysis step", ANALYSIS_STEPS))
            for name in head.get(key, [])
            if name not in registry
        ]
    if "parameters" in config and "dbt_vars" in config:
        problems.append(f"{path}: [dbt_vars] is the older spelling of [parameters]; keep only [parameters]")
    try:
        overrides = cleaned.get("parameters", cleaned.get("dbt_vars")) or {}
        run_parameters = resolve_parameters(overrides, where=f"{path}: [parameters]")
    except UserError as exc:
        problems += str(exc).splitlines()
        run_parameters = parameter_defaults()
    # the verdict policy's alpha, recorded with the run so its SQL verdicts (recsys) read the same level
    alpha = (cleaned.get("verdicts") or {}).get("alpha", run_parameters["verdicts_alpha"])
    run_parameters = {**run_parameters, "verdicts_alpha": float(alpha)}
    if "name" in head and "seed" in head:
        draft = _study(path, cleaned, limit=limit, run_parameters=run_parameters)
        problems += [problem for check in CONFIG_CHECKS.values() for problem in _check(check, draft)]
    if problems:
        raise UserError("\n".join(dict.fromkeys(problems)))
    return _study(path, config, limit=limit, run_parameters=run_parameters)


def check_study(study: Study) -> None:
    """Run every registered config check on ``study`` again (e.g. after the command line changed its
    ``[compute]`` table); raise one :class:`UserError` naming every problem."""
    problems = [problem for check in CONFIG_CHECKS.values() for problem in _check(check, study)]
    if problems:
        raise UserError("\n".join(dict.fromkeys(problems)))


def _check(check: Callable, study: Study) -> list[str]:
    """The problem a config check finds (as ``<config>: ...`` lines), or none."""
    try:
        check(study)
    except UserError as exc:
        return [line if line.startswith(str(study.path)) else f"{study.path}: {line}" for line in str(exc).splitlines()]
    return []


def _study(path: Path, config: dict, *, limit: int | None, run_parameters: dict) -> Study:
    study = config["study"]
    return Study(
        path=path,
        name=study["name"],
        seed=study["seed"],
        ingest=config.get("ingest", []),
        jobs=list(study.get("jobs", [])),
        analysis=list(study.get("analysis", [])),
        settings={k: v for k, v in config.items() if k not in ("study", "ingest", "parameters", "dbt_vars")},
        limit=limit,
        dbt_select=study.get("dbt_select"),
        run_parameters=run_parameters,
        data=study.get("data"),
        description=study.get("description", ""),
    )


def register_config_check(name: str):
    """Decorator: ``fn(study)`` checks what a family's settings mean together, before any work.

    It raises :class:`UserError` (its lines are prefixed with the config's path when they do not
    name it). It sees only values that passed the schema (a value that failed is absent).
    """

    def decorate(fn: Callable) -> Callable:
        CONFIG_CHECKS[name] = fn
        return fn

    return decorate


# source name -> callable(con, study, step): the ingest sources the families register.
STUDY_INGESTERS: dict[str, Callable] = {}


# step name -> the headline query a finished run prints (``{run}`` is the run id).
FIRST_QUERIES: dict[str, str] = {}
# study family (its dbt tag) -> a run-keyed mart every run of it fills (``biaswh rebuild``).
REBUILD_TABLES: dict[str, str] = {}

# (job | analysis, step name) -> what the step declares (warehouse/dbt_build/selection.py).
STEP_DECLARATIONS: dict[tuple[str, str], StepDeclaration] = {}


def register_job(
    name: str,
    *,
    writes: tuple[str, ...] = (),
    reads: tuple[str, ...] = (),
    first_query: str | None = None,
):
    """Decorator: a study job ``fn(con, study, run_id)`` run between the two dbt builds.

    ``writes``: the raw tables it writes (``raw.retrieval_results``); the build after the jobs
    selects what dbt derives from them for the study's families. ``reads``: the relations it
    reads (``marts.fct_query_variants``), built with their ancestors before it runs. The job's
    family is the folder it is registered from (:mod:`biaswh.warehouse.dbt_build.selection`).
    ``first_query``: the headline query printed after a run (``{run}``: the run id).
    """
    writes = declared_relations(writes, kind=f"job {name}: writes", schemas=("raw",))
    reads = declared_relations(reads, kind=f"job {name}: reads", schemas=("staging", "marts"))

    def decorate(fn: Callable) -> Callable:
        STUDY_JOBS[name] = fn
        STEP_DECLARATIONS[("job", name)] = StepDeclaration(family_of(fn.__module__), writes, reads)
        if first_query is not None:
            FIRST_QUERIES[name] = first_query
        return fn

    return decorate


def register_analysis(name: str, *, first_query: str | None = None):
    """Decorator: an analysis step ``fn(con, study, run_id)`` run after the final dbt build.

    It reads the models of its family (the folder it is registered from), which the study's
    builds select by the family's dbt tag. ``first_query``: the headline query printed after
    a run (``{run}``: the run id).
    """

    def decorate(fn: Callable) -> Callable:
        ANALYSIS_STEPS[name] = fn
        STEP_DECLARATIONS[("analysis", name)] = StepDeclaration(family_of(fn.__module__))
        if first_query is not None:
            FIRST_QUERIES[name] = first_query
        return fn

    return decorate


def register_rebuild_table(family: str, table: str) -> None:
    """Declare the run-keyed mart that tells ``biaswh rebuild`` a run belongs to ``family``.

    Parameters
    ----------
    family : the study family; ``biaswh rebuild`` selects the run-keyed models of its dbt tag.
    table : a run-keyed mart of that family which every run of the family fills.
    """
    REBUILD_TABLES[family] = table


def build_selections(study: "Study") -> dict[str, str | None]:
    """The dbt selectors of a study's two builds: ``[study] dbt_select``, else derived from its steps.

    ``None`` means the whole project (a study whose steps declare nothing); ``""`` no build.
    """
    if study.dbt_select is not None:
        chosen = study.dbt_select
        if isinstance(chosen, dict):
            return {"sources": chosen.get("sources"), "results": chosen.get("results")}
        return {"sources": chosen, "results": chosen}
    return study_selections(
        [STEP_DECLARATIONS[("job", name)] for name in study.jobs if ("job", name) in STEP_DECLARATIONS],
        [STEP_DECLARATIONS[("analysis", name)] for name in study.analysis if ("analysis", name) in STEP_DECLARATIONS],
    )


def register_ingester(source: str, *, options: Table | None = None):
    """Decorator: an ``[[ingest]] source = ...`` handler ``fn(con, study, step) -> IngestResult``.

    ``options``: the step's keys (:func:`biaswh.warehouse.settings.study_schema.ingest_step`), checked before
    any work; a source registered without them is checked for ``source`` and ``path`` only.
    """

    def decorate(fn: Callable) -> Callable:
        STUDY_INGESTERS[source] = fn
        INGEST_SOURCES[source] = options if options is not None else ingest_step({})
        return fn

    return decorate
