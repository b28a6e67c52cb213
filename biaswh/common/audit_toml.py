"""A study config tree written as TOML (the audit writes each planned study's config, for ``biaswh run`` too)."""

from __future__ import annotations

import json
import re
from pathlib import Path


def write_config(config: dict, path: Path) -> Path:
    """Write a study config tree as TOML (tables, arrays of tables, inline values), for ``biaswh run`` too."""
    lines = []
    for table, values in config.items():
        if isinstance(values, list):
            for item in values:
                lines += [f"[[{table}]]", *(f"{k} = {_value(v)}" for k, v in item.items()), ""]
            continue
        lines.append(f"[{table}]")
        lines += [f"{k} = {_value(v)}" for k, v in values.items()]
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _value(value) -> str:
    """A TOML inline value: strings and keys as JSON strings (a subset of TOML's basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = (f"{k if _BARE_KEY.match(k) else json.dumps(k)} = {_value(v)}" for k, v in value.items())
        return "{ " + ", ".join(items) + " }"
    raise TypeError(f"no TOML spelling for {value!r}")
