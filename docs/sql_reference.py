"""The SQL reference: every contract relation, mart and analysis table with its columns, from the
descriptions in the dbt project's yml (the same text the build writes as DuckDB comments)."""

from __future__ import annotations

import re

import yaml

from biaswh.warehouse.relations.subject_docs import SUBJECT_COLUMN_DOCS, SUBJECT_VIEW_COLUMNS, SUBJECT_VIEW_COMMENTS
from biaswh.warehouse.settings.home import REPOSITORY_ROOT

MODELS = REPOSITORY_ROOT / "dbt_project" / "models"
_DOC_BLOCK = re.compile(r"{%\s*docs\s+(\w+)\s*%}(.*?){%\s*enddocs\s*%}", re.S)
_DOC_CALL = re.compile(r"{{\s*doc\(\s*['\"](\w+)['\"]\s*\)\s*}}")


def _doc_blocks() -> dict[str, str]:
    blocks = {}
    for path in MODELS.rglob("*.md"):
        for name, body in _DOC_BLOCK.findall(path.read_text(encoding="utf-8")):
            blocks[name] = " ".join(body.split())
    return blocks


def _clean(text: str | None, blocks: dict[str, str]) -> str:
    text = _DOC_CALL.sub(lambda m: blocks[m.group(1)], text or "")
    return " ".join(text.split()).replace("|", "\\|")


def relations() -> dict[str, dict]:
    """``schema.name`` -> {description, columns: [(name, description)]} for every mart and analysis table."""
    blocks = _doc_blocks()
    found: dict[str, dict] = {}
    for path in sorted(MODELS.rglob("*.yml")):
        spec = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for model in spec.get("models", []):
            if "/marts/" not in path.as_posix():
                continue
            found[f"marts.{model['name']}"] = _entry(model, blocks)
        for source in spec.get("sources", []):
            if source.get("schema") != "analysis":
                continue
            for table in source.get("tables", []):
                found[f"analysis.{table['name']}"] = _entry(table, blocks)
    return found


def _entry(node: dict, blocks: dict[str, str]) -> dict:
    columns = [(c["name"], _clean(c.get("description"), blocks)) for c in node.get("columns", [])]
    return {"description": _clean(node.get("description"), blocks), "columns": columns}


def _contracts() -> dict[str, tuple[str, str]]:
    from biaswh.plugins import load_plugins
    from biaswh.warehouse.relations.contracts import CONTRACT_RELATIONS

    load_plugins()
    return dict(sorted(CONTRACT_RELATIONS.items()))


def _columns(columns: list[tuple[str, str]]) -> str:
    return "\n".join(["| column | description |", "|---|---|", *(f"| `{n}` | {d} |" for n, d in columns)])


def contract_reference() -> str:
    """Every contract relation (a view in ``main``, no schema needed) with its columns."""
    known = relations()
    parts = []
    for view, (schema, relation) in _contracts().items():
        entry = known.get(f"{schema}.{relation}")
        if entry is None:
            raise ValueError(f"contract relation {view} shows {schema}.{relation}, which no dbt yml documents")
        parts.append(
            f"### `{view}`\n\nShows `{schema}.{relation}`. {entry['description']}\n\n{_columns(entry['columns'])}\n"
        )
    for view, description in SUBJECT_VIEW_COMMENTS.items():  # across families: warehouse/relations/subjects.py
        columns = [(name, SUBJECT_COLUMN_DOCS[name]) for name in SUBJECT_VIEW_COLUMNS[view]]
        parts.append(f"### `{view}`\n\n{description}\n\n{_columns(columns)}\n")
    return "\n".join(parts)


def schema_reference(schema: str) -> str:
    """Every relation of ``schema`` (``marts`` or ``analysis``) with its columns."""
    parts = []
    for name, entry in relations().items():
        if name.startswith(f"{schema}."):
            parts.append(f"### `{name}`\n\n{entry['description']}\n\n{_columns(entry['columns'])}\n")
    return "\n".join(parts)
