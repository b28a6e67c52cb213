"""A failed dbt node is reported by a name a user can read: a data test by its test, arguments and model."""

from __future__ import annotations

import json

from biaswh.warehouse.dbt_build.runner import _failed_node, _manifest_nodes

TEST_ID = "test.bias_warehouse.expression_is_true_stg_retrieval__query_stats__n_hits_0.825e8dc138"
MODEL_ID = "model.bias_warehouse.fct_dialect_gold_ranks"


def _target(tmp_path):
    """A dbt target folder with a manifest of one data test and one model, and their compiled files."""
    target = tmp_path / "target"
    test_file = "models/staging/retrieval/_retrieval__models.yml"
    nodes = {
        TEST_ID: {
            "resource_type": "test",
            "package_name": "bias_warehouse",
            "original_file_path": test_file,
            "path": "expression_is_true_stg_retriev_5bc8158e.sql",
            "attached_node": "model.bias_warehouse.stg_retrieval__query_stats",
            "test_metadata": {
                "name": "expression_is_true",
                "kwargs": {"expression": "(n_hits = 0) = (no_hits_reason is not null)", "model": "{{ ref() }}"},
            },
        },
        MODEL_ID: {
            "resource_type": "model",
            "package_name": "bias_warehouse",
            "original_file_path": "models/marts/dialect/fct_dialect_gold_ranks.sql",
            "path": "marts/dialect/fct_dialect_gold_ranks.sql",
        },
    }
    (target / "compiled" / "bias_warehouse" / test_file).mkdir(parents=True)
    (target / "compiled" / "bias_warehouse" / test_file / nodes[TEST_ID]["path"]).write_text("select 1")
    (target / "manifest.json").write_text(json.dumps({"nodes": nodes}))
    return target


def test_a_failed_data_test_is_named_by_its_test_arguments_and_model(tmp_path):
    target = _target(tmp_path)
    name, path = _failed_node(_manifest_nodes(target), target, TEST_ID)
    assert name == (
        "data test expression_is_true ((n_hits = 0) = (no_hits_reason is not null)) on stg_retrieval__query_stats"
    )
    assert path and path.endswith("_retrieval__models.yml/expression_is_true_stg_retriev_5bc8158e.sql")


def test_a_failed_model_keeps_its_id_and_a_node_missing_from_the_manifest_too(tmp_path):
    target = _target(tmp_path)
    assert _failed_node(_manifest_nodes(target), target, MODEL_ID) == (MODEL_ID, None)  # not compiled
    assert _failed_node(_manifest_nodes(tmp_path), tmp_path, TEST_ID) == (TEST_ID, None)  # no manifest


def test_a_failed_checks_test_off_duckdb_names_every_check_it_holds(tmp_path):
    """On Spark the warehouse file cannot answer which check failed: the line lists them all."""
    from biaswh.warehouse.dbt_build.options import target_name

    target = _target(tmp_path)
    nodes = _manifest_nodes(target)
    nodes[TEST_ID]["test_metadata"] = {
        "name": "checks",
        "kwargs": {"not_null": ["run_id"], "expressions": ["(n_hits = 0) = (no_hits_reason is not null)"]},
    }
    name, path = _failed_node(nodes, target, TEST_ID, on_duckdb=False)
    assert name == (
        "data test checks on stg_retrieval__query_stats (one of: not_null (run_id);"
        " expression_is_true ((n_hits = 0) = (no_hits_reason is not null)))"
    )
    assert path
    assert [target_name(c) for c in (["--target", "spark"], ["-t", "spark"], ["--target=spark"], ["-s", "x"])] == [
        "spark",
        "spark",
        "spark",
        None,
    ]
