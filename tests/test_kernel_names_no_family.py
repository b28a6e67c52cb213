"""The kernel keeps registries only: no kernel code names a study family.

A family is one declared unit (its folders in the layers, its raw DDL, parameters, sub-runs,
dbt models); the kernel (``warehouse/``, the core modules of ``biaswh/``, the run-scope dbt
macros that withdraw runs) learns about it from registrations and declarations. This reads
the code of those files, not their comments and docstrings (an example there couples nothing):
names, imports and string literals in Python, the SQL of the DDL and macros.
The families are the folders of the grid layers, so a new family is checked without a list.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

from tests.conftest import REPOSITORY_ROOT

GRID_LAYERS = ("ingest", "compute", "analysis", "dashboards")
# Kernel files that still name families, and why; each must still do so (the list only shrinks).
LEFT = {
    "warehouse/relations/renamed_marts.py": (
        "the old mart names kept as views for one release (applied before any plugin loads)"
    ),
}


def _families() -> list[str]:
    names = {
        folder.name
        for layer in GRID_LAYERS
        for folder in (REPOSITORY_ROOT / layer).iterdir()
        if folder.is_dir() and (folder / "__init__.py").exists()
    }
    return sorted(names - {"common"})


def _pattern() -> re.Pattern:
    return re.compile(r"(?<![a-z])(" + "|".join(map(re.escape, _families())) + r")(?![a-z])", re.IGNORECASE)


def _kernel_files() -> list[Path]:
    files = sorted((REPOSITORY_ROOT / "warehouse").rglob("*.py"))
    files += sorted((REPOSITORY_ROOT / "warehouse" / "raw_schema").glob("*.sql"))
    files += sorted((REPOSITORY_ROOT / "biaswh").glob("*.py"))
    files += sorted((REPOSITORY_ROOT / "dbt_project" / "macros" / "run_scope").glob("*.sql"))
    return files


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _python_code_words(path: Path) -> list[tuple[int, str]]:
    """Identifiers, imported modules and string literals (not docstrings) of a module, with their lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    words = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            words.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            words.append((node.lineno, node.attr))
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            words.append((node.lineno, node.name))
        elif isinstance(node, ast.Import):
            words += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            words.append((node.lineno, node.module or ""))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words.append((node.lineno, node.value))
    return words


def _sql_code_lines(path: Path) -> list[tuple[int, str]]:
    """The SQL of a DDL file or macro file, without ``--`` and ``{# #}`` comments."""
    text = re.sub(r"\{#.*?#\}", lambda m: "\n" * m.group(0).count("\n"), path.read_text(encoding="utf-8"), flags=re.S)
    return [(n, line.split("--", 1)[0]) for n, line in enumerate(text.splitlines(), start=1)]


def _family_mentions(path: Path) -> list[str]:
    pattern = _pattern()
    words = _python_code_words(path) if path.suffix == ".py" else _sql_code_lines(path)
    return [f"{line}: {text.strip()[:80]!r}" for line, text in words if pattern.search(text)]


def test_the_families_are_found_from_the_folders():
    assert {"dialect", "evaluation", "recsys", "retrieval", "silent_bias", "weat"} <= set(_families())


def test_no_kernel_code_names_a_family():
    wrong = []
    for path in _kernel_files():
        relative = path.relative_to(REPOSITORY_ROOT).as_posix()
        if relative in LEFT:
            continue
        wrong += [f"{relative}:{mention}" for mention in _family_mentions(path)]
    assert not wrong, "kernel code naming a study family (declare it from the family instead):\n" + "\n".join(wrong)


def test_each_file_left_still_names_a_family():
    """A file that no longer names one leaves the list, so the exceptions only shrink."""
    cleaned = [name for name in LEFT if not _family_mentions(REPOSITORY_ROOT / name)]
    assert not cleaned, f"remove from LEFT: {cleaned}"


def test_the_dbt_projects_vars_name_no_family():
    """A family's run parameters are declared where it lives (its ``<family>_run_parameter_defaults`` macro)."""
    project = yaml.safe_load((REPOSITORY_ROOT / "dbt_project" / "dbt_project.yml").read_text(encoding="utf-8"))
    assert project["vars"] and not [name for name in project["vars"] if _pattern().search(name)]


def test_the_scan_sees_a_family_named_in_code_but_not_in_a_comment(tmp_path):
    module = tmp_path / "kernel.py"
    module.write_text(
        '"""Docstring naming retrieval."""\n# a comment naming weat\nTABLE = "raw.evaluation_runs"\n', encoding="utf-8"
    )
    assert _family_mentions(module) == ["3: 'raw.evaluation_runs'"]
    macro = tmp_path / "macro.sql"
    macro.write_text("{# dialect #}\nselect 1 -- recsys\nfrom raw.silent_bias_vignettes\n", encoding="utf-8")
    assert _family_mentions(macro) == ["3: 'from raw.silent_bias_vignettes'"]
