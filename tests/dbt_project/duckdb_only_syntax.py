"""Find SQL that only DuckDB reads as intended, written outside the portability macros.

Each rule is a construct Spark SQL rejects or, worse, runs with another meaning (``^`` is
XOR, a POSIX class matches nothing in Java regex, ``1.0 / n`` rounds to 6 decimals). The
scan reads a model's source with its Jinja expressions removed (a portability macro call is
then nothing) and the macro files outside ``macros/portability/`` as they are.
"""

from __future__ import annotations

import re
from pathlib import Path

from biaswh.warehouse.settings.home import DBT_PROJECT_DIR

PORTABILITY_MACROS = DBT_PROJECT_DIR / "macros" / "portability"

# Checked on the text with string literals kept (the construct lives inside a literal).
IN_LITERALS = {
    "regexp 'g' flag (Spark's regexp_replace is always global and takes no flags)": r",\s*'g'\s*\)",
    "POSIX class like [[:alnum:]] (matches nothing in Java regex)": r"\[\[:\w+:\]\]",
    "quote doubled inside a literal (Spark keeps both quotes; text_literal())": r"\w''\w",
}
# Checked with string literals blanked out.
OUTSIDE_LITERALS = {
    "* exclude (...)": r"\bexclude\s*\(",
    "list() aggregate": r"\blist\s*\(",
    "unnest()": r"\bunnest\s*\(",
    "range() / generate_series()": r"\b(range|generate_series)\s*\(",
    "list_* function": r"\blist_\w+\s*\(",
    "lambda": r"\blambda\b|\w\s*->\s*\w",
    "regexp_matches()": r"\bregexp_matches\s*\(",
    "string_split()": r"\bstring_split\s*\(",
    "strpos()": r"\bstrpos\s*\(",
    "JSON ->> / ->": r"->>?",
    "negative list index [-1]": r"\[\s*-\d+\s*\]",
    "union [all] by name": r"\bunion\s+(all\s+)?by\s+name\b",
    "struct literal {'key': ...}": r"\{\s*'",
    "glob": r"\bglob\b",
    "len()": r"\blen\s*\(",
    "quantile_cont()": r"\bquantile_cont\s*\(",
    "unpivot ... on ... into (DuckDB's form; unpivot_columns())": r"\bunpivot\b",
    "any_value() (Spark's keeps nulls; any_non_null())": r"\bany_value\s*\(",
    "sha256() (Spark: sha2(x, 256))": r"\bsha256\s*\(",
    "date_diff()": r"\bdate_diff\s*\(",
    "^ as power (XOR in Spark)": r"\^",
    "typed array or JSON cast": r"\b\w+\[\]|::\s*json\b|\bas\s+json\b",
    "list literal [...]": r"(?<![\w\]\)])\[\s*('|\d|\])",
    "decimal literal in * or / (Spark rounds decimal division to 6 places)": r"\b\d+\.\d+\s*[*/]|[*/]\s*\d+\.\d+",
    "trailing comma before from": r",\s*from\b",
    "varchar without a length (Spark: string; text_type())": r"\bas\s+varchar\b(?!\s*\()|::\s*varchar\b",
}


def _without_comments(sql: str) -> str:
    sql = re.sub(r"\{#.*?#\}", " ", sql, flags=re.S)
    return re.sub(r"--[^\n]*", " ", sql)


def _without_jinja(sql: str) -> str:
    # An interpolation stands for an operand or a select-list item (so "a, {{ columns }} from" keeps its item).
    sql = re.sub(r"\{\{.*?\}\}", " x ", sql, flags=re.S)
    return re.sub(r"\{%.*?%\}", " ", sql, flags=re.S)


def _without_literals(sql: str) -> str:
    return re.sub(r"'(?:[^']|'')*'", "''", sql)


def duckdb_only_constructs(sql: str, *, is_macro: bool = False) -> list[str]:
    """The names of the DuckDB-only constructs in one file's SQL (each once)."""
    text = _without_comments(sql).lower()
    if is_macro:
        # A macro's Jinja statements are not SQL; its {{ }} interpolations stand for operands.
        text = re.sub(r"\{%.*?%\}", " ", text, flags=re.S)
        text = re.sub(r"\{\{.*?\}\}", " x ", text, flags=re.S)
    else:
        text = _without_jinja(text)
    found = [name for name, pattern in IN_LITERALS.items() if re.search(pattern, text)]
    bare = _without_literals(text)
    found += [name for name, pattern in OUTSIDE_LITERALS.items() if re.search(pattern, bare)]
    return found


def model_files() -> dict[str, Path]:
    """Every model's SQL file by model name."""
    return {path.stem: path for path in sorted((DBT_PROJECT_DIR / "models").rglob("*.sql"))}


def macro_files() -> list[Path]:
    """Every macro file outside macros/portability/ (those hold the DuckDB spellings on purpose)."""
    return [
        path for path in sorted((DBT_PROJECT_DIR / "macros").rglob("*.sql")) if PORTABILITY_MACROS not in path.parents
    ]


def macro_names(path: Path) -> list[str]:
    """The macros a file defines."""
    return re.findall(r"\{%-?\s*macro\s+(\w+)", path.read_text(encoding="utf-8"))
