"""The examples of README.md and docs/*.md: fenced blocks a test runs and checks.

Conventions (docs/test-suite.md):

- ``console``: each ``$ `` line is a shell command (indented lines and a trailing ``\\`` continue
  it); the lines up to the next ``$ `` are its expected output, where ``...`` stands for any text
  (doctest's ELLIPSIS; whitespace runs compare equal). The command must exit 0.
- ``sql``: run with ``biaswh sql``; the ``text`` block right after it is its expected output.
- ``pycon``: a doctest.
- A block with ``title="NAME"`` (a study file, say) is written to NAME before the page's later
  examples run.
- ``<!-- example: MARK -->`` on the line before a block: ``real_data`` and ``endpoint`` blocks
  run in the real-data tests, ``setup`` blocks (installing, ``make demo``) are what the
  walk-through stands in for, and ``not run: REASON`` blocks are counted and skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RUNNABLE = ("console", "sql", "pycon")
_FENCE = re.compile(r"^(?P<indent>\s*)```(?P<info>.*)$")
_MARK = re.compile(r"^\s*<!-- example: (?P<mark>[a-z_]+(?: run)?)(?::\s*(?P<reason>.+?))? -->\s*$")
_TITLE = re.compile(r'title="(?P<title>[^"]+)"')


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, text, mark, title and (sql) expected output."""

    path: Path
    line: int
    language: str
    code: str
    mark: str | None = None
    reason: str | None = None
    title: str | None = None
    expected: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """Every fenced block of the Markdown file ``path``, a sql block with its output attached."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    number = 0
    while number < len(lines):
        fence = _FENCE.match(lines[number])
        if not fence:
            number += 1
            continue
        indent, info = fence["indent"], fence["info"].strip()
        start = number
        body = []
        number += 1
        while number < len(lines) and lines[number].strip() != "```":
            body.append(lines[number][len(indent) :] if lines[number].startswith(indent) else lines[number])
            number += 1
        number += 1
        mark = reason = None
        previous = start - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        marked = _MARK.match(lines[previous]) if previous >= 0 else None
        if marked:
            mark, reason = marked["mark"], marked["reason"]
        title = _TITLE.search(info)
        language = info.split()[0] if info else ""
        found.append(Block(path, start + 1, language, "\n".join(body), mark, reason, title and title["title"]))
    return _attach_outputs(found, lines)


def _attach_outputs(found: list[Block], lines: list[str]) -> list[Block]:
    """A ``sql`` block takes the ``text`` block that follows it (blank lines between) as its output."""
    attached: list[Block] = []
    skip = set()
    for index, block in enumerate(found):
        if index in skip:
            continue
        following = found[index + 1] if index + 1 < len(found) else None
        if block.language == "sql" and following and following.language == "text":
            between = lines[block.line + block.code.count("\n") + 2 : following.line - 1]
            if all(not line.strip() for line in between):
                block = Block(block.path, block.line, "sql", block.code, block.mark, block.reason, None, following.code)
                skip.add(index + 1)
        attached.append(block)
    return attached


def commands(code: str) -> list[tuple[str, str]]:
    """A console block as (command, expected output) pairs."""
    pairs: list[tuple[list[str], list[str]]] = []
    for line in code.split("\n"):
        if line.startswith("$ "):
            pairs.append(([line[2:]], []))
        elif pairs and not pairs[-1][1] and (line.startswith((" ", "\t")) or pairs[-1][0][-1].endswith("\\")):
            pairs[-1][0].append(line)
        elif pairs:
            pairs[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"console output before the first command: {line!r}")
    return [("\n".join(command), "\n".join(output).strip("\n")) for command, output in pairs]
