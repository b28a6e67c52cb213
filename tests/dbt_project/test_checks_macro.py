"""The ``checks`` data test fails exactly where dbt's own tests of the same checks fail.

A throwaway dbt project (this project's macros, one seed of rows that break some checks and
keep others) declares every check twice: once in one ``checks`` test and once as the dbt test it
stands for (dbt's built-in not_null, unique and accepted_values; expression_is_true and
unique_combination_of_columns from our macros). One real ``dbt build`` runs them all; for
each check, its failing rows in the ``checks`` test equal the failures dbt reports for its
own test, and the checks test fails with their sum.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from biaswh.warehouse.dbt_build.checks import check_names, describe_failed_checks, failing_checks
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR

pytestmark = pytest.mark.dbt

SEED = """id,k,variant,score,note
1,1,sae,0.5,a
2,1,aae,0.9,
3,2,sae,1.5,b
3,2,xx,0.2,
4,3,yy,-0.1,c
5,3,,0.3,d
"""
CHECKS = {
    "not_null": ["note", "id"],  # note: 2 nulls; id: none
    "expressions": ["score between 0 and 1", "k >= 1"],  # 2 rows out of [0, 1]; none below 1
    "accepted_values": {"variant": ["sae", "aae"]},  # 2 values outside (xx, yy); the null passes
    "unique": ["id", "score"],  # id 3 repeats: 1 value; scores are unique
    "unique_combinations": [["id", "k"], ["id", "variant"]],  # (3, 2) repeats: 1; none
}
# The same checks as dbt's own tests, and how many failures each should report.
OWN_TESTS = [
    ("not_null.0", {"not_null": {"column_name": "note"}}, 2),
    ("not_null.1", {"not_null": {"column_name": "id"}}, 0),
    ("expressions.0", {"expression_is_true": {"arguments": {"expression": "score between 0 and 1"}}}, 2),
    ("expressions.1", {"expression_is_true": {"arguments": {"expression": "k >= 1"}}}, 0),
    ("accepted_values.variant", {"accepted_values": {"column_name": "variant", "values": ["sae", "aae"]}}, 2),
    ("unique.0", {"unique": {"column_name": "id"}}, 1),
    ("unique.1", {"unique": {"column_name": "score"}}, 0),
    ("unique_combinations.0", {"unique_combination_of_columns": {"combination_of_columns": ["id", "k"]}}, 1),
    ("unique_combinations.1", {"unique_combination_of_columns": {"combination_of_columns": ["id", "variant"]}}, 0),
]


def _project(root: Path) -> Path:
    shutil.copytree(DBT_PROJECT_DIR / "macros", root / "macros")
    (root / "seeds").mkdir()
    (root / "seeds" / "rows.csv").write_text(SEED)
    (root / "dbt_project.yml").write_text(
        "name: checks_oracle\nversion: '0.1.0'\nconfig-version: 2\nprofile: checks_oracle\n"
        "macro-paths: [macros]\nseed-paths: [seeds]\n"
        "seeds:\n  checks_oracle:\n    rows:\n      +column_types: {note: varchar, variant: varchar}\n"
    )
    (root / "profiles.yml").write_text(
        f"checks_oracle:\n  target: t\n  outputs:\n    t:\n      type: duckdb\n      path: {root / 'oracle.duckdb'}\n"
    )
    tests = [{"checks": {"arguments": CHECKS}}]
    for label, test, _ in OWN_TESTS:
        ((name, arguments),) = test.items()
        if name in ("not_null", "unique", "accepted_values"):  # dbt's built-ins, as columns declare them
            arguments = {"column_name": arguments.pop("column_name"), "arguments": arguments} if arguments else {}
        elif "arguments" not in arguments:
            arguments = {"arguments": arguments}
        tests.append({name: {"name": f"own_{label.replace('.', '_')}", **arguments}})
    (root / "seeds" / "schema.yml").write_text(
        json.dumps({"version": 2, "seeds": [{"name": "rows", "data_tests": tests}]})
    )
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The throwaway project after one `dbt build`: (its folder, the checks test's compiled query,
    results by test name)."""
    root = _project(tmp_path_factory.mktemp("checks-oracle"))
    dbt = Path(sys.executable).parent / "dbt"
    subprocess.run(
        [str(dbt), "build", "--project-dir", str(root), "--profiles-dir", str(root), "--no-use-colors"],
        cwd=root,
        env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"},
        capture_output=True,
        check=False,
    )
    results = json.loads((root / "target" / "run_results.json").read_text())["results"]
    (compiled,) = (root / "target" / "compiled").rglob("checks_*.sql")  # its name shortened by dbt
    return root, compiled, {r["unique_id"].split(".")[2]: r for r in results if r["unique_id"].startswith("test.")}


def test_each_check_fails_on_the_rows_its_own_dbt_test_fails_on(built):
    root, compiled, results = built
    (checks_id,) = [name for name in results if name.startswith("checks_")]
    failing = dict(failing_checks(compiled, root / "oracle.duckdb"))
    for label, _, expected in OWN_TESTS:
        own = results[f"own_{label.replace('.', '_')}"]
        assert own["failures"] == expected, (label, own["message"])
        assert failing.get(label, 0) == expected, label
    assert results[checks_id]["status"] == "fail"
    assert results[checks_id]["failures"] == sum(expected for _, _, expected in OWN_TESTS) == 8


def test_a_failed_checks_test_is_named_by_the_checks_that_failed(built):
    root, compiled, _ = built
    text = describe_failed_checks(CHECKS, "rows", failing_checks(compiled, root / "oracle.duckdb"))
    assert text.split("; ") == [
        "data test not_null (note) on rows (2 failing rows)",
        "data test expression_is_true (score between 0 and 1) on rows (2 failing rows)",
        "data test accepted_values (variant: sae, aae) on rows (2 failing rows)",
        "data test unique (id) on rows (1 failing row)",
        "data test unique_combination_of_columns (id, k) on rows (1 failing row)",
    ]
    # Unknown failures (a Spark build; a file that cannot be read): every check, named.
    assert failing_checks(compiled, root / "missing" / "oracle.duckdb") is None
    unknown = describe_failed_checks(CHECKS, "rows", None)
    assert unknown.startswith("data test checks on rows (one of: not_null (note); not_null (id);")
    assert len(check_names(CHECKS)) == len(OWN_TESTS)
