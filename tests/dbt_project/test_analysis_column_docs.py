"""Every column of ``analysis.*`` and of the ``main.*`` contract views carries its description as a
DuckDB comment, the same text dbt's docs show (dbt_project/models/analysis/_analysis_<family>__sources.yml).

The demo warehouse (every demo study, the session's ``demo_site``) holds every analysis table; a
column an analysis step adds without a line in that yml fails here, by name.
"""

import duckdb
import polars as pl
import pytest

from biaswh.analysis.common.store import replace_run_rows
from biaswh.plugins import load_plugins
from biaswh.warehouse.relations.column_docs import ANALYSIS_DOCS_DIR, analysis_descriptions
from biaswh.warehouse.relations.contracts import CONTRACT_RELATIONS, publish_contract_views
from biaswh.warehouse.relations.subject_docs import SUBJECT_COLUMN_DOCS, SUBJECT_VIEW_COLUMNS, SUBJECT_VIEW_COMMENTS


@pytest.fixture(scope="module", autouse=True)
def registered_families() -> None:
    """The contract relations are registered by the families' modules: loaded here, not left to whichever
    module ran a study in this process before (alone, the registry would be empty)."""
    load_plugins()


WHERE = f"add a line to {ANALYSIS_DOCS_DIR.relative_to(ANALYSIS_DOCS_DIR.parents[2])}/_analysis_<family>__sources.yml"


@pytest.fixture(scope="module")
def documented(demo_site) -> dict:
    """Columns (with comments, in order) and relation comments of the analysis and main schemas."""
    with duckdb.connect(str(demo_site.parent / "warehouse.duckdb"), read_only=True) as con:
        columns: dict[tuple[str, str], list[tuple[str, str | None]]] = {}
        for schema, table, column, comment in con.execute(
            "select schema_name, table_name, column_name, comment from duckdb_columns()"
            " where schema_name in ('analysis', 'main') and not internal order by schema_name, table_name, column_index"
        ).fetchall():
            columns.setdefault((schema, table), []).append((column, comment))
        relations = dict(
            con.execute(
                "select schema_name || '.' || table_name, comment from duckdb_tables()"
                " where schema_name in ('analysis', 'marts') union all select schema_name || '.' || view_name, comment"
                " from duckdb_views() where schema_name in ('analysis', 'main', 'marts') and not internal"
            ).fetchall()
        )
        marts = {
            (table, column): comment
            for table, column, comment in con.execute(
                "select table_name, column_name, comment from duckdb_columns() where schema_name = 'marts'"
            ).fetchall()
        }
    return {"columns": columns, "relations": relations, "marts": marts}


def undocumented(columns: dict[tuple[str, str], list], descriptions: dict) -> list[str]:
    """``table.column`` for every analysis column the yml gives no description."""
    return [
        f"{table}.{name}"
        for (schema, table), built in sorted(columns.items())
        if schema == "analysis"
        for name, _ in built
        if not descriptions.get(table, ("", {}))[1].get(name)
    ]


def test_every_analysis_column_has_a_description(documented):
    analysis_tables = {table for schema, table in documented["columns"] if schema == "analysis"}
    assert {"dialect_paired_tests", "evaluation_metrics_at_k", "silent_bias_rates", "weat_interpretations"} <= (
        analysis_tables
    )
    missing = undocumented(documented["columns"], analysis_descriptions())
    assert not missing, f"{len(missing)} analysis column(s) without a description ({WHERE}): {', '.join(missing)}"


def test_a_new_column_without_a_description_is_reported(documented):
    key = ("analysis", "dialect_paired_tests")
    with_new = {**documented["columns"], key: [*documented["columns"][key], ("p_new_test", None)]}
    descriptions = analysis_descriptions()
    newly = set(undocumented(with_new, descriptions)) - set(undocumented(documented["columns"], descriptions))
    assert newly == {"dialect_paired_tests.p_new_test"}


def test_no_description_names_a_column_the_table_does_not_have(documented):
    built = {
        table: {c for c, _ in cols} for (schema, table), cols in documented["columns"].items() if schema == "analysis"
    }
    stale = [
        f"{table}.{name}"
        for table, (_, columns) in sorted(analysis_descriptions().items())
        if table in built
        for name in columns
        if name not in built[table]
    ]
    assert not stale, f"described but not written by any analysis step (renamed or dropped?): {', '.join(stale)}"


def test_analysis_comments_are_the_yml_descriptions(documented):
    descriptions = analysis_descriptions()
    for (schema, table), columns in documented["columns"].items():
        if schema == "analysis":
            assert documented["relations"][f"analysis.{table}"] == descriptions[table][0]
            assert dict(columns) == {name: descriptions[table][1].get(name) for name, _ in columns}, table
    assert "McNemar" in descriptions["dialect_paired_tests"][1]["p_exact"]
    assert not any("{{" in text for _, (_, cols) in descriptions.items() for text in cols.values()), (
        "plain text only: Python writes the yml's text as it is, dbt would render jinja"
    )


def test_every_contract_view_column_carries_its_home_comment(documented):
    published = {table for schema, table in documented["columns"] if schema == "main"} - set(SUBJECT_VIEW_COMMENTS)
    assert published == set(CONTRACT_RELATIONS), "every contract relation is a main view in the demo"
    for name in sorted(published):
        home, relation = CONTRACT_RELATIONS[name]
        assert documented["relations"][f"main.{name}"] == documented["relations"][f"{home}.{relation}"]
        for column, comment in documented["columns"][("main", name)]:
            if home == "marts":
                expected = documented["marts"][(relation, column)]
            else:
                expected = analysis_descriptions()[relation][1][column]
            assert comment and comment == expected, f"main.{name}.{column}"


def test_the_subject_views_carry_their_descriptions(documented):
    for view, comment in SUBJECT_VIEW_COMMENTS.items():
        assert documented["relations"][f"main.{view}"] == comment
        columns = documented["columns"][("main", view)]
        assert columns == [(column, SUBJECT_COLUMN_DOCS[column]) for column in SUBJECT_VIEW_COLUMNS[view]], view


def test_contract_relations_need_no_schema_in_plain_duckdb(demo_site):
    with duckdb.connect(str(demo_site.parent / "warehouse.duckdb"), read_only=True) as con:
        for name in CONTRACT_RELATIONS:
            assert con.execute(f"select count(*) from {name}").fetchone()[0] >= 0


def _comments(con, schema: str, table: str) -> dict[str, str | None]:
    return dict(
        con.execute(
            "select column_name, comment from duckdb_columns() where schema_name = ? and table_name = ?",
            [schema, table],
        ).fetchall()
    )


def test_a_write_comments_its_columns_and_contract_views_copy_them():
    con = duckdb.connect()
    described = analysis_descriptions()["dialect_power"][1]
    replace_run_rows(
        con, "dialect_power", "r1", pl.DataFrame({"run_id": ["r1"], "alpha": [0.05], "not_yet_described": [1]})
    )
    assert _comments(con, "analysis", "dialect_power") == {
        "run_id": described["run_id"],
        "alpha": described["alpha"],
        "not_yet_described": None,
    }
    # A later write that adds a column (a newer analysis step) describes it too.
    replace_run_rows(con, "dialect_power", "r2", pl.DataFrame({"run_id": ["r2"], "power": [0.8]}))
    assert _comments(con, "analysis", "dialect_power")["power"] == described["power"]

    replace_run_rows(con, "silent_bias_rates", "r1", pl.DataFrame({"run_id": ["r1"], "silent_bias_rate": [0.5]}))
    assert publish_contract_views(con) == ["silent_bias_rates"]
    view = _comments(con, "main", "silent_bias_rates")
    assert view == _comments(con, "analysis", "silent_bias_rates") and all(view.values())
    relation_comment = "select comment from duckdb_{kind}s() where schema_name = '{schema}' and {kind}_name = ?"
    assert (
        con.execute(relation_comment.format(kind="view", schema="main"), ["silent_bias_rates"]).fetchone()
        == con.execute(relation_comment.format(kind="table", schema="analysis"), ["silent_bias_rates"]).fetchone()
    )


def test_a_contract_view_already_current_is_kept_and_one_behind_its_home_made_again():
    con = duckdb.connect()
    replace_run_rows(con, "silent_bias_rates", "r1", pl.DataFrame({"run_id": ["r1"], "silent_bias_rate": [0.5]}))
    oid = "select view_oid from duckdb_views() where schema_name = 'main' and view_name = 'silent_bias_rates'"
    assert publish_contract_views(con) == ["silent_bias_rates"]
    first = con.execute(oid).fetchone()
    assert publish_contract_views(con) == ["silent_bias_rates"] and con.execute(oid).fetchone() == first
    con.execute("comment on column analysis.silent_bias_rates.silent_bias_rate is 'changed'")
    publish_contract_views(con)
    assert con.execute(oid).fetchone() != first
    assert _comments(con, "main", "silent_bias_rates") == _comments(con, "analysis", "silent_bias_rates")
    con.execute("alter table analysis.silent_bias_rates add column n_pairs integer")  # a newer step's column
    publish_contract_views(con)
    assert "n_pairs" in _comments(con, "main", "silent_bias_rates")


def test_the_views_are_published_in_one_transaction_a_failure_leaves_none_of_them(monkeypatch):
    from biaswh.warehouse.relations import contracts

    con = duckdb.connect()
    replace_run_rows(con, "silent_bias_rates", "r1", pl.DataFrame({"run_id": ["r1"], "silent_bias_rate": [0.5]}))

    def failing(con):
        raise RuntimeError("the subjects' views failed")

    monkeypatch.setattr(contracts, "publish_subject_views", failing)
    with pytest.raises(RuntimeError, match="subjects' views failed"):
        publish_contract_views(con)
    views = "select count(*) from duckdb_views() where schema_name = 'main' and not internal"
    assert con.execute(views).fetchone() == (0,)  # the contract view made before the failure is gone too
    monkeypatch.undo()
    assert publish_contract_views(con) == ["silent_bias_rates"]
    assert con.execute(views).fetchone() == (1,)
