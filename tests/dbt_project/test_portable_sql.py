"""No DuckDB-only SQL (models, data-test expressions) outside macros/portability/ but in DuckDB-only models.

A model that builds on Spark must spell every DuckDB-only construct through a dispatched
portability macro; a DuckDB-only model says why in its ``meta.duckdb_only`` (set in
dbt_project.yml) and is disabled on the Spark target. Reads files only: no dbt, no JVM.
"""

from __future__ import annotations

import re

import yaml

from biaswh.warehouse.settings.home import DBT_PROJECT_DIR
from tests.dbt_project.duckdb_only_syntax import (
    duckdb_only_constructs,
    macro_files,
    macro_names,
    model_files,
)


def _duckdb_only_models() -> dict[str, str]:
    """Model name -> reason, from the duckdb_only meta in dbt_project.yml (folder or model level)."""
    project = yaml.safe_load((DBT_PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))
    reasons: dict[str, str] = {}

    def walk(node: dict, path: tuple[str, ...]) -> None:
        reason = (node.get("+meta") or {}).get("duckdb_only")
        if reason:
            for name, file in model_files().items():
                relative = file.relative_to(DBT_PROJECT_DIR / "models").with_suffix("").parts
                if relative[: len(path)] == path or (path and path[-1] == name):
                    reasons[name] = reason
        for key, child in node.items():
            if not key.startswith("+") and isinstance(child, dict):
                walk(child, (*path, key))

    walk(project["models"]["bias_warehouse"], ())
    return reasons


def test_models_that_build_on_spark_have_no_duckdb_only_sql():
    duckdb_only = _duckdb_only_models()
    offenders = {}
    for name, path in model_files().items():
        if name in duckdb_only:
            continue
        found = duckdb_only_constructs(path.read_text(encoding="utf-8"))
        if found:
            offenders[name] = found
    assert offenders == {}, f"write these through macros/portability/ or declare the model duckdb_only: {offenders}"


def test_run_keyed_models_that_build_on_spark_take_their_strategy_from_the_macro():
    # dbt-spark has no delete+insert: run_keyed_incremental() gives insert_overwrite there.
    duckdb_only = _duckdb_only_models()
    offenders = [
        name
        for name, path in model_files().items()
        if name not in duckdb_only and "delete+insert" in path.read_text(encoding="utf-8")
    ]
    assert offenders == [], f"use **run_keyed_incremental() in the config of {offenders}"


def test_macros_outside_portability_are_used_only_by_duckdb_only_models():
    duckdb_only = _duckdb_only_models()
    sources = {name: path.read_text(encoding="utf-8") for name, path in model_files().items()}
    offenders = {}
    for path in macro_files():
        found = duckdb_only_constructs(path.read_text(encoding="utf-8"), is_macro=True)
        if not found:
            continue
        callers = {
            model
            for model, sql in sources.items()
            for macro in macro_names(path)
            if re.search(rf"\b{macro}\s*\(", sql) and model not in duckdb_only
        }
        if callers:
            offenders[path.name] = (found, sorted(callers))
    assert offenders == {}, offenders


def test_every_duckdb_only_model_gives_a_reason():
    duckdb_only = _duckdb_only_models()
    assert duckdb_only, "dbt_project.yml declares no DuckDB-only model"
    assert all(len(reason) > 20 for reason in duckdb_only.values()), duckdb_only


def test_the_scan_finds_the_silent_traps():
    # The constructs that run on Spark with another meaning, not an error.
    assert duckdb_only_constructs("select 1.959964 ^ 2 as z_squared") == ["^ as power (XOR in Spark)"]
    assert duckdb_only_constructs("select regexp_extract(x, '[[:alnum:]]+') as w") == [
        "POSIX class like [[:alnum:]] (matches nothing in Java regex)"
    ]
    assert duckdb_only_constructs("select metric = 'Cohen''s d' as is_d, '' as empty") == [
        "quote doubled inside a literal (Spark keeps both quotes; text_literal())"
    ]
    assert duckdb_only_constructs("select 1.0 / rank_of_gold as rr") == [
        "decimal literal in * or / (Spark rounds decimal division to 6 places)"
    ]
    # Loud on Spark, but found here without a JVM.
    assert duckdb_only_constructs("select a, max(b) as c,\n from t") == ["trailing comma before from"]
    assert duckdb_only_constructs("select cast(n as varchar) as id") == [
        "varchar without a length (Spark: string; text_type())"
    ]
    assert duckdb_only_constructs("select {{ power_of('z', 2) }} as ok, '^x' as literal") == []


def _data_test_expressions(node, found: list[str]) -> list[str]:
    """Every SQL expression of a yml node's data tests: ``expression`` (expression_is_true and kin)
    and each of a ``checks`` test's ``expressions``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "expression" and isinstance(value, str):
                found.append(value)
            elif key == "expressions" and isinstance(value, list):
                found.extend(str(expression) for expression in value)
            else:
                _data_test_expressions(value, found)
    elif isinstance(node, list):
        for item in node:
            _data_test_expressions(item, found)
    return found


def test_data_tests_of_models_that_build_on_spark_have_no_duckdb_only_sql():
    # Data tests run on Spark too (len() of a list failed there before element_count()).
    duckdb_only = _duckdb_only_models()
    offenders = {}
    checked = 0
    for path in sorted((DBT_PROJECT_DIR / "models").rglob("*.yml")):
        for model in yaml.safe_load(path.read_text(encoding="utf-8")).get("models") or []:
            if model["name"] in duckdb_only:
                continue
            for expression in _data_test_expressions(model, []):
                checked += 1
                found = duckdb_only_constructs(expression)
                if found:
                    offenders.setdefault(model["name"], []).append((expression, found))
    assert checked > 20, checked
    assert offenders == {}, offenders
