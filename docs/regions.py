"""Generated regions of Markdown files: ``<!-- generated:NAME -->`` ... ``<!-- /generated:NAME -->``.

A region's body is whatever :func:`fill` is given for its name; the text around it is the
author's. A file without regions is left alone.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

REGION = re.compile(r"(<!-- generated:(?P<name>\S+) -->\n)(?P<body>.*?)(<!-- /generated:(?P=name) -->)", re.S)


def region_names(text: str) -> list[str]:
    """The names of the generated regions of ``text``, in order."""
    return [match["name"] for match in REGION.finditer(text)]


def fill(text: str, render: Callable[[str], str]) -> str:
    """``text`` with the body of each region replaced by ``render(name)`` (ending in a newline)."""

    def replace(match: re.Match) -> str:
        body = render(match["name"]).rstrip("\n") + "\n"
        return match.group(1) + body + match.group(4)

    return REGION.sub(replace, text)


def documents(root: Path) -> list[Path]:
    """README.md and every Markdown page of the site: the files whose regions are generated."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
