"""Every mart column has a description, and a build writes the descriptions to DuckDB comments.

The marts are built once on an empty warehouse (the raw schema without rows, seeds loaded):
their columns are then exactly what each model's SQL selects, so a column added to a mart
without a description in its yml fails here, by name. dbt writes ``manifest.json`` (the
descriptions, ``doc()`` blocks rendered) beside the build.
"""

import json
from pathlib import Path

import duckdb
import pytest

from biaswh.warehouse.database.connection import connect
from biaswh.warehouse.dbt_build.runner import dbt_folder, run_dbt_build
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.relations.column_docs import analysis_descriptions
from biaswh.warehouse.settings.home import HOME_VARIABLE

pytestmark = pytest.mark.dbt

MARTS_PATH = "models/marts/"


def _build_models(home: Path, selection: str) -> dict:
    """``dbt build`` of ``selection`` (no tests) on the warehouse in ``home``; dbt's manifest."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv(HOME_VARIABLE, str(home))
        connect().close()
        run_dbt_build(
            ["--select", selection, "--exclude-resource-type", "test", "--exclude-resource-type", "unit_test"],
            label="mart docs",
        )
        return json.loads((dbt_folder() / "target" / "manifest.json").read_text(encoding="utf-8"))


def _column_comments(home: Path, table: str) -> dict[str, str | None]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return dict(
            con.execute(
                "select column_name, comment from duckdb_columns() where schema_name = 'marts' and table_name = ?",
                [table],
            ).fetchall()
        )


@pytest.fixture(scope="module")
def marts_home(tmp_path_factory) -> tuple[Path, dict]:
    """A warehouse folder with every mart built on empty raw tables, and dbt's manifest."""
    home = tmp_path_factory.mktemp("mart_docs") / "warehouse"
    return home, _build_models(home, f"+path:{MARTS_PATH}")


@pytest.fixture(scope="module")
def built(marts_home) -> tuple[dict, dict[str, list[tuple[str, str | None]]], dict[str, str | None], dict, dict]:
    """(mart models by relation name, their columns with comments in order, their relation comments,
    the dbt sources of schema analysis by table name, the mart tables' column types by table)."""
    home, manifest = marts_home
    models = {
        node["alias"]: node
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node["original_file_path"].startswith(MARTS_PATH)
    }
    # The analysis tables are dbt sources: `dbt docs generate` shows them beside the marts.
    analysis_sources = {
        source["name"]: source for source in manifest["sources"].values() if source["schema"] == "analysis"
    }
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        columns: dict[str, list[tuple[str, str | None]]] = {}
        for table, column, comment in con.execute(
            "select table_name, column_name, comment from duckdb_columns()"
            " where schema_name = 'marts' order by table_name, column_index"
        ).fetchall():
            columns.setdefault(table, []).append((column, comment))
        relation_comments = dict(
            con.execute(
                "select table_name, comment from duckdb_tables() where schema_name = 'marts'"
                " union all select view_name, comment from duckdb_views() where schema_name = 'marts'"
            ).fetchall()
        )
        types: dict[str, dict[str, str]] = {}
        for table, column, data_type in con.execute(
            "select table_name, column_name, data_type from duckdb_columns() where schema_name = 'marts'"
            " and table_name in (select table_name from duckdb_tables() where schema_name = 'marts')"
        ).fetchall():
            types.setdefault(table, {})[column] = data_type
    return models, columns, relation_comments, analysis_sources, types


def undocumented_columns(models: dict, columns: dict[str, list]) -> list[str]:
    """``relation.column`` for every built mart column whose model's yml gives it no description."""
    missing = []
    for relation, built_columns in sorted(columns.items()):
        documented = models[relation]["columns"] if relation in models else {}
        missing += [
            f"{relation}.{name}"
            for name, *_ in built_columns
            if not documented.get(name, {}).get("description", "").strip()
        ]
    return missing


def test_every_mart_column_has_a_description(built):
    models, columns, *_ = built
    assert set(columns) == set(models), "every mart model is built and every marts relation is a mart model"
    missing = undocumented_columns(models, columns)
    assert not missing, (
        f"{len(missing)} mart column(s) without a description (add it to the model's yml,"
        f" or a doc block in models/docs/shared_columns.md): {', '.join(missing)}"
    )


def test_no_description_names_a_column_the_mart_does_not_have(built):
    models, columns, *_ = built
    stale = [
        f"{relation}.{name}"
        for relation, node in sorted(models.items())
        for name in node["columns"]
        if name not in {column for column, _ in columns.get(relation, [])}
    ]
    assert not stale, f"described but not selected by the model (renamed or dropped?): {', '.join(stale)}"


def test_a_new_column_without_a_description_is_reported(built):
    models, columns, *_ = built
    with_new_column = {**columns, "fct_weat_results": [*columns["fct_weat_results"], ("new_statistic", None)]}
    newly_missing = set(undocumented_columns(models, with_new_column)) - set(undocumented_columns(models, columns))
    assert newly_missing == {"fct_weat_results.new_statistic"}


def test_descriptions_are_duckdb_comments_for_plain_duckdb_users(built):
    models, columns, relation_comments, *_ = built
    # Incremental (run-keyed) tables and a plain table.
    for relation in ("fct_weat_results", "agg_dialect_recall_at_k", "dim_corpus_documents"):
        assert relation_comments[relation] == models[relation]["description"]
        comments = dict(columns[relation])
        assert comments == {name: column["description"] for name, column in models[relation]["columns"].items()}
    assert "Wilson 95%" in dict(columns["agg_dialect_recall_at_k"])["recall_ci_low"]
    without_comment = [
        f"{relation}.{name}" for relation, cols in columns.items() for name, comment in cols if not comment
    ]
    assert not without_comment


def test_every_mart_table_column_declares_the_type_duckdb_builds(built):
    # A Spark build's tables are read by DuckDB through views that cast to these types
    # (warehouse/spark/marts.py): Parquet has no HUGEINT or JSON, and Spark's sums and ranks
    # are not DuckDB's integer types. A column added or retyped must say its DuckDB type here.
    models, *_, types = built
    wrong = [
        f"{table}.{name}: yml {models[table]['columns'].get(name, {}).get('data_type')!r}, DuckDB {kind!r}"
        for table, columns in sorted(types.items())
        for name, kind in columns.items()
        if models[table]["columns"].get(name, {}).get("data_type") != kind
    ]
    assert not wrong, f"{len(wrong)} mart column(s) whose yml data_type is not DuckDB's: {'; '.join(wrong)}"


def test_dbt_docs_describe_the_analysis_tables_as_python_comments_them(built):
    *_, sources, _ = built
    assert set(sources) == set(analysis_descriptions())
    for name, (description, columns) in analysis_descriptions().items():
        assert sources[name]["description"] == description
        assert {c: node["description"] for c, node in sources[name]["columns"].items()} == columns


def test_a_rebuild_writes_back_a_changed_comment_and_keeps_the_others(marts_home, tmp_path):
    from tests.conftest import copy_warehouse

    home = copy_warehouse(marts_home[0], tmp_path / "warehouse")
    before = _column_comments(home, "fct_weat_results")
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        con.execute("comment on column marts.fct_weat_results.effect_size is 'stale'")
        con.execute("comment on table marts.fct_weat_results is 'stale'")
    manifest = _build_models(home, "fct_weat_results")  # incremental: its rows stay, its docs are written
    model = next(n for n in manifest["nodes"].values() if n.get("alias") == "fct_weat_results")
    after = _column_comments(home, "fct_weat_results")
    assert after == before == {name: column["description"] for name, column in model["columns"].items()}
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        query = "select comment from duckdb_tables() where schema_name = 'marts' and table_name = 'fct_weat_results'"
        assert con.execute(query).fetchone() == (model["description"],)


@pytest.mark.parametrize(
    "change",
    [
        "alter table marts.fct_weat_results add column only_in_the_mart integer",
        "alter table marts.fct_weat_results drop column effect_size",
        "alter table marts.fct_weat_results alter column effect_size type varchar",
    ],
)
def test_a_run_keyed_mart_whose_columns_changed_fails_its_build(marts_home, tmp_path, change):
    # on_schema_change 'fail' (macro run_keyed_config): the build stops instead of dropping columns
    from tests.conftest import copy_warehouse

    home = copy_warehouse(marts_home[0], tmp_path / "warehouse")
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        con.execute(change)
    with pytest.raises(UserError, match="fct_weat_results.* out of sync"):
        _build_models(home, "fct_weat_results")
