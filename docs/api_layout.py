"""A mkdocs hook: the package laid out as installed, for mkdocstrings to read the API pages from.

The layers install as ``biaswh.<layer>`` but sit beside ``biaswh/`` in a checkout
(``biaswh/__init__.py``, ``setup.py``). griffe reads a package from its folders, so before the
build this hook copies the Python files into ``.api_layout/biaswh/`` as installed, each layer
inside it (copies, not links: griffe names a module after its resolved path); mkdocs.yml points
mkdocstrings there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / ".api_layout"
LAYERS = ("warehouse", "stats", "ingest", "compute", "analysis", "dashboards")


def lay_out(root: Path = ROOT, layout: Path = LAYOUT) -> Path:
    """Write ``layout/biaswh/``: ``root/biaswh``'s Python files with each of ``root``'s layers inside."""
    package = layout / "biaswh"
    shutil.rmtree(layout, ignore_errors=True)
    python_only = shutil.ignore_patterns("__pycache__", "*.sql", "*.csv", "*.json", "*.yaml", "*.toml", "*.txt")
    shutil.copytree(root / "biaswh", package, ignore=python_only)
    for layer in LAYERS:
        shutil.copytree(root / layer, package / layer, ignore=python_only)
    return layout


def on_config(config):
    """mkdocs' hook: lay the package out before mkdocstrings reads it."""
    lay_out()
    return config
