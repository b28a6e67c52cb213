"""Per-run parameters and pinned inputs: what a study run's results depend on, recorded in ``raw``.

The documented defaults are dbt vars, each with a one-line comment: the kernel's in
``dbt_project/dbt_project.yml`` (the verdict policy's alpha), each family's where it lives, in
its ``<family>_run_parameter_defaults`` macro (:mod:`biaswh.warehouse.runs.family_vars`; dbt reads it
through the macro ``family_var``). Each family declares the ranges of its numeric parameters
with :func:`register_run_parameters`. A study overrides them in its ``[parameters]`` table
(``[dbt_vars]`` is read as an older spelling). At the start of a run the resolved set is
written to ``raw.run_parameters``; run-keyed models read it per run, so a later study, a
changed default or a plain ``dbt build`` never changes an earlier run's rows.
"""

from __future__ import annotations

import json
from functools import lru_cache

import duckdb
import yaml

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.family_vars import family_var_defaults
from biaswh.warehouse.settings.config_schema import NUMBER, OPEN_SHARE, Number, suggestion
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR

# dbt vars that steer a build rather than shape results.
BUILD_VARIABLES = frozenset({"rebuild_run_ids"})
# Run parameters a study sets elsewhere in its config, never in [parameters]: name -> where.
SET_ELSEWHERE = {"verdicts_alpha": "[verdicts] alpha"}
# Parameters that are gone: name -> what to write instead (families register theirs).
RETIRED: dict[str, str] = {}
# The range of each numeric run parameter (of each item, for lists); any other number must be finite.
# The verdict policy's is the kernel's; each family registers its own (register_run_parameters).
PARAMETER_RANGES: dict[str, Number] = {"verdicts_alpha": OPEN_SHARE}


def register_run_parameters(ranges: dict[str, Number] | None = None, *, retired: dict[str, str] | None = None) -> None:
    """Declare the checks of a family's run parameters (their defaults: its dbt macro, :mod:`.family_vars`).

    Parameters
    ----------
    ranges : the range of each numeric parameter (of each item, for a list); others must be finite.
    retired : parameters that are gone, each with what to write instead.
    """
    PARAMETER_RANGES.update(ranges or {})
    RETIRED.update(retired or {})


@lru_cache(maxsize=1)
def _kernel_defaults() -> dict:
    with open(DBT_PROJECT_DIR / "dbt_project.yml", encoding="utf-8") as handle:
        project = yaml.safe_load(handle)
    return {k: v for k, v in (project.get("vars") or {}).items() if k not in BUILD_VARIABLES}


def parameter_defaults() -> dict:
    """The documented default of every run parameter: the families' (their dbt macros), then the kernel's
    (dbt_project.yml ``vars``). A family's parameter that the kernel declares too is refused."""
    families, kernel = family_var_defaults(), _kernel_defaults()
    twice = sorted(set(families) & set(kernel))
    if twice:
        raise UserError(f"run parameter(s) {', '.join(twice)} declared by a family and in dbt_project.yml")
    return {**families, **kernel}


def _same_kind(default, value) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, (int, float)):
        return isinstance(value, (int, float)) and (isinstance(default, float) or isinstance(value, int))
    if isinstance(default, list):
        return isinstance(value, list) and all(_same_kind(default[0], v) for v in value) if default else True
    return isinstance(value, type(default))


def resolve_parameters(overrides: dict | None, *, where: str = "[parameters]") -> dict:
    """The defaults with a study's overrides applied; unknown names, wrong types and out-of-range
    numbers (NaN and infinities too) are refused, every one at once (one line each)."""
    defaults = parameter_defaults()
    overrides = dict(overrides or {})
    problems = [
        f"{where} {name}: set {instead} instead"
        for name, instead in {**SET_ELSEWHERE, **RETIRED}.items()
        if name in overrides
    ]
    overrides = {name: value for name, value in overrides.items() if name not in SET_ELSEWHERE and name not in RETIRED}
    unknown = sorted(set(overrides) - set(defaults))
    if unknown:
        named = ", ".join(name + suggestion(name, defaults) for name in unknown)
        problems.append(f"{where}: unknown parameter(s) {named}; known: {', '.join(sorted(defaults))}")
    for name, value in overrides.items():
        if name not in defaults:
            continue
        if not _same_kind(defaults[name], value):
            problems.append(f"{where} {name}: expected a value like {json.dumps(defaults[name])}, got {value!r}")
        elif isinstance(value, list) and not value:
            problems.append(f"{where} {name}: must not be empty")
        else:
            problems += _range_problems(name, value, where)
    if problems:
        raise UserError("\n".join(problems))
    return {**defaults, **overrides}


def _range_problems(name: str, value, where: str) -> list[str]:
    shape = PARAMETER_RANGES.get(name, NUMBER)
    items = value if isinstance(value, list) else [value]
    problems = []
    for position, item in enumerate(items, start=1):
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            continue
        problem = shape.problem(item)
        if problem:
            label = f"{name} item {position}" if isinstance(value, list) else name
            problems.append(f"{where} {label} {problem}")
    return problems


def record_run_parameters(con: duckdb.DuckDBPyConnection, run_id: str, parameters: dict) -> None:
    """Write a run's resolved parameters (one row each) to ``raw.run_parameters``."""
    con.executemany(
        "insert into raw.run_parameters values (?, ?, ?)",
        [[run_id, name, json.dumps(value)] for name, value in sorted(parameters.items())],
    )


def record_run_inputs(con: duckdb.DuckDBPyConnection, run_id: str, results) -> None:
    """Pin the (dataset, source name, version) each ingest step of a run resolved to."""
    seen = set()
    for result in results:
        key = (result.dataset, result.source_name)
        if key in seen:
            continue
        seen.add(key)
        con.execute(
            "insert into raw.run_inputs values (?, ?, ?, ?)",
            [run_id, result.dataset, result.source_name, result.version],
        )


def pinned_version(con: duckdb.DuckDBPyConnection, run_id: str, dataset: str, source_name: str) -> int | None:
    """The version of ``(dataset, source_name)`` that run ``run_id`` read, or None if it read none."""
    row = con.execute(
        "select version from raw.run_inputs where run_id = ? and dataset = ? and source_name = ?",
        [run_id, dataset, source_name],
    ).fetchone()
    return None if row is None else row[0]


def pinned_inputs(con: duckdb.DuckDBPyConnection, run_id: str, dataset: str) -> dict[str, int]:
    """Every ``source_name -> version`` of ``dataset`` that run ``run_id`` pinned."""
    return dict(
        con.execute(
            "select source_name, version from raw.run_inputs where run_id = ? and dataset = ?", [run_id, dataset]
        ).fetchall()
    )
