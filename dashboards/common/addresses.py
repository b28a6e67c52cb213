"""Where each page of the site lives; a link never changes what it shows, except a study's "latest".

- ``index.html`` (findings) and ``runs.html`` (every run) at the top;
- ``<type>.html`` (``dialect.html``, ``weat.html``, ...): the studies of one type, real data first;
- ``studies/<study>.html``: one study, its latest succeeded run (the only address that moves on);
- ``runs/<run id>.html``: one run, never redrawn with another run's rows.

Study names come from users, so a file name is the name made safe: lowercase letters, digits,
``_`` and ``-`` only, and when that changed anything, a short hash of the name appended, so two
names never share a file (``Demo`` and ``demo`` neither, on a case-blind disk) and no name leaves
its folder. A page in a folder reads every relative link from the site's top (``<base>``).
"""

from __future__ import annotations

import hashlib
import re

STUDY_FOLDER, RUN_FOLDER = "studies", "runs"
# Names a Windows disk refuses as a file name, whatever the extension.
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)), *(f"lpt{n}" for n in range(10))}
_LONGEST = 60


def safe_name(name: str) -> str:
    """``name`` as a file name without extension: itself when already safe, else a slug and a hash."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-")[:_LONGEST]
    if slug == name and slug not in _RESERVED:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{slug or 'study'}-{digest}"


def study_file(study: str) -> str:
    """The stable address of a study: its latest succeeded run (site-relative)."""
    return f"{STUDY_FOLDER}/{safe_name(study)}.html"


def run_file(run_id: str) -> str:
    """The address of one run's page, which always shows that run (site-relative)."""
    return f"{RUN_FOLDER}/{safe_name(run_id)}.html"


def depth_of(file_name: str) -> int:
    """How many folders below the site's top a page is (``studies/x.html``: 1)."""
    return file_name.count("/")
