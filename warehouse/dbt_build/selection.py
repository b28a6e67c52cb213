"""The dbt selection of a study's two builds, derived from what its steps declare.

Python never spells dbt: a job declares the raw tables it writes and the relations it reads
(``marts.fct_query_variants``: the names its SQL uses), each step belongs to the family folder
it is registered from (``compute/<family>/``, ``analysis/<family>/``), and dbt's graph decides
what a build selects:

- before the jobs: every relation a job reads, with its ancestors (``+<model>``); a study
  without jobs builds its families' models with their ancestors (``+tag:<family>``);
- after the jobs: the models of the study's families (``tag:<family>``), the descendants of
  the raw tables the jobs wrote that lead to them (``source:*.<table>+,+tag:<family>``), and
  the staging of the run records the site reads (``source:*.runs+1,+dim_runs``: the tests
  relating results to their runs).

A family's models carry its tag in ``dbt_project/dbt_project.yml`` (by folder; a model another
family also reads carries that tag in its yml), so a renamed or moved model changes no Python.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# What every study run writes about itself (warehouse/runs/registry.py, run_parameters.py, ingest).
# The layers below the top: their modules are named biaswh.<layer>.<family>.<module>.
LAYER_NAMES = ("warehouse", "stats", "ingest", "compute", "analysis", "dashboards")
RUN_RECORDS = ("raw.runs", "raw.run_parameters", "raw.run_inputs", "raw.run_sources", "raw.source_versions")
# What the dashboard site reads of every study: its runs and their sources (views).
SITE_READS = ("marts.dim_runs", "marts.dim_source_versions")

# A declared relation: schema and name, nothing a dbt selector could read as a pattern or a path.
_RELATION = re.compile(r"^(raw|staging|intermediate|marts)\.([a-z][a-z0-9_]*)$")


@dataclass(frozen=True)
class StepDeclaration:
    """What one registered step reads and writes, and the family whose models it feeds."""

    family: str
    writes: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()


def declared_relations(names, *, kind: str, schemas: tuple[str, ...]) -> tuple[str, ...]:
    """``names`` checked as schema-qualified relations in ``schemas`` (``raw.retrieval_results``).

    Raises ValueError on anything else: a declaration is a table name, never a dbt selector.
    """
    names = (names,) if isinstance(names, str) else tuple(names)
    for name in names:
        found = _RELATION.match(name)
        if found is None or found.group(1) not in schemas:
            raise ValueError(f"{kind} {name!r}: name a relation as <schema>.<table> with schema {' or '.join(schemas)}")
    return names


def family_of(module: str) -> str:
    """The family folder a step is registered from: ``biaswh.compute.retrieval.steps`` -> ``retrieval``.

    A layer's modules are named ``biaswh.<layer>.<family>.<module>``; the top's
    ``biaswh.<family>.<module>``; a module outside a family folder gives its own name.
    """
    parts = module.split(".")
    if parts[0] == "biaswh" and len(parts) > 3 and parts[1] in LAYER_NAMES:
        parts = parts[1:]
    return parts[1] if len(parts) > 2 else parts[-1]


def _ancestors(relations) -> list[str]:
    return [f"+{name.split('.', 1)[1]}" for name in relations]


def study_selections(jobs: list[StepDeclaration], analyses: list[StepDeclaration]) -> dict[str, str | None]:
    """The selectors of a study's two builds (``sources``: before the jobs; ``results``: after them).

    ``""``: the build is not needed. A study whose steps declare nothing builds the whole project
    (``None``).
    """
    families = list(dict.fromkeys(step.family for step in [*jobs, *analyses]))
    if not families:
        return {"sources": None, "results": None}
    reads = dict.fromkeys(name for job in jobs for name in job.reads)
    if jobs:
        # jobs that read no mart still need the site's views (built with the first build)
        before = _ancestors(reads) or _ancestors(SITE_READS)
    else:
        before = [f"+tag:{family}" for family in families]
    if not jobs:
        return {"sources": " ".join(before), "results": ""}
    written = dict.fromkeys(name.split(".", 1)[1] for job in jobs for name in job.writes)
    after = [f"tag:{family}" for family in families]
    after += [f"source:*.{table}+,+tag:{family}" for table in written for family in families]
    # the staging of the run records the site reads, so the tests relating results to runs run
    after += [
        f"source:*.{record.split('.', 1)[1]}+1,{ancestors}"
        for record in RUN_RECORDS
        for ancestors in _ancestors(SITE_READS)
    ]
    return {"sources": " ".join(before), "results": " ".join(after)}


def site_selection() -> str:
    """What a study's first build adds for the dashboard site (its runs and their sources)."""
    return " ".join(_ancestors(SITE_READS))
