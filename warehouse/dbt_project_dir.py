"""The dbt project a build runs: the project's own folder, or that folder with plugin families' models.

A plugin folder (``BIASWH_PLUGINS``, :mod:`warehouse.plugin_roots`) holds its dbt models in
``dbt_project/models/<layer>/<family>/``. dbt reads model paths relative to its project (an
absolute one makes it write compiled SQL over the sources), so with plugins a build runs a
project composed in the warehouse folder (``$BIASWH_HOME/dbt/project/``): links to every part
of ``dbt_project/`` and to each plugin's models (``plugin_models/<n>``), and a copy of
``dbt_project.yml`` whose ``model-paths`` adds them. The plugin's models take the project's
folder configs (``staging`` views, ``marts`` tables) like the project's own.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from warehouse.output_files import write_text_atomically
from warehouse.plugin_roots import plugin_folders
from warehouse.settings import DBT_PROJECT_DIR, warehouse_paths

# What dbt writes inside a project folder, never linked into a composed one.
_WRITTEN_BY_DBT = {"target", "logs", "dbt_packages", "dbt_project.yml", ".user.yml"}


def plugin_model_folders() -> list[Path]:
    """Each plugin folder's ``dbt_project/models`` that exists, in ``BIASWH_PLUGINS`` order."""
    return [
        folder / "dbt_project" / "models" for folder in plugin_folders() if (folder / "dbt_project" / "models").is_dir()
    ]


def _link(link: Path, target: Path) -> None:
    if link.is_symlink() and Path(os.readlink(link)) == target:
        return
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target, target_is_directory=target.is_dir())


def dbt_project_dir() -> Path:
    """The folder dbt's ``--project-dir`` names: ``dbt_project/``, or the composed project when plugins add models."""
    models = plugin_model_folders()
    if not models:
        return DBT_PROJECT_DIR
    composed = warehouse_paths().home / "dbt" / "project"
    (composed / "plugin_models").mkdir(parents=True, exist_ok=True)
    for entry in DBT_PROJECT_DIR.iterdir():
        if entry.name not in _WRITTEN_BY_DBT:
            _link(composed / entry.name, entry)
    wanted = {str(n) for n in range(len(models))}
    for stale in (composed / "plugin_models").iterdir():
        if stale.name not in wanted:
            stale.unlink()
    for n, folder in enumerate(models):
        _link(composed / "plugin_models" / str(n), folder)
    project = yaml.safe_load((DBT_PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))
    project["model-paths"] = [
        *project.get("model-paths", ["models"]),
        *(f"plugin_models/{n}" for n in range(len(models))),
    ]
    text = "# Composed from dbt_project/dbt_project.yml and BIASWH_PLUGINS (warehouse/dbt_project_dir.py).\n"
    text += yaml.safe_dump(project, sort_keys=False)
    path = composed / "dbt_project.yml"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        write_text_atomically(path, text)
    return composed
