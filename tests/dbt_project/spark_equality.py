"""Equality of two relations and of two sites as the Spark tests define it, and whether Spark can run here."""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import subprocess

import duckdb
import pytest

FLOAT_TYPES = ("DOUBLE", "FLOAT", "DECIMAL", "REAL")
# A run id (32 hex digits) or its 12-digit short form, a commit, a timestamp: what two
# warehouses running the same study write differently.
# Not \b: in a download's CSV inside a page, a row starts after an escaped "\\n", so an id
# follows the letter n; any non-hex neighbour ends one.
_RUN_ID = re.compile(r"(?<![0-9a-f])([0-9a-f]{12})(?:[0-9a-f]{20})?(?![0-9a-f])")
_COMMIT = re.compile(r"\b[0-9a-f]{40}\b")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(\+00:00|Z| UTC)?")


def require_spark() -> None:
    """Skip (fail on CI) when Java or pyspark is missing."""
    missing = _java_and_pyspark()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI cannot run the Spark tests: {missing}")
        pytest.skip(missing)


def _java_and_pyspark() -> str | None:
    """Why Spark cannot run here, or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark missing: pip install -e '.[spark]' (make spark)"
    if not shutil.which("java"):
        return "java missing: apt-get install openjdk-17-jre-headless (make spark)"
    if subprocess.run(["java", "-version"], capture_output=True).returncode != 0:
        return "java does not start"
    return None


def _columns(connection, relation: str) -> dict[str, str]:
    return {name: kind for name, kind, *_ in connection.execute(f"describe select * from {relation}").fetchall()}


def assert_equal(connection, left: str, right: str, *, ignore: tuple[str, ...] = ()) -> int:
    """Assert equal contents of two relations (column names, rows: EXCEPT ALL both ways on the
    exact columns, floats within 1e-9 relative), ``ignore`` columns left out; return the row count."""
    columns = {c: kind for c, kind in _columns(connection, left).items() if c not in ignore}
    other = {c for c in _columns(connection, right) if c not in ignore}
    assert set(columns) == other, (left, columns, other)
    floats = sorted(c for c, kind in columns.items() if kind.startswith(FLOAT_TYPES))
    exact = sorted(c for c in columns if c not in floats)
    exact_list = ", ".join(f'"{c}"' for c in exact)
    for one, two in ((left, right), (right, left)):
        missing = connection.execute(
            f"select count(*) from (select {exact_list} from {one} except all select {exact_list} from {two})"
        ).fetchone()[0]
        assert missing == 0, f"{missing} rows of {one} are not in {two}"
    ordered = ", ".join([*(f'"{c}"' for c in exact), *(f'"{c}"::double' for c in floats)])
    rows_left = connection.execute(f"select {ordered} from {left} order by all").fetchall()
    rows_right = connection.execute(f"select {ordered} from {right} order by all").fetchall()
    assert len(rows_left) == len(rows_right)
    for row_left, row_right in zip(rows_left, rows_right):
        for name, a, b in zip(floats, row_left[len(exact) :], row_right[len(exact) :]):
            same = (a is None and b is None) or (
                a is not None
                and b is not None
                and ((math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12))
            )
            assert same, f"{left}.{name}: {a} vs {b} in {row_left[: len(exact)]}"
    return len(rows_left)


def comparable_page(html: str) -> str:
    """A page's HTML with each run id (full or short) numbered by first appearance, commits and timestamps blanked."""
    numbers: dict[str, str] = {}
    html = _COMMIT.sub("<commit>", html)
    html = _RUN_ID.sub(lambda m: numbers.setdefault(m.group(1), f"<run {len(numbers)}>"), html)
    # A commit of a checkout with changes is marked "-dirty": two runs of one session may differ so.
    html = re.sub(r"(<commit>|<run \d+>)-dirty", r"\1", html)
    return _TIMESTAMP.sub("<time>", html)


def first_difference(one: str, two: str, context: int = 120) -> str:
    """Where two texts first differ, with a little context on each side; '' when equal."""
    if one == two:
        return ""
    at = next((i for i, (a, b) in enumerate(zip(one, two)) if a != b), min(len(one), len(two)))
    start = max(0, at - context)
    return f"at character {at}: {one[start : at + context]!r} vs {two[start : at + context]!r}"


@contextlib.contextmanager
def beside_duckdb_run(home, duckdb_home):
    """A read-only connection to the warehouse at ``home`` with the one at ``duckdb_home`` attached as ``duck``."""
    # home_directory: the views over the Parquet in the warehouse folder name it ~/ (parquet_views.py).
    connection = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True, config={"home_directory": str(home)})
    connection.execute(f"attach '{duckdb_home / 'warehouse.duckdb'}' as duck (read_only)")
    try:
        yield connection
    finally:
        connection.close()
