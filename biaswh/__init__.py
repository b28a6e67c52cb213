"""The bias warehouse from Python: ``import biaswh``, then ``wh = biaswh.open()``.

The top of the house also holds the ``biaswh`` command, the study pipeline that chains the
layers, the ad hoc SQL shell and the inspection commands; nothing below imports it. The API
(:mod:`biaswh.api`) loads on first use, so ``import biaswh`` (and every ``biaswh`` command,
which imports this package) stays fast.
"""

from __future__ import annotations

import importlib

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
