"""Find and import the modules that register a study family's steps, config and pages.

Every Python layer holds one folder per study family (``<layer>/<family>/``, mirroring
dbt's ``models/<layer>/<family>/``). A family registers itself from modules with fixed
names: ``steps.py`` (or ``steps_<part>.py``) in ``ingest/``, ``compute/`` and ``analysis/``,
``page.py`` (or ``page_<part>.py``) in ``dashboards/``, and ``cli.py`` (or ``cli_<part>.py``) in
``biaswh/`` for its ``biaswh`` subcommands (:mod:`biaswh.command_registry`). Adding a study type
adds such modules; no list here or elsewhere names the families.

A family may also live outside the project, in a folder named by ``BIASWH_PLUGINS``
(:mod:`biaswh.warehouse.settings.plugin_roots`) with the same layout: its ``<layer>/<family>/`` folders join
the layer packages (``ingest.<family>.steps`` imports from there), so its modules register
exactly as the project's own do.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from contextlib import contextmanager, suppress
from types import ModuleType
from typing import Iterator

import biaswh
from biaswh.warehouse.deferred_modules import load_deferred
from biaswh.warehouse.settings.plugin_roots import plugin_folders

# layer package -> the module name (or prefix before "_") that registers on import
PLUGIN_MODULES: dict[str, str] = {
    "ingest": "steps",
    "compute": "steps",
    "analysis": "steps",
    "dashboards": "page",
    "biaswh": "cli",
}
# The layers a study run needs registered (the command line loads ``biaswh``'s own when it builds its tree).
STUDY_LAYERS = ("ingest", "compute", "analysis", "dashboards")
# What a study run needs before its dashboards: the dashboards' own modules (Altair and pandas,
# 0.53 s of the plugins' 1.9 s of CPU) load while dbt's process builds (:func:`loading_in_background`).
RUN_LAYERS = ("ingest", "compute", "analysis")


def _join_plugin_folders(package: ModuleType, layer: str) -> None:
    """Add each plugin folder's ``<layer>/`` to the layer package's search path (once)."""
    for folder in plugin_folders():
        extra = str(folder / layer)
        if (folder / layer).is_dir() and extra not in package.__path__:
            package.__path__.append(extra)


def plugin_module_names(layer: str) -> list[str]:
    """The dotted names of ``layer``'s registering modules, family by family, in name order.

    Parameters
    ----------
    layer : a key of :data:`PLUGIN_MODULES` (e.g. ``"compute"``).
    """
    stem = PLUGIN_MODULES[layer]
    names = []
    prefix = "biaswh" if layer == "biaswh" else f"biaswh.{layer}"
    package = importlib.import_module(prefix)
    _join_plugin_folders(package, layer)
    # In a checkout, biaswh's own search path also reaches the folder holding the layers: not families.
    search = [path for path in package.__path__ if path != biaswh.CHECKOUT_LAYERS]
    for family in sorted(pkgutil.iter_modules(search), key=lambda m: m.name):
        if not family.ispkg:
            continue
        folder = importlib.import_module(f"{prefix}.{family.name}")
        for module in sorted(pkgutil.iter_modules(folder.__path__), key=lambda m: m.name):
            if module.name == stem or module.name.startswith(f"{stem}_"):
                names.append(f"{prefix}.{family.name}.{module.name}")
    return names


def load_plugins(layers: tuple[str, ...] = STUDY_LAYERS) -> list[ModuleType]:
    """Import every registering module of ``layers`` so its registrations take effect.

    Parameters
    ----------
    layers : the layer packages to search (default: :data:`STUDY_LAYERS`).
    """
    return [importlib.import_module(name) for layer in layers for name in plugin_module_names(layer)]


@contextmanager
def loading_in_background(layers: tuple[str, ...], *, deferred: bool = False) -> Iterator[None]:
    """Import the registering modules of ``layers`` (and with ``deferred`` the modules the statistics
    import on first use: :mod:`biaswh.warehouse.deferred_modules`) in a thread while the block runs,
    and wait for it at the block's end. For a block whose own thread mostly waits (a study run's
    results build waits on dbt's process): the import then costs the run no time. A failed import is
    left to the stage that needs the module (it imports it again and says what is wrong)."""
    thread = threading.Thread(target=_load_quietly, args=(layers, deferred), name="biaswh-plugin-load", daemon=True)
    if layers or deferred:
        thread.start()
    try:
        yield
    finally:
        if layers or deferred:
            thread.join()


def _load_quietly(layers: tuple[str, ...], deferred: bool) -> None:
    with suppress(Exception):
        if deferred:
            load_deferred()
        load_plugins(layers)
