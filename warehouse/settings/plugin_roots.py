"""Where study families live: the project's own folders and the plugin folders ``BIASWH_PLUGINS`` names.

A plugin folder has the project's layout for the families it adds: ``ingest/<family>/``,
``compute/<family>/``, ``analysis/<family>/``, ``dashboards/<family>/``, ``biaswh/<family>/``
(Python, found by ``biaswh/plugins.py``), ``<layer>/<family>/raw_schema/NN_<name>.sql`` (raw DDL, applied in
file-name order with every other family's) and ``dbt_project/models/<layer>/<family>/`` (dbt
models, added to the project's model paths; dbt_project.yml reads the same variable). Several
folders are separated as in ``PATH`` (``:``; ``;`` on Windows).
"""

from __future__ import annotations

import os
from pathlib import Path

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import LAYERS_ROOT

PLUGINS_VARIABLE = "BIASWH_PLUGINS"
# The layers whose family folders may hold raw DDL (the layers that write raw.*).
RAW_WRITING_LAYERS = ("ingest", "compute")
# The kernel's own DDL (runs, sources, parameters, build state), applied before any family's.
CORE_DDL_FOLDER = Path(__file__).resolve().parents[1] / "relations" / "raw_schema"


def plugin_folders() -> list[Path]:
    """The folders ``BIASWH_PLUGINS`` names, in order; each must exist.

    Raises
    ------
    UserError
        Naming the first folder that does not exist.
    """
    folders = []
    for entry in os.environ.get(PLUGINS_VARIABLE, "").split(os.pathsep):
        if not entry.strip():
            continue
        folder = Path(entry).expanduser().resolve()
        if not folder.is_dir():
            raise UserError(f"{PLUGINS_VARIABLE}: {entry} is not a folder")
        folders.append(folder)
    return folders


def family_roots() -> list[Path]:
    """The project's root, then each plugin folder: every folder whose ``<layer>/<family>/`` hold families."""
    return [LAYERS_ROOT, *plugin_folders()]


def family_ddl_files() -> list[Path]:
    """Every family's raw DDL file (``<root>/<layer>/<family>/raw_schema/*.sql``), in file-name order.

    The ``NN_`` prefixes order them across families (a file may alter a table an earlier one made).
    """
    found = [
        path
        for root in family_roots()
        for layer in RAW_WRITING_LAYERS
        for path in (root / layer).glob("*/raw_schema/*.sql")
    ]
    return sorted(found, key=lambda path: (path.name, str(path)))


def raw_ddl_files() -> list[Path]:
    """The kernel's DDL files, then every family's: the whole raw schema."""
    return [*sorted(CORE_DDL_FOLDER.glob("*.sql")), *family_ddl_files()]


# The Python layers whose ``<layer>/<family>/`` folders make the grid.
GRID_LAYERS = ("ingest", "compute", "analysis", "dashboards")
# The grid folder shared by every family, itself none.
SHARED_FOLDER = "common"


def family_names() -> list[str]:
    """Every study family, in name order: the ``<layer>/<family>/`` packages of the grid layers,
    in the project and in each plugin folder (:func:`family_roots`); ``common`` is none."""
    return sorted(
        {
            folder.name
            for root in family_roots()
            for layer in GRID_LAYERS
            for folder in (root / layer).glob("*/")
            if (folder / "__init__.py").exists() and folder.name != SHARED_FOLDER
        }
    )
