"""Study configs (TOML) and the chain that runs one: ingest, build, jobs, analyse, dashboards.

A study config names its sources under ``[[ingest]]`` and the Python jobs that run
between dbt builds (e.g. retrieval) under ``jobs``; later issues register more jobs in
``STUDY_JOBS``. Paths in a config resolve relative to the config file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from warehouse.errors import UserError
from warehouse.run_parameters import resolve_parameters
from warehouse.study_schema import check_config, suggestion

# name -> callable(con, study, run) run after the first `dbt build` (reads marts, writes raw).
STUDY_JOBS: dict[str, Callable] = {}
# name -> callable(con, study, run) run after the final `dbt build` (reads marts, writes analysis).
ANALYSIS_STEPS: dict[str, Callable] = {}


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
        }


def load_study(path: str | Path, *, limit: int | None = None, check_steps: bool = True) -> Study:
    """Parse and check a study TOML file (``check_steps``: its jobs and steps must be registered).

    Every table, key and type is checked against :mod:`warehouse.study_schema` first.
    """
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise UserError(f"{path}: no such study config")
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid TOML ({exc})") from None
    check_config(path, config)
    study = config["study"]
    unknown = [j + suggestion(j, STUDY_JOBS) for j in study.get("jobs", []) if j not in STUDY_JOBS]
    unknown += [a + suggestion(a, ANALYSIS_STEPS) for a in study.get("analysis", []) if a not in ANALYSIS_STEPS]
    if unknown and check_steps:
        raise UserError(f"{path}: unknown job or analysis step(s): {', '.join(unknown)}")
    if "parameters" in config and "dbt_vars" in config:
        raise UserError(f"{path}: [dbt_vars] is the older spelling of [parameters]; keep only [parameters]")
    overrides = config.get("parameters", config.get("dbt_vars")) or {}
    run_parameters = resolve_parameters(overrides, where=f"{path}: [parameters]")
    settings = {k: v for k, v in config.items() if k not in ("study", "ingest", "parameters", "dbt_vars")}
    return Study(
        path=path,
        name=study["name"],
        seed=study["seed"],
        ingest=config.get("ingest", []),
        jobs=list(study.get("jobs", [])),
        analysis=list(study.get("analysis", [])),
        settings=settings,
        limit=limit,
        dbt_select=study.get("dbt_select"),
        run_parameters=run_parameters,
    )


# source name -> callable(con, study, step) for ingest sources added by later issues.
STUDY_INGESTERS: dict[str, Callable] = {}


# (job | analysis, step name) -> (dbt selector built before the jobs, dbt selector built after them).
STEP_SELECTIONS: dict[tuple[str, str], tuple[str | None, str | None]] = {}


def register_job(name: str, *, before: str | None = None, after: str | None = None):
    """Decorator: a study job ``fn(con, study, run_id)`` run between the two dbt builds.

    ``before``: the dbt models the job reads (built before it runs); ``after``: the models
    that turn its raw output into marts (built after it). Both are dbt selectors.
    """

    def decorate(fn: Callable) -> Callable:
        STUDY_JOBS[name] = fn
        STEP_SELECTIONS[("job", name)] = (before, after)
        return fn

    return decorate


def register_analysis(name: str, *, before: str | None = None):
    """Decorator: an analysis step ``fn(con, study, run_id)`` run after the final dbt build.

    ``before``: dbt models the step reads that no job of its study builds (a dbt selector).
    """

    def decorate(fn: Callable) -> Callable:
        ANALYSIS_STEPS[name] = fn
        STEP_SELECTIONS[("analysis", name)] = (before, None)
        return fn

    return decorate


def build_selections(study: "Study") -> dict[str, str | None]:
    """The dbt selectors of a study's two builds: ``[study] dbt_select``, else its steps' own.

    ``None`` means the whole project (a study whose steps declare nothing).
    """
    if study.dbt_select is not None:
        chosen = study.dbt_select
        if isinstance(chosen, dict):
            return {"sources": chosen.get("sources"), "results": chosen.get("results")}
        return {"sources": chosen, "results": chosen}
    steps = [STEP_SELECTIONS.get(("job", name), (None, None)) for name in study.jobs]
    steps += [STEP_SELECTIONS.get(("analysis", name), (None, None)) for name in study.analysis]
    before = " ".join(dict.fromkeys(b for b, _ in steps if b))
    after = " ".join(dict.fromkeys(a for _, a in steps if a))
    if not before and not after:
        return {"sources": None, "results": None}
    return {"sources": before or "", "results": after or ""}


def register_ingester(source: str):
    """Decorator: an ``[[ingest]] source = ...`` handler ``fn(con, study, step) -> IngestResult``."""

    def decorate(fn: Callable) -> Callable:
        STUDY_INGESTERS[source] = fn
        return fn

    return decorate
