"""Each family declares its run parameters (defaults and ranges) and its sub-runs; the kernel only applies them.

A family's defaults are dbt vars in its ``<family>_run_parameter_defaults`` macro
(:mod:`biaswh.warehouse.runs.family_vars`), which dbt and Python both read; the ranges are checked by
:func:`biaswh.warehouse.runs.parameters.resolve_parameters` once the families are loaded; a sub-run
kind is declared twice, for Python (:mod:`biaswh.warehouse.runs.sub_runs`) and for dbt (its raw table's
source ``meta: {parent_run_column: ...}``), and the two must agree; Spark's list of withdrawn
runs, read from the exported Parquet, follows the registered kinds.
"""

from __future__ import annotations

import duckdb
import pytest
import yaml

from biaswh.plugins import load_plugins
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.family_vars import defaults_macro_files, family_var_defaults
from biaswh.warehouse.runs.parameters import parameter_defaults, resolve_parameters
from biaswh.warehouse.runs.sub_runs import SUB_RUN_KINDS, SubRunKind
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR
from biaswh.warehouse.settings.plugin_roots import PLUGINS_VARIABLE, family_names
from biaswh.warehouse.spark.raw_export import RAW_LOCATION_VARIABLE
from biaswh.warehouse.spark.target import withdrawn_run_ids


@pytest.fixture(scope="module", autouse=True)
def families():
    load_plugins()


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"dialect_highlight_k": [5, 0]}, "dialect_highlight_k item 2 "),
        ({"evaluation_overlap_k": 0}, "evaluation_overlap_k "),
        ({"recsys_marker_two_stars": 1.5}, "recsys_marker_two_stars "),
        ({"snippet_chars": -1}, "snippet_chars "),
        ({"recsys_alpha": 0.1}, "recsys_alpha: set [verdicts] alpha instead"),
    ],
)
def test_a_family_parameter_out_of_its_declared_range_is_refused(overrides, problem):
    with pytest.raises(UserError) as refused:
        resolve_parameters(overrides)
    assert problem in str(refused.value)


def test_in_range_family_parameters_pass():
    resolved = resolve_parameters({"dialect_highlight_k": [1, 3], "recsys_marker_two_stars": 0.6})
    assert resolved["dialect_highlight_k"] == [1, 3] and resolved["recsys_marker_two_stars"] == 0.6


def test_each_family_declares_its_defaults_in_its_macros_folder_and_the_project_keeps_the_kernels():
    files = defaults_macro_files()
    assert {path.parent.name for path in files} == {"dialect", "evaluation", "recsys", "silent_bias"}
    assert {path.parent.name for path in files} <= set(family_names())
    assert all(path.stem == f"{path.parent.name}_run_parameter_defaults" for path in files)
    project = yaml.safe_load((DBT_PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))
    assert set(project["vars"]) == {"rebuild_run_ids", "verdicts_alpha"}
    declared = family_var_defaults()
    assert declared["evaluation_k"] == [1, 3, 5, 10, 20]
    assert declared["recsys_dataset_only_features"] == "author_*=twitter"
    assert declared["silent_bias_label_scope"] == "full_output" and "verdicts_alpha" not in declared
    assert parameter_defaults()["verdicts_alpha"] == 0.05 and "rebuild_run_ids" not in parameter_defaults()


def _plugin_defaults(folder, family: str, body: str) -> None:
    macros = folder / "dbt_project" / "macros" / family
    macros.mkdir(parents=True)
    (macros / f"{family}_run_parameter_defaults.sql").write_text(
        f"{{% macro {family}_run_parameter_defaults() -%}}\n{{%- set defaults -%}}\n{body}\n{{%- endset -%}}\n"
        "{{ return(fromyaml(defaults)) }}\n{%- endmacro %}\n",
        encoding="utf-8",
    )


def test_a_plugin_familys_defaults_macro_adds_its_parameters(tmp_path, monkeypatch):
    _plugin_defaults(tmp_path, "toy", "# Fewest items.\ntoy_min_items: 3\ntoy_labels: [a, b]")
    monkeypatch.setenv(PLUGINS_VARIABLE, str(tmp_path))
    assert family_var_defaults()["toy_min_items"] == 3 and resolve_parameters({})["toy_labels"] == ["a", "b"]
    with pytest.raises(UserError, match=r"toy_min_items: expected a value like 3, got 'x'"):
        resolve_parameters({"toy_min_items": "x"})


def test_a_parameter_two_families_declare_is_refused(tmp_path, monkeypatch):
    _plugin_defaults(tmp_path, "copycat", "evaluation_k: [1]")
    monkeypatch.setenv(PLUGINS_VARIABLE, str(tmp_path))
    with pytest.raises(UserError, match=r"copycat_run_parameter_defaults.sql: run parameter evaluation_k is declared"):
        family_var_defaults()


def _dbt_sub_run_tables() -> set[tuple[str, str]]:
    declared = set()
    for path in (DBT_PROJECT_DIR / "models").rglob("*.yml"):
        for source in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("sources") or []:
            for table in source.get("tables") or []:
                meta = (table.get("config") or {}).get("meta") or table.get("meta") or {}
                if "parent_run_column" in meta:
                    declared.add((table["name"], meta["parent_run_column"]))
    return declared


def test_python_and_dbt_declare_the_same_sub_runs():
    registered = {(kind.table, kind.parent_column) for kind in SUB_RUN_KINDS.values()}
    assert registered == _dbt_sub_run_tables()
    assert SUB_RUN_KINDS["evaluation"] == SubRunKind("evaluation_runs", "series_run_id", "position")


def test_spark_withdraws_the_sub_runs_of_a_failed_run(tmp_path, monkeypatch):
    monkeypatch.setenv(RAW_LOCATION_VARIABLE, str(tmp_path))
    with duckdb.connect() as con:
        con.execute(
            f"copy (select * from (values ('failed-series', 'failed'), ('kept', 'succeeded'))"
            f" as t(run_id, status)) to '{tmp_path / 'runs'}' (format parquet, partition_by (run_id))"
        )
        con.execute(
            "copy (select * from (values ('child-0', 'failed-series', 0), ('child-1', 'failed-series', 1),"
            " ('other-0', 'kept', 0)) as t(run_id, series_run_id, position))"
            f" to '{tmp_path / 'evaluation_runs'}' (format parquet, partition_by (run_id))"
        )
    assert withdrawn_run_ids() == ["child-0", "child-1", "failed-series"]


def test_spark_reads_no_sub_run_table_that_was_not_exported(tmp_path, monkeypatch):
    monkeypatch.setenv(RAW_LOCATION_VARIABLE, str(tmp_path))
    with duckdb.connect() as con:
        con.execute(
            f"copy (select * from (values ('failed-run', 'failed')) as t(run_id, status))"
            f" to '{tmp_path / 'runs'}' (format parquet, partition_by (run_id))"
        )
    assert withdrawn_run_ids() == ["failed-run"]
