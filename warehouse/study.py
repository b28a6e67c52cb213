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

    def resolve(self, relative: str) -> str:
        """Resolve a path from the config relative to the config's folder (``hf:`` ids pass through)."""
        if relative.startswith("hf:"):
            return relative
        return str((self.path.parent / relative).resolve())

    def parameters(self) -> dict:
        return {"config": str(self.path), "name": self.name, "seed": self.seed, "ingest": self.ingest,
                "jobs": self.jobs, "analysis": self.analysis, "settings": self.settings, "limit": self.limit,
                "dbt_select": self.dbt_select}


def load_study(path: str | Path, *, limit: int | None = None, check_steps: bool = True) -> Study:
    """Parse and check a study TOML file (``check_steps``: its jobs and steps must be registered)."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise UserError(f"{path}: no such study config")
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid TOML ({exc})") from None
    study = config.get("study", {})
    if "name" not in study or "seed" not in study:
        raise UserError(f"{path}: [study] needs a name and a seed")
    if not isinstance(study["seed"], int) or isinstance(study["seed"], bool):
        # every random step derives from this seed: a truncated 1.9 would silently be another study
        raise UserError(f"{path}: [study] seed must be an integer, got {study['seed']!r}")
    for number, step in enumerate(config.get("ingest", []), start=1):
        if check_steps and step.get("source") not in ("squad", "pairs") and step.get("source") not in STUDY_INGESTERS:
            raise UserError(f"{path}: [[ingest]] #{number} has unknown source {step.get('source')!r}")
        if "path" not in step:
            raise UserError(f"{path}: [[ingest]] #{number} needs a path")
    unknown = [j for j in study.get("jobs", []) if j not in STUDY_JOBS]
    unknown += [a for a in study.get("analysis", []) if a not in ANALYSIS_STEPS]
    if unknown and check_steps:
        raise UserError(f"{path}: unknown job or analysis step(s): {', '.join(unknown)}")
    settings = {k: v for k, v in config.items() if k not in ("study", "ingest")}
    return Study(path=path, name=study["name"], seed=study["seed"], ingest=config.get("ingest", []),
                 jobs=list(study.get("jobs", [])), analysis=list(study.get("analysis", [])),
                 settings=settings, limit=limit, dbt_select=study.get("dbt_select"))


# source name -> callable(con, study, step) for ingest sources added by later issues.
STUDY_INGESTERS: dict[str, Callable] = {}


def register_job(name: str):
    """Decorator: a study job ``fn(con, study, run_id)`` run between the two dbt builds."""
    def decorate(fn: Callable) -> Callable:
        STUDY_JOBS[name] = fn
        return fn
    return decorate


def register_analysis(name: str):
    """Decorator: an analysis step ``fn(con, study, run_id)`` run after the final dbt build."""
    def decorate(fn: Callable) -> Callable:
        ANALYSIS_STEPS[name] = fn
        return fn
    return decorate


def register_ingester(source: str):
    """Decorator: an ``[[ingest]] source = ...`` handler ``fn(con, study, step) -> IngestResult``."""
    def decorate(fn: Callable) -> Callable:
        STUDY_INGESTERS[source] = fn
        return fn
    return decorate
