"""The dbt project a build runs: the project's own folder, or that folder with plugin families' models.

A plugin folder (``BIASWH_PLUGINS``, :mod:`biaswh.warehouse.settings.plugin_roots`) holds its dbt models in
``dbt_project/models/<layer>/<family>/`` and its macros (its run parameter defaults:
:mod:`biaswh.warehouse.runs.family_vars`) in ``dbt_project/macros/``. dbt reads model and macro paths
relative to its project (an absolute one makes it write compiled SQL over the sources), so
with plugins a build runs a project composed in the warehouse folder
(``$BIASWH_HOME/dbt/project/``): links to every part of ``dbt_project/`` and to each plugin's
models and macros (``plugin_models/<n>``, ``plugin_macros/<n>``), and a copy of
``dbt_project.yml`` whose ``model-paths`` and ``macro-paths`` add them. The plugin's models take
the project's folder configs (``staging`` views, ``marts`` tables) like the project's own.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR, warehouse_paths
from biaswh.warehouse.settings.plugin_roots import plugin_folders

# What dbt writes inside a project folder, never linked into a composed one.
_WRITTEN_BY_DBT = {"target", "logs", "dbt_packages", "dbt_project.yml", ".user.yml"}


# The folders of a plugin's dbt_project/ that join a build: dbt project key -> folder.
PLUGIN_DBT_FOLDERS = {"model-paths": "models", "macro-paths": "macros"}


def plugin_dbt_folders(kind: str) -> list[Path]:
    """Each plugin folder's ``dbt_project/<kind>`` (``models``, ``macros``) that exists, in ``BIASWH_PLUGINS`` order."""
    return [folder / "dbt_project" / kind for folder in plugin_folders() if (folder / "dbt_project" / kind).is_dir()]


def _link(link: Path, target: Path) -> None:
    if link.is_symlink() and Path(os.readlink(link)) == target:
        return
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target, target_is_directory=target.is_dir())


def _link_plugin_folders(composed: Path, kind: str, folders: list[Path]) -> list[str]:
    """Link each of ``folders`` as ``composed/plugin_<kind>/<n>`` (stale links removed); their project paths."""
    parent = composed / f"plugin_{kind}"
    parent.mkdir(parents=True, exist_ok=True)
    wanted = {str(n) for n in range(len(folders))}
    for stale in parent.iterdir():
        if stale.name not in wanted:
            stale.unlink()
    for n, folder in enumerate(folders):
        _link(parent / str(n), folder)
    return [f"plugin_{kind}/{n}" for n in range(len(folders))]


def dbt_project_dir() -> Path:
    """The folder dbt's ``--project-dir`` names: ``dbt_project/``, or the composed project when plugins
    add models or macros."""
    found = {key: plugin_dbt_folders(kind) for key, kind in PLUGIN_DBT_FOLDERS.items()}
    if not any(found.values()):
        return DBT_PROJECT_DIR
    composed = warehouse_paths().home / "dbt" / "project"
    composed.mkdir(parents=True, exist_ok=True)
    for entry in DBT_PROJECT_DIR.iterdir():
        if entry.name not in _WRITTEN_BY_DBT:
            _link(composed / entry.name, entry)
    project = yaml.safe_load((DBT_PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))
    for key, kind in PLUGIN_DBT_FOLDERS.items():
        project[key] = [*project.get(key, [kind]), *_link_plugin_folders(composed, kind, found[key])]
    text = "# Composed from dbt_project/dbt_project.yml and BIASWH_PLUGINS (warehouse/dbt_build/project_dir.py).\n"
    text += yaml.safe_dump(project, sort_keys=False)
    path = composed / "dbt_project.yml"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        write_text_atomically(path, text)
    return composed
