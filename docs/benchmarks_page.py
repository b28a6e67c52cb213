"""The benchmarks page's tables, rendered from ``benchmarks/results/*.json`` (what ``make bench`` wrote)."""

from __future__ import annotations

import json

from biaswh.warehouse.settings.home import REPOSITORY_ROOT

RESULTS = REPOSITORY_ROOT / "benchmarks" / "results"
_LEFT_OUT = {"benchmark", "packages", "python", "machine"}  # the packages' versions are in the file
_MAX_ROWS = 60


def _flatten(value, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        rows = []
        for key, inner in value.items():
            rows.extend(_flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
        return rows
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            return [(prefix, ", ".join(str(v) for v in value))]
        rows = []
        for number, inner in enumerate(value):
            rows.extend(_flatten(inner, f"{prefix}[{number}]"))
        return rows
    if isinstance(value, float):
        return [(prefix, f"{value:.4g}")]
    return [(prefix, str(value))]


def benchmark_tables() -> str:
    """One section per results file: every measured value, by its path in the file."""
    parts = []
    for path in sorted(RESULTS.glob("*.json")):
        result = json.loads(path.read_text(encoding="utf-8"))
        rows = [(k, v) for k, v in _flatten({k: v for k, v in result.items() if k not in _LEFT_OUT})]
        shown = rows[:_MAX_ROWS]
        lines = [f"### {result.get('benchmark', path.stem)}\n", f"`benchmarks/results/{path.name}`\n"]
        lines += ["| measured | value |", "|---|---|"]
        lines += [f"| `{key}` | {value.replace('|', chr(92) + '|')} |" for key, value in shown]
        if len(rows) > len(shown):
            lines.append(f"\n{len(rows) - len(shown)} more values are in the file.")
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)
