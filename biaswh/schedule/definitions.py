"""biaswh's Dagster definitions: ``dagster dev -m biaswh.schedule.definitions``.

A job per study config in the studies folder (``BIASWH_STUDIES``, default ``./studies``); a config
without a ``[study]`` table (an audit config) is no study and is left out. A study with a
``[monitoring]`` table also gets its weekly ticks, schedule, source sensor and threshold check
(:mod:`biaswh.schedule.monitoring`). The dbt project's
models are Dagster assets (dagster-dbt's ``@dbt_assets`` over the project's manifest), so the
asset graph is dbt's lineage, and the study jobs' dbt builds materialize them.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from biaswh.schedule.extra import missing_dagster_extra
from biaswh.warehouse.errors import UserError

if missing_dagster_extra():  # one line saying what to install, not a ModuleNotFoundError's traceback
    raise UserError(missing_dagster_extra())

import dagster as dg  # noqa: E402

from biaswh.plugins import load_plugins  # noqa: E402

STUDIES_VARIABLE = "BIASWH_STUDIES"


def studies_folder() -> Path:
    """The folder whose study configs become jobs: ``BIASWH_STUDIES``, else ``./studies``."""
    return Path(os.environ.get(STUDIES_VARIABLE) or "studies").expanduser().resolve()


def study_configs(folder: Path) -> list[Path]:
    """The ``*.toml`` files of ``folder`` that hold a ``[study]`` table, by name."""
    if not folder.is_dir():
        raise UserError(f"{folder}: no such studies folder (set {STUDIES_VARIABLE})")
    return [path for path in sorted(folder.glob("*.toml")) if "study" in tomllib.loads(path.read_text("utf-8-sig"))]


def dbt_model_assets() -> dg.AssetsDefinition:
    """The dbt project's models, seeds and tests as Dagster assets (their lineage is dbt's).

    Materialized by the study jobs' dbt builds; run on their own they build the whole project.
    """
    from dagster_dbt import dbt_assets

    from biaswh.schedule.dbt_step import dagster_dbt_build, dbt_manifest

    @dbt_assets(manifest=dbt_manifest(), name="dbt_project")
    def dbt_project(context):
        events: list = []
        dagster_dbt_build(context, events)(["--exclude-resource-type", "unit_test"], label="dbt assets")
        yield from events

    return dbt_project


def build_definitions(folder: Path | None = None) -> dg.Definitions:
    """Every study config of ``folder`` (default :func:`studies_folder`) as a job, with the dbt assets."""
    from biaswh.schedule.monitoring import monitoring_definitions
    from biaswh.schedule.study_jobs import study_job

    load_plugins()
    configs = study_configs(folder or studies_folder())
    studies = dg.Definitions(assets=[dbt_model_assets()], jobs=[study_job(config) for config in configs])
    monitored = [monitoring_definitions(config) for config in configs if _is_monitored(config)]
    return dg.Definitions.merge(studies, *monitored)


def _is_monitored(config: Path) -> bool:
    return "monitoring" in tomllib.loads(config.read_text("utf-8-sig"))


@dg.definitions
def defs() -> dg.Definitions:
    """What ``dagster dev -m biaswh.schedule.definitions`` loads (built when Dagster asks, not at import)."""
    return build_definitions()
