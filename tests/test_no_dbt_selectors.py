"""Python never spells dbt: no product Python file names a dbt node or path in a selection.

A job declares the raw tables it writes and the relations it reads; the pipeline derives each
build's selection from dbt's graph (warehouse/dbt_build/selection.py). A hand-written selector in
Python breaks at run time when a model is renamed or moved, so this test reads every Python file
of the project outside ``tests/`` (the plugin fixtures in ``tests/fixtures/`` included: a family's
code like any other), docstrings and comments aside, and fails on

- a dbt path, anywhere: ``path:``, ``models/<folder>``, ``seeds/<folder>``;
- a node named with a graph operator, anywhere: ``+fct_x``, ``fct_x+``, ``@fct_x``, ``2+fct_x``;
- a source selector naming its source (``source:retrieval.x``; ``source:*.<table>`` is derived);
- any literal text passed as a selection: a ``before``/``after``/``select``/``selection``/
  ``exclude``/``also_select`` argument, the item after ``--select``/``--exclude``/``--selector``
  in an argument list, or ``--select <x>`` inside a string (except a ``tag:<family>``, or
  ``tag:{family}`` in a help text).

SQL that reads a mart (``from marts.fct_dialect_gold_ranks``) and a relation a job declares
(``reads=("marts.fct_query_variants",)``) are the table contract, not selections: allowed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import REPOSITORY_ROOT
from tests.test_no_literal_alpha import _docstrings  # docstrings may name a node

# Tests may name nodes (they check what dbt built); a fixture is code a study runs.
TESTS, FIXTURES = "tests", "tests/fixtures"
SELECTION_KEYWORDS = {"before", "after", "select", "selection", "exclude", "also_select"}
SELECTION_FLAGS = {"--select", "-s", "--exclude", "--selector", "--models"}
# a folder of the dbt project (a file in it, e.g. a yml a page cites, is no selection)
PATH = re.compile(r"path:|\b(models/(staging|intermediate|marts|analysis)|seeds/[a-z_]+)(/[a-z_]+)*(?![a-z_/.])")
# a node name: models, seeds and tests are named with an underscore (fct_x, stg_x__y)
NAME = r"[a-z][a-z0-9]*_[a-z0-9_]*"
GRAPH_OPERATOR = re.compile(rf"(?:^|[\s,])(?:\d*\+|@){NAME}(?=$|[\s,+])|(?:^|[\s,]){NAME}\+\d*(?=$|[\s,])")
NAMED_SOURCE = re.compile(r"source:[a-z]")
# a family's tag (or the help texts' {family}, filled with one) is how a family is selected
# a SQL statement given as a keyword argument (``register_subject_findings(select="select ...")``) is no selection
SQL_STATEMENT = re.compile(r"\s*(select|with)\s", re.IGNORECASE)
SELECT_IN_TEXT = re.compile(r"--select(?:=|\s+)(?!tag:(?:[a-z_]+\b|\{family\}))(\S+)")


def _texts(node: ast.AST) -> list[ast.Constant]:
    """The string constants in ``node`` (the literal parts of an f-string included)."""
    return [n for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _is_sql(value: ast.expr) -> bool:
    """True when ``value`` is SQL: a string, or an f-string whose leading literal, starts with select or with."""
    first = value.values[0] if isinstance(value, ast.JoinedStr) and value.values else value
    return isinstance(first, ast.Constant) and isinstance(first.value, str) and bool(SQL_STATEMENT.match(first.value))


def dbt_selectors(source: str) -> list[str]:
    """Each dbt node or path ``source`` (Python) spells in a selection, as "line N: what"."""
    tree = ast.parse(source)
    skipped = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            text = node.value
            for pattern, what in (
                (PATH, "a dbt path"),
                (GRAPH_OPERATOR, "a node with a graph operator"),
                (NAMED_SOURCE, "a named source"),
                (SELECT_IN_TEXT, "a --select"),
            ):
                hit = pattern.search(text)
                if hit:
                    found.append(f"line {node.lineno}: {what} {hit.group(0).strip()!r}")
        elif isinstance(node, ast.keyword) and node.arg in SELECTION_KEYWORDS and not _is_sql(node.value):
            found += [
                f"line {c.lineno}: {node.arg}={c.value!r}"
                for c in _texts(node.value)
                if c.value.strip() and not SQL_STATEMENT.match(c.value)
            ]
        elif isinstance(node, (ast.List, ast.Tuple)):
            items = node.elts
            for flag, item in zip(items, items[1:]):
                if isinstance(flag, ast.Constant) and flag.value in SELECTION_FLAGS:
                    found += [f"line {c.lineno}: {flag.value} {c.value!r}" for c in _texts(item) if c.value.strip()]
    return found


def project_python_files() -> list[Path]:
    """Every Python file of the project but the tests: each top-level folder's (hidden ones, such as a
    virtual environment or a warehouse, aside) and the fixtures'."""
    folders = [
        folder
        for folder in sorted(REPOSITORY_ROOT.iterdir())
        if folder.is_dir() and not folder.name.startswith(".") and folder.name != TESTS
    ]
    return [path for folder in [*folders, REPOSITORY_ROOT / FIXTURES] for path in sorted(folder.rglob("*.py"))]


def test_every_python_file_outside_the_tests_is_read():
    read = {path.relative_to(REPOSITORY_ROOT).parts[0] for path in project_python_files()}
    assert {"warehouse", "biaswh", "ingest", "compute", "analysis", "dashboards", "docs", "lint", "studies"} <= read
    fixtures = [p for p in project_python_files() if p.is_relative_to(REPOSITORY_ROOT / FIXTURES)]
    assert any(p.name == "steps.py" for p in fixtures)  # the toy family's jobs
    assert not any(p.is_relative_to(REPOSITORY_ROOT / TESTS / "biaswh") for p in project_python_files())


def test_no_project_python_file_spells_a_dbt_selection():
    found = []
    for path in project_python_files():
        found += [f"{path.relative_to(REPOSITORY_ROOT)}: {hit}" for hit in dbt_selectors(path.read_text("utf-8"))]
    assert not found, "Python names a dbt node or path (declare writes=/reads=, tag the models in dbt):\n" + "\n".join(
        found
    )


@pytest.mark.parametrize(
    "code",
    [
        '@register_job("x", after="path:models/staging/retrieval path:models/marts/dialect")\ndef f(): pass',
        '@register_job("x", before="+fct_query_variants +fct_squad_questions")\ndef f(): pass',
        'SELECTION = "fct_evaluation_relevant_ranks+ stg_x"',
        'register_rebuild_table("dialect", "fct_dialect_gold_ranks", also_select="fct_evaluation_relevant_ranks")',
        'selection = " ".join(f"tag:run_keyed,path:models/marts/{family}" for family in families)',
        'args = ["build", "--select", "marts.dialect"]',
        'args = ["build", "--exclude", "fct_dialect_gold_ranks"]',
        'HELP = "e.g. biaswh build --select marts.dialect"',
        'selection = "source:retrieval.retrieval_results+"',
        'folder = "dbt_project/seeds/evaluation"',
        'selection = "source:retrieval"',
        'register_findings("x", select="stg_x__runs fct_x_results")',
    ],
)
def test_a_spelled_selection_is_found(code):
    assert dbt_selectors(code)


@pytest.mark.parametrize(
    "code",
    [
        'con.execute("select run_id, k from marts.fct_dialect_gold_ranks where run_id = ?", [run])',
        'con.execute("select a+b, count(*) + 1 from marts.agg_dialect_recall_at_k")',
        '@register_job("x", writes=("raw.retrieval_results",), reads=("marts.fct_query_variants",))\ndef f(): pass',
        'after = [f"source:*.{table}+,+tag:{family}" for table in written]',
        'selection = " ".join(f"tag:run_keyed,tag:{family}" for family in families)',
        'HELP = "e.g. biaswh build --select tag:dialect"',
        'HELP = "e.g. biaswh build --select tag:{family}, a study family\'s models"',
        'NOTE = "the k grid (dbt_project/models/marts/evaluation/_evaluation__models.yml)"',
        'handle = os.fdopen(descriptor, "r+")',
        'subprocess.run([sys.executable, "-m", "biaswh.cli", "run"])',
        'register_findings("x", select="""\n    select run_id, effect\n    from analysis.x_tests\n""")',
        'register_findings("x", select=f"""\n    select run_id, {EFFECT} as effect\n    from analysis.x_tests\n""")',
        'def f():\n    """Builds ``+fct_x`` (a docstring may name a node)."""',
    ],
)
def test_sql_reading_marts_and_derived_selections_pass(code):
    assert dbt_selectors(code) == []
