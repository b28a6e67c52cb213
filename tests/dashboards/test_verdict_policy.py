"""What cards and legends say about the verdict policy a run was judged by
(dashboards/common/verdict_policy.py), read from a run's recorded config and its verdict rows."""

from __future__ import annotations

import json

import duckdb
import pytest

from biaswh.dashboards.common.verdict_policy import (
    adjustment_name,
    alpha_column,
    policy_phrase,
    recorded_policy,
    run_alpha,
    run_parameters,
)
from biaswh.stats.multiple_comparisons import VerdictPolicy


@pytest.fixture
def con():
    """A warehouse with dim_runs: one run per way a run records (or does not record) its policy."""
    connection = duckdb.connect()
    connection.execute("create schema marts")
    connection.execute("create table marts.dim_runs (run_id varchar, parameters varchar, run_parameters varchar)")
    runs = {
        "table": ({"settings": {"verdicts": {"adjustment": "bh", "alpha": 0.1}}}, {"verdicts_alpha": 0.01}),
        "adjustment only": ({"settings": {"verdicts": {"adjustment": "bh"}}}, {"verdicts_alpha": 0.01}),
        "parameter only": ({"settings": {}}, {"verdicts_alpha": 0.01, "k": 10}),
        "nothing": (None, None),
        "retired adjustment": ({"settings": {"verdicts": {"adjustment": "bonferroni", "alpha": 0.2}}}, None),
    }
    for run_id, (parameters, recorded) in runs.items():
        connection.execute(
            "insert into marts.dim_runs values (?, ?, ?)",
            [run_id, parameters and json.dumps(parameters), recorded and json.dumps(recorded)],
        )
    yield connection
    connection.close()


def test_a_runs_parameters_are_read_as_recorded_and_none_is_empty(con):
    assert run_parameters(con, "parameter only") == {"verdicts_alpha": 0.01, "k": 10}
    assert run_parameters(con, "nothing") == {} and run_parameters(con, "no such run") == {}
    assert run_parameters(duckdb.connect(), "table") == {}  # before dim_runs is built


def test_parameters_already_parsed_are_read_as_they_are():
    """A dim_runs whose columns are structs (parsed, not JSON text) gives the same policy."""
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute(
        "create table marts.dim_runs as select 'r' as run_id,"
        " {'settings': {'verdicts': {'adjustment': 'bh'}}} as parameters,"
        " {'verdicts_alpha': 0.01::double} as run_parameters"
    )
    assert run_parameters(con, "r") == {"verdicts_alpha": 0.01}
    assert recorded_policy(con, "r") == VerdictPolicy("fdr_bh", 0.01)


@pytest.mark.parametrize(
    ("run_id", "policy"),
    [
        ("table", VerdictPolicy("fdr_bh", 0.1)),  # the recorded [verdicts] table wins over the parameter
        ("adjustment only", VerdictPolicy("fdr_bh", 0.01)),  # its alpha from the parameter
        ("parameter only", VerdictPolicy("holm", 0.01)),
        ("nothing", VerdictPolicy("holm", 0.05)),
        ("retired adjustment", VerdictPolicy("holm", 0.05)),  # a config no longer accepted: the default
        ("no such run", VerdictPolicy("holm", 0.05)),
    ],
)
def test_the_recorded_policy_is_the_runs_table_then_its_parameter_then_the_default(con, run_id, policy):
    assert recorded_policy(con, run_id) == policy


def test_a_default_alpha_stands_only_where_the_run_recorded_none(con):
    assert recorded_policy(con, "nothing", default_alpha=0.2) == VerdictPolicy("holm", 0.2)
    assert recorded_policy(con, "parameter only", default_alpha=0.2) == VerdictPolicy("holm", 0.01)
    assert recorded_policy(duckdb.connect(), "table", default_alpha=0.2) == VerdictPolicy("holm", 0.2)


def test_the_alpha_column_is_read_where_a_table_has_it(con):
    con.execute("create schema analysis")
    con.execute("create table analysis.judged (run_id varchar, p double, alpha double)")
    con.execute("create table analysis.older (run_id varchar, p double)")
    assert alpha_column(con, "analysis.judged", "v") == "v.alpha"
    assert alpha_column(con, "analysis.judged") == "alpha"
    assert alpha_column(con, "analysis.older", "v") == "null"
    assert alpha_column(con, "marts.judged") == "null"  # the same name in another schema is not it


def test_the_alpha_of_verdict_rows_is_the_stored_one_else_the_runs_policy(con):
    assert run_alpha(con, "parameter only", [{"alpha": None}, {"alpha": 0.1}, {"alpha": 0.1}]) == 0.1
    assert run_alpha(con, "parameter only", [{"alpha": None}, {"p": 0.2}]) == 0.01
    assert run_alpha(con, "nothing", []) == 0.05


@pytest.mark.parametrize(
    ("method", "name"),
    [(None, "Holm"), ("", "Holm"), ("holm", "Holm"), ("fdr_bh", "Benjamini-Hochberg"), ("bh", "Benjamini-Hochberg")],
)
def test_either_spelling_of_an_adjustment_has_one_name(method, name):
    assert adjustment_name(method) == name


def test_an_unknown_adjustment_is_named_as_stored():
    assert adjustment_name("by") == "by"


@pytest.mark.parametrize(
    ("arguments", "family", "phrase"),
    [
        (("holm", 10, 0.05), "", "Holm-adjusted within 10 tests, α = 0.05"),
        (("fdr_bh", 1, 0.01), "", "Benjamini-Hochberg-adjusted within 1 test, α = 0.01"),
        ((None, 1234, 0.1), "", "Holm-adjusted within 1,234 tests, α = 0.1"),
        (("bh", 6, 0.05), "each query set", "Benjamini-Hochberg-adjusted within each query set (6 tests), α = 0.05"),
    ],
)
def test_the_policy_phrase(arguments, family, phrase):
    assert (policy_phrase(*arguments, family=family) if family else policy_phrase(*arguments)) == phrase
