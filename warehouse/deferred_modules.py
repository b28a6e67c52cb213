"""Modules imported on first use rather than when the modules naming them load.

``scipy.stats`` (with ``scipy.optimize``, which it loads) costs about 0.5 s of CPU. The statistics
name it at their top, and every family's plugins import some statistics to register their steps,
so every study run paid it before its first stage, whatever its families. Named through
:data:`scipy_stats` it loads when a test first runs (``scipy_stats.binomtest(...)``), and a study run
loads it while dbt builds its results (:func:`load_deferred` in :func:`biaswh.plugins.loading_in_background`),
when its own process only waits.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class DeferredModule:
    """Stands for the module ``name``: its first attribute read imports it (``scipy_stats.norm``)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def module(self) -> ModuleType:
        """The module itself, imported now unless it already is."""
        return importlib.import_module(self._name)

    def __getattr__(self, attribute: str):
        # Every read goes to the module (no copy here): a test that patches the module sees its patch.
        return getattr(self.module(), attribute)

    def __repr__(self) -> str:
        return f"<deferred module {self._name!r}>"


scipy_stats = DeferredModule("scipy.stats")
scipy_optimize = DeferredModule("scipy.optimize")
DEFERRED = (scipy_stats, scipy_optimize)


def load_deferred() -> None:
    """Import every module of :data:`DEFERRED` now (a study run: while dbt builds its results)."""
    for deferred in DEFERRED:
        deferred.module()
