"""No significance level is written as a literal in dashboards/ or compute/: alpha comes from the verdict policy.

A card, chart or job that compares a p-value with a hard-coded 0.05 (or 0.01) ignores the study's
``[verdicts] alpha``; so does a sentence or legend that prints one ("Holm p < 0.05"). This test reads
every Python file of those layers and fails on such a literal: a number 0.05 or 0.01 anywhere but as
the value of a named module constant whose name says it is no significance level (e.g. an axis's
padding share), and a string (docstrings aside) that states a level, e.g. "p < 0.05" or "α = 0.05".
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.conftest import REPOSITORY_ROOT

LEVELS = {0.05, 0.01}
LAYERS = ("dashboards", "compute")
# a constant's name that may hold one of those numbers for another purpose; anything else may not
NOT_A_LEVEL = re.compile(r"^(?!.*(ALPHA|LEVEL|SIGNIF|P_VALUE|THRESHOLD))[A-Z][A-Z0-9_]*$")
STATED_LEVEL = re.compile(
    r"(\bp(_value|_adjusted|_holm)?|α|alpha|significan\w*)\s*(<|<=|≤|>|>=|≥|=)\s*0?\.0[15]\b", re.I
)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def literal_levels(source: str) -> list[str]:
    """Each significance level written as a literal in ``source`` (Python), as "line N: what"."""
    tree = ast.parse(source)
    allowed, docstrings = set(), _docstrings(tree)
    for node in tree.body:  # module constants of numbers, named for what they are (e.g. a discordance rate)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if NOT_A_LEVEL.match(node.targets[0].id):
                allowed |= {
                    id(inner)
                    for inner in ast.walk(node.value)
                    if isinstance(inner, ast.Constant) and isinstance(inner.value, float)
                }
    problems = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in allowed:
            continue
        value = node.value
        if isinstance(value, float) and value in LEVELS:
            problems.append(f"line {node.lineno}: the number {value}")
        elif isinstance(value, str) and id(node) not in docstrings and STATED_LEVEL.search(value):
            problems.append(f"line {node.lineno}: {STATED_LEVEL.search(value).group(0)!r}")
    return problems


def test_no_layer_writes_a_significance_level_as_a_literal():
    problems = [
        f"{path.relative_to(REPOSITORY_ROOT)} {problem}"
        for layer in LAYERS
        for path in sorted((REPOSITORY_ROOT / layer).rglob("*.py"))
        for problem in literal_levels(path.read_text(encoding="utf-8"))
    ]
    assert problems == []


@pytest.mark.parametrize(
    "source",
    [
        "if p_value < 0.05:\n    pass\n",
        "def f(p, *, alpha=0.05):\n    return p < alpha\n",
        "ALPHA = 0.05\n",
        "LEVELS = (0.05, 0.01)\n",
        "f(alpha=0.01)\n",
        "TITLE = 'Holm p < 0.05'\n",
        "sql = 'count(*) filter (where p_value < 0.05)'\n",
        "x = f'significant at α = 0.01 {y}'\n",
    ],
)
def test_the_check_finds_a_level_written_out(source):
    assert literal_levels(source)


@pytest.mark.parametrize(
    "source",
    [
        "AXIS_PADDING_SHARE = 0.05\n",
        "PLANNING_DISCORDANCE = (0.05, 0.125, 0.25)\n",
        'def f():\n    """Compare with alpha, e.g. p < 0.05."""\n',
        "x = 0.5\n",
        "label = f'p < {alpha:g}'\n",
    ],
)
def test_the_check_lets_other_numbers_and_docstrings_be(source):
    assert literal_levels(source) == []
