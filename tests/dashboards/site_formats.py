"""Read a rendered page as a reader does and list what breaks the site's format policy.

The policy is docs/formats-and-exports.md (dashboards/common/format.py implements it). A page's
visible text is read block by block (code, ids and hashes aside); its tables cell by cell, by the
SQL column each header names; its Vega specs by the labels and tooltips they draw. Each finding
is one line: the page, what is wrong, and the text it was found in.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

BLOCKS = {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "summary", "div", "section", "nav", "tr", "table", "br"}
SKIPPED = {"script", "style", "code"}  # code: ids, SQL, parameters as the machine writes them
NUMBER = r"-?\+?\d[\d,]*(?:\.\d+)?"
BOUND = rf"(?:{NUMBER}%?|–)"
CHECKS = {
    "a plural written with (s)": re.compile(r"\w\(s\)|\(es\)"),
    "one of a plural noun": re.compile(
        r"(?<![\d.,\w-])1 (?!(?:is|was|has|this|its|yes|as|plus|minus|less|across)\b)[a-z]+s\b"
    ),
    "a missing value printed as a word": re.compile(r"\bundefined\b|\bNaN\b|\bnan\b|\bNone\b|\bInfinity\b|<NA>"),
    "a float with more than 4 significant digits": re.compile(r"(?<![\w.,:/-])\d+\.\d+(?![\w.:/-])"),
    "a count of 1,000 or more without separators": re.compile(r"(?<![\w.,:/#@-])(?<!seed )\d{4,}(?![\w.,:/%-])"),
    "a p-value with more than 2 significant digits": re.compile(
        r"\b(?:p|p-value|p_value|p_adjusted)\s*(?:=|≤|is)?\s*(\d+\.\d+)(?! \(smallest)"
    ),
    "an interval whose bounds differ from each other or from their estimate": re.compile(
        rf"(?:({NUMBER}%?)\s+(?:\(|points? )?)?\[({BOUND}), ({BOUND})\]"
    ),
}
# table columns whose cells are identifiers or the data's own text (a question, a snippet), not numbers we print
QUOTED_COLUMNS = re.compile(r"(_id|_idx|_row|^pair|^case|text|snippet|excerpt|title|message|^query|label|word)")
# "(Caliskan et al. 2017)", "Connor 1987)" and "Green 2002," are years; "2026-01-12" a date: not counts
YEAR = re.compile(r"(?<=\()(19|20)\d\d|(19|20)\d\d(?=[),;])")


def significant_digits(number: str) -> int:
    """The significant digits a number is written with: "0.0312" 3, "0.50" 2, "12.5" 3."""
    digits = number.replace(",", "").lstrip("-+").replace(".", "").lstrip("0")
    return len(digits)


def _decimals(bound: str) -> int | None:
    bound = bound.rstrip("%")
    return None if bound == "–" else (len(bound.split(".")[1]) if "." in bound else 0)


def _unit(bound: str) -> str:
    return "%" if bound.endswith("%") else ("signed" if bound.startswith("+") else "")


def interval_problem(estimate: str | None, low: str, high: str) -> bool:
    """Bounds with other decimals or another unit than each other, or than their estimate."""
    parts = [p for p in (estimate, low, high) if p and p != "–"]
    if len(parts) < 2:
        return False
    if len({_unit(p).replace("signed", "") for p in parts}) > 1:
        return True
    return len({_decimals(p) for p in parts}) > 1


class _PageText(HTMLParser):
    """Blocks of visible text, table cells with their column's SQL name, and the chart specs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.quoted: set[int] = set()  # blocks that are identifiers or the data's own text
        self.cells: list[tuple[str, str]] = []  # (column's SQL name, cell text)
        self.specs: list[dict] = []
        self._stack: list[tuple[str, dict]] = []
        self._text: list[str] = []
        self._headers: list[list[str]] = []
        self._column = 0
        self._cell: list[str] | None = None
        self._sql: list[str] | None = None
        self._spec: list[str] | None = None

    def _skipping(self) -> bool:
        return any(
            tag in SKIPPED
            or "mono" in (attrs.get("class") or "").split()
            or tag == "span"
            and "sql" in (attrs.get("class") or "")
            for tag, attrs in self._stack
        )

    def _flush(self):
        block = " ".join("".join(self._text).split())
        if block:
            if self._cell is not None and self._headers and QUOTED_COLUMNS.search(self._current_column()):
                self.quoted.add(len(self.blocks))
            self.blocks.append(block)
        self._text = []

    def _current_column(self) -> str:
        columns = self._headers[-1]
        return columns[self._column] if self._column < len(columns) else ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in BLOCKS:
            self._flush()
        if tag == "table":
            self._headers.append([])
        elif tag == "tr":
            self._column = 0
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")
        elif tag == "span" and "sql" in (attrs.get("class") or ""):
            self._sql = []
        if tag == "script" and (attrs.get("id") or "").endswith("-spec"):
            self._spec = []
        if tag not in ("br", "meta", "link", "img", "input"):
            self._stack.append((tag, attrs))

    def handle_endtag(self, tag):
        while self._stack:
            open_tag, _ = self._stack.pop()
            if open_tag == tag:
                break
        if tag == "script" and self._spec is not None:
            self.specs.append(json.loads("".join(self._spec)))
            self._spec = None
        if tag == "span" and self._sql is not None:
            if self._headers:
                self._headers[-1].append("".join(self._sql).strip())
            self._sql = None
        if tag in ("td", "th") and self._cell is not None:
            self._flush()
            text = " ".join("".join(self._cell).split())
            if tag == "th" and self._headers and len(self._headers[-1]) <= self._column:
                self._headers[-1].append(text)
            elif tag == "td" and self._headers:
                columns = self._headers[-1]
                self.cells.append((columns[self._column] if self._column < len(columns) else "", text))
            self._column += 1
            self._cell = None
        if tag == "table" and self._headers:
            self._headers.pop()
        if tag in BLOCKS:
            self._flush()

    def handle_data(self, data):
        if self._spec is not None:
            self._spec.append(data)
            return
        if self._sql is not None:
            self._sql.append(data)
        if self._skipping():
            return
        self._text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def _text_findings(block: str) -> list[str]:
    found = []
    for name, pattern in CHECKS.items():
        for match in pattern.finditer(block):
            value = match.group(0)
            if name.startswith("a float") and significant_digits(value) <= 4:
                continue
            if name.startswith("a count") and YEAR.match(block, match.start()):
                continue
            if name.startswith("a p-value") and significant_digits(match.group(1)) <= 2:
                continue
            if name.startswith("an interval") and not interval_problem(*match.groups()):
                continue
            found.append(f"{name}: {value!r} in {block[:160]!r}")
    return found


def _spec_findings(spec: dict) -> list[str]:
    """Labels a chart draws from its data: text marks and tooltips read fields that exist, numbers formatted."""
    found = []
    datasets = spec.get("datasets", {})
    fields = {key for rows in datasets.values() for row in rows[:1] for key in row}
    values = {key: [row.get(key) for rows in datasets.values() for row in rows] for key in fields}

    def walk(node):
        if isinstance(node, dict):
            for channel in ("text", "tooltip"):
                entries = node.get(channel)
                for entry in entries if isinstance(entries, list) else [entries]:
                    if isinstance(entry, dict) and "field" in entry:
                        field = entry["field"]
                        if fields and field not in fields:
                            found.append(f"the chart's {channel} reads a field its data lacks: {field!r}")
                        floats = [
                            v for v in values.get(field, []) if isinstance(v, float) and significant_digits(repr(v)) > 4
                        ]
                        if entry.get("type") == "quantitative" and floats and "format" not in entry:
                            found.append(f"the chart's {channel} shows {field!r} unformatted (e.g. {floats[0]!r})")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk({k: v for k, v in spec.items() if k != "datasets"})
    for key, column in values.items():
        if key.endswith("label"):
            for value in column:
                found += [f"chart label {key!r}: {f}" for f in _text_findings(str(value))]
    return found


def p_cell_problem(column: str, text: str) -> bool:
    """A p column's cell that is neither "–", "< 0.001" nor a p to 2 significant digits."""
    if not (column == "p" or column.startswith("p_")) or column in ("p_method",):
        return False
    found = re.match(r"^(?:= )?(\d+\.\d+|1|0)( \(smallest possible\))?$", text)
    return text not in ("–", "< 0.001") and (found is None or significant_digits(found.group(1)) > 2)


def page_findings(path: Path) -> list[str]:
    """Every break of the format policy on one rendered page, one line each."""
    reader = _PageText()
    reader.feed(path.read_text(encoding="utf-8"))
    reader.close()
    found = [f for i, block in enumerate(reader.blocks) if i not in reader.quoted for f in _text_findings(block)]
    found += [f"p column {c!r} shows {t!r}" for c, t in reader.cells if p_cell_problem(c, t)]
    found += [f for spec in reader.specs for f in _spec_findings(spec)]
    return [f"{path.name}: {f}" for f in dict.fromkeys(found)]
