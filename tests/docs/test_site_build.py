"""The documentation site builds with `mkdocs build --strict`: no broken link, no page left out of
the navigation, no API reference that fails to resolve, no warning of any kind."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPOSITORY_ROOT


def test_the_site_builds_strict_without_a_warning(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # Material's notice of its successor
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING -" not in done.stderr and "ERROR -" not in done.stderr, done.stderr
    pages = {p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("index.html")}
    assert {"index.html", "getting-started/index.html", "python-api/index.html", "sql-reference/index.html"} <= pages
    api = (tmp_path / "site" / "python-api" / "index.html").read_text(encoding="utf-8")
    assert "biaswh.api.Warehouse" in api and "Parameters" in api  # mkdocstrings rendered the docstrings
