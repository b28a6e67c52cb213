"""The bias warehouse from Python: ``import biaswh``, then ``wh = biaswh.open()``.

The top of the house also holds the ``biaswh`` command, the study pipeline that chains the
layers, the ad hoc SQL shell and the inspection commands; nothing below imports it. The API
(:mod:`biaswh.api`) loads on first use, so ``import biaswh`` (and every ``biaswh`` command,
which imports this package) stays fast.

Every layer of the house lives under this one name: ``biaswh.warehouse``, ``biaswh.stats``,
``biaswh.ingest``, ``biaswh.compute``, ``biaswh.analysis``, ``biaswh.dashboards``. An installed
wheel holds them inside this folder (pyproject.toml maps them there); a checkout keeps them as
the top-level folders beside ``biaswh/`` that its layout is known by, and this package's search
path reaches them there.
"""

from __future__ import annotations

import importlib
from pathlib import Path

LAYERS = ("warehouse", "stats", "ingest", "compute", "analysis", "dashboards")
# In a checkout, the folder holding the layers beside ``biaswh/`` (on this package's search path); else None.
CHECKOUT_LAYERS: str | None = None
_here = Path(__file__).resolve().parent
if not (_here / "warehouse").is_dir() and (_here.parent / "warehouse" / "__init__.py").is_file():
    CHECKOUT_LAYERS = str(_here.parent)
    __path__.append(CHECKOUT_LAYERS)

__all__ = ["BadInput", "Findings", "Warehouse", "open", "run_study"]
_LAZY = {
    "Warehouse": "biaswh.api",
    "open": "biaswh.api",
    "run_study": "biaswh.api",
    "Findings": "biaswh.findings_view",
    "BadInput": "biaswh.api_inputs",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'biaswh' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
