"""The study config's tables and keys, rendered from the schema the config checker uses."""

from __future__ import annotations

from biaswh.warehouse.settings.config_schema import ArrayOfTables, Table, _describe


def _rows(table, prefix: str) -> list[tuple[str, str, bool]]:
    if not isinstance(table, Table):
        return [(prefix, _describe(table), False)]
    rows = []
    for key, spec in table.keys.items():
        if isinstance(spec, Table):
            rows.extend(_rows(spec, f"{prefix}.{key}"))
        elif isinstance(spec, ArrayOfTables):
            rows.extend(_rows(spec.item, f"{prefix}.{key}[]"))
        else:
            rows.append((f"{prefix}.{key}", _describe(spec), key in table.required))
    return rows


def _schema():
    from biaswh.plugins import load_plugins
    from biaswh.warehouse.settings.study_schema import INGEST_SOURCES, STUDY_SCHEMA

    load_plugins()
    return STUDY_SCHEMA, INGEST_SOURCES


def key_table(sections: list[str]) -> str:
    """A Markdown table of every key of the study config tables ``sections`` (e.g. ``weat``)."""
    schema, _ = _schema()
    lines = ["| key | value |", "|---|---|"]
    for section in sections:
        if section not in schema.keys:
            raise ValueError(f"no config table [{section}] is registered (known: {', '.join(sorted(schema.keys))})")
        for key, description, required in _rows(schema.keys[section], section):
            lines.append(f"| `{key}` | {description}{' (required)' if required else ''} |")
    return "\n".join(lines)


def ingest_tables() -> str:
    """One Markdown table per ``[[ingest]]`` source: its options and their values."""
    _, sources = _schema()
    parts = []
    for source in sorted(sources):
        parts.append(f"### `{source}`\n")
        lines = ["| key | value |", "|---|---|"]
        for key, description, required in _rows(sources[source], "ingest"):
            lines.append(f"| `{key.removeprefix('ingest.')}` | {description}{' (required)' if required else ''} |")
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def all_sections() -> list[str]:
    """Every config table but ``[[ingest]]`` (its keys depend on the source)."""
    schema, _ = _schema()
    return [name for name in schema.keys if name != "ingest"]
