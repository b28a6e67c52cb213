"""A mkdocs hook: the package laid out as installed, for mkdocstrings to read the API pages from.

The layers install as ``biaswh.<layer>`` but sit beside ``biaswh/`` in a checkout
(``biaswh/__init__.py``, ``setup.py``). griffe reads a package from its folders, so when mkdocs
starts (before mkdocstrings reads its settings) this hook copies the Python files into
``.api_layout/biaswh/`` as installed, each layer inside it (copies, not links: griffe names a
module after its resolved path); mkdocs.yml points mkdocstrings there. The copy is made under a
lock and only when the sources changed, so builds running at once never rewrite a folder
another is reading.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / ".api_layout"
LAYERS = ("warehouse", "stats", "ingest", "compute", "analysis", "dashboards")


def _sources(root: Path) -> list[Path]:
    return sorted(p for folder in ("biaswh", *LAYERS) for p in (root / folder).rglob("*.py"))


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in _sources(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def lay_out(root: Path = ROOT, layout: Path = LAYOUT) -> Path:
    """Write ``layout/biaswh/``: the checkout's Python files as installed (unless already written)."""
    digest = _digest(root)
    with open(root / f"{layout.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = layout / "sources.sha256"
        if stamp.is_file() and stamp.read_text() == digest:
            return layout
        shutil.rmtree(layout, ignore_errors=True)
        for path in _sources(root):
            relative = path.relative_to(root)
            inside = relative.relative_to("biaswh") if relative.parts[0] == "biaswh" else relative
            target = layout / "biaswh" / inside
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        stamp.write_text(digest)
    return layout


def on_startup(command, dirty):
    """mkdocs' hook, before the configuration's plugins read it: lay the package out."""
    lay_out()
