"""The house's layers, checked over the import graph and over the SQL each layer runs.

Layers in the order data flows: the kernel (``warehouse/``: settings, connection, errors, runs,
transactions, random seeds, registries) < ``stats/`` (statistics without database access: numpy,
scipy, statsmodels, polars and the kernel) < ``ingest/`` < ``compute/`` (the jobs between the two dbt
builds) < ``analysis/`` < ``dashboards/`` < ``biaswh/`` (the CLI and pipeline that chain them).

- the kernel imports no other layer; every layer imports only itself and earlier layers; the
  module graph has no cycle;
- every layer is imported by its one installed name, ``biaswh.<layer>`` (``biaswh`` itself for the
  top); a bare ``import stats`` would load a second copy of a module, so none is left;
- ``stats/`` runs no SQL at all;
- ``ingest/`` and ``compute/`` write only ``raw.*``; ``analysis/`` reads only marts and
  ``analysis.*`` and writes only ``analysis.*``; ``dashboards/`` reads only marts and
  ``analysis.*`` (one documented exception: the runs index of a warehouse never built reads
  ``raw.runs``) and writes nothing.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import REPOSITORY_ROOT

ORDER = ("warehouse", "stats", "ingest", "compute", "analysis", "dashboards", "biaswh")
LAYERS = ORDER


def _modules() -> dict[str, Path]:
    """Every module of the house by its installed name (``biaswh.stats.wilson``, ``biaswh.cli``)."""
    found = {}
    for layer in LAYERS:
        for path in sorted((REPOSITORY_ROOT / layer).rglob("*.py")):
            parts = path.relative_to(REPOSITORY_ROOT).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            found[".".join(parts if layer == "biaswh" else ("biaswh", *parts))] = path
    return found


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS[:-1] else "biaswh"


def _all_imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _project_imports(path: Path) -> list[str]:
    return [n for n in _all_imports(path) if n.split(".")[0] == "biaswh"]


def test_every_layer_is_imported_by_its_installed_name():
    """``import stats`` would work in a checkout and load a second copy of the module beside ``biaswh.stats``."""
    skipped = {".venv", ".mutants", ".api_layout", "dbt_project", "site"}  # not the project's Python, at the top
    tops = [p for p in REPOSITORY_ROOT.iterdir() if p.name not in skipped and not p.name.startswith(".api_layout")]
    # Top-level entries first: a checkout's .venv holds tens of thousands of files no walk needs.
    python = [p for top in tops for p in ([top] if top.is_file() else top.rglob("*")) if p.suffix == ".py"]
    bare = [
        f"{path.relative_to(REPOSITORY_ROOT)}: {name}"
        for path in python
        for name in _all_imports(path) + _imports_in_code_strings(path)
        if name.split(".")[0] in LAYERS[:-1]
    ]
    assert python and not bare, "\n".join(bare)


_CODE_IMPORT = re.compile(r"(?:^|[;\n])\s*(?:from\s+([\w.]+)\s+import\b|import\s+([\w.]+))")


def _imports_in_code_strings(path: Path) -> list[str]:
    """Modules imported by Python code held in strings (``python -c``, a written script)."""
    return [m.group(1) or m.group(2) for text in _strings_of(path) for m in _CODE_IMPORT.finditer(text)]


def _strings_of(path: Path) -> list[str]:
    return [
        n.value
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def test_layers_import_only_themselves_and_earlier_layers():
    wrong = []
    for module, path in _modules().items():
        rank = ORDER.index(_layer(module))
        for imported in _project_imports(path):
            if ORDER.index(_layer(imported)) > rank:
                wrong.append(f"{module} ({_layer(module)}) imports {imported} ({_layer(imported)})")
    assert not wrong, "\n".join(wrong)


def test_the_kernel_defers_no_project_import():
    """Imports inside functions hide cycles; the kernel has none (the CLI defers for speed only)."""
    deferred = []
    for module, path in _modules().items():
        if _layer(module) != "warehouse":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = [n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)]
                deferred += [f"{module}:{n.lineno}" for n in inner if _project_imports_of(n)]
    assert not deferred, deferred


def _project_imports_of(node) -> list[str]:
    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    return [n for n in names if n.split(".")[0] == "biaswh"]


def test_the_module_graph_has_no_cycle():
    modules = _modules()
    graph = {m: {i for i in _project_imports(p) if i in modules} for m, p in modules.items()}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join(trail + [node, nxt]))
            if nxt not in state:
                visit(nxt, trail + [node])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])


_WRITE = re.compile(
    r"\b(?:insert\s+(?:or\s+\w+\s+)?into|delete\s+from|update|create\s+(?:or\s+replace\s+)?table"
    r"(?:\s+if\s+not\s+exists)?)\s+(\w+)\.",
    re.IGNORECASE,
)
_READ = re.compile(r"\b(?:from|join)\s+(\w+)\.\w+", re.IGNORECASE)


def _sql_of(path: Path) -> str:
    """The string literals of a module (where its SQL lives)."""
    return "\n".join(
        n.value
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    )


WRITES = {"ingest": {"raw"}, "compute": {"raw"}, "analysis": {"analysis"}}


def test_each_layer_writes_only_its_schema():
    wrong = []
    for layer, allowed in WRITES.items():
        for path in sorted((REPOSITORY_ROOT / layer).rglob("*.py")):
            relative = path.relative_to(REPOSITORY_ROOT).as_posix()
            wrong += [
                f"{relative} writes {schema}.*"
                for schema in _WRITE.findall(_sql_of(path))
                if schema.lower() not in allowed
            ]
    assert not wrong, "\n".join(wrong)


def test_dashboards_read_only_marts_and_analysis():
    wrong = []
    for path in sorted((REPOSITORY_ROOT / "dashboards").rglob("*.py")):
        for schema in _READ.findall(_sql_of(path)):
            if schema.lower() in ("raw", "staging", "intermediate") and path.name != "site.py":
                wrong.append(f"{path.relative_to(REPOSITORY_ROOT)} reads {schema}.*")
        assert not _WRITE.findall(_sql_of(path)), f"{path} writes to the warehouse"
    assert not wrong, "\n".join(wrong)


def test_analysis_reads_only_marts_and_analysis():
    """Analysis works from the published marts: a staging or intermediate read is a detour dbt should close."""
    wrong = []
    for path in sorted((REPOSITORY_ROOT / "analysis").rglob("*.py")):
        wrong += [
            f"{path.relative_to(REPOSITORY_ROOT)} reads {schema}.*"
            for schema in _READ.findall(_sql_of(path))
            if schema.lower() in ("raw", "staging", "intermediate", "main")
        ]
    assert not wrong, "\n".join(wrong)


def test_stats_runs_no_sql():
    """The statistics package takes numbers, never a connection."""
    wrong = []
    for path in sorted((REPOSITORY_ROOT / "stats").rglob("*.py")):
        sql = _sql_of(path)
        if _READ.findall(sql) or _WRITE.findall(sql) or "duckdb" in path.read_text(encoding="utf-8"):
            wrong.append(str(path.relative_to(REPOSITORY_ROOT)))
    assert not wrong, wrong


GRID_LAYERS = ("ingest", "compute", "analysis", "dashboards")


def test_every_module_sits_in_a_family_folder_that_dbt_also_has():
    """The grid: ``<layer>/<family>/`` in every Python layer, the families being dbt's model folders plus common."""
    models = REPOSITORY_ROOT / "dbt_project" / "models"
    families = {p.name for layer in models.iterdir() if layer.is_dir() for p in layer.iterdir() if p.is_dir()}
    families.add("common")
    wrong = []
    for layer in GRID_LAYERS:
        for path in sorted((REPOSITORY_ROOT / layer).rglob("*.py")):
            parts = path.relative_to(REPOSITORY_ROOT / layer).parts
            if parts == ("__init__.py",):
                continue
            if len(parts) < 2 or parts[0] not in families:
                wrong.append(path.relative_to(REPOSITORY_ROOT).as_posix())
    assert not wrong, "modules outside a family folder (or in a folder dbt has not):\n" + "\n".join(wrong)
