"""The config checker on small schemas: each shape's words, where a problem is said to be, what is kept.

The study schema's own messages are tested in ``test_study_schema.py``; here each building block of
``warehouse/settings/config_schema.py`` is given one wrong value and the whole message is compared.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from biaswh.warehouse.settings.config_schema import (
    ANY,
    BOOLEAN,
    FILE,
    INTEGER,
    NUMBER,
    STRING,
    ArrayOfTables,
    Checker,
    Choice,
    ListOf,
    MapOf,
    Number,
    OneOf,
    Table,
)

CONFIG = Path("/studies/s.toml")


def problems(spec, value, *, where="[t]", key="k", check_files=False) -> tuple[object, list[str]]:
    checker = Checker(CONFIG, check_files=check_files)
    kept = checker.value(spec, value, where, key)
    return kept, [p.removeprefix(f"{CONFIG}: ") for p in checker.problems]


@pytest.mark.parametrize(
    ("spec", "value", "message"),
    [
        (STRING, 5, "[t] k must be a string, got 5"),
        (BOOLEAN, "yes", "[t] k must be true or false, got 'yes'"),
        (FILE, 5, "[t] k must be a path, got 5"),
        (ListOf(INTEGER), 3, "[t] k must be a list of integers, got 3"),
        (ListOf(NUMBER), "1", "[t] k must be a list of numbers, got '1'"),
        (ListOf(STRING), "a", "[t] k must be a list of strings, got 'a'"),
        (ListOf(BOOLEAN), True, "[t] k must be a list of booleans, got True"),
        (ListOf(Choice(("a",))), "a", "[t] k must be a list of values, got 'a'"),
        (Choice(("holm", "bh")), "bonferroni", "[t] k must be one of 'holm', 'bh', got 'bonferroni'"),
        (OneOf((STRING, ListOf(STRING))), 1, "[t] k must be a string or a list of strings, got 1"),
        (OneOf((STRING, BOOLEAN), "a name or a switch"), 1, "[t] k must be a name or a switch, got 1"),
        (ArrayOfTables(Table({"a": STRING})), {"a": "x"}, "[t] k must be an array of tables ([[...]]), got {'a': 'x'}"),
        (Table({"a": STRING}), [1], "[t] k must be a table, got [1]"),
        (MapOf(STRING), "x", "[t] k must be a table, got 'x'"),
        (Number(minimum=0), -1, "[t] k must be a number >= 0, got -1"),
    ],
)
def test_a_wrong_value_is_named_with_the_shape_in_words(spec, value, message):
    kept, found = problems(spec, value)
    assert found == [message]
    assert kept is not value  # a value that failed is dropped, not kept


@pytest.mark.parametrize(
    ("spec", "value"),
    [
        (ANY, object()),
        (STRING, "x"),
        (BOOLEAN, False),
        (ListOf(INTEGER), [1, 2]),
        (OneOf((STRING, ListOf(STRING))), ["a"]),
        (Choice(("a", "b")), "b"),
        (ArrayOfTables(Table({"a": STRING})), [{"a": "x"}, {"a": "y"}]),
        (MapOf(NUMBER), {"x": 1.5}),
        (Number(integer=True, maximum=3), 3),
    ],
)
def test_a_value_of_the_right_shape_is_kept_as_it_is(spec, value):
    kept, found = problems(spec, value)
    assert found == [] and kept == value


def test_each_bad_item_of_a_list_is_named_by_its_position_and_the_list_is_dropped():
    kept, found = problems(ListOf(Number(minimum=0)), [1, "2", -3])
    assert found == ["[t] k must be a list of numbers; item 2 is '2'", "[t] k item 3 must be a number >= 0, got -3"]
    assert kept is not None and kept != [1, "2", -3]


def test_a_map_keeps_its_good_items_and_names_the_bad_one_by_its_own_path():
    kept, found = problems(MapOf(Number(minimum=0)), {"ok": 1, "bad": -1})
    assert kept == {"ok": 1} and found == ["[t.k] bad must be a number >= 0, got -1"]


def test_a_table_names_unknown_keys_with_a_suggestion_and_missing_ones_and_keeps_the_rest():
    checker = Checker(CONFIG)
    schema = Table(
        {"depth": Number(integer=True, minimum=1), "name": STRING, "seed": INTEGER}, required=("name", "seed")
    )
    kept = checker.table(schema, {"depht": 5, "depth": 0, "seed": 3}, "[retrieval]")
    assert kept == {"seed": 3}
    assert checker.problems == [
        f"{CONFIG}: [retrieval] unknown key 'depht' (did you mean 'depth'?); known: depth, name, seed",
        f"{CONFIG}: [retrieval] depth must be an integer >= 1, got 0",
        f"{CONFIG}: [retrieval] needs name",
    ]
    checker.table(schema, {"zzz": 1}, "[retrieval]")
    assert checker.problems[-2:] == [
        f"{CONFIG}: [retrieval] unknown key 'zzz'; known: depth, name, seed",  # nothing close: no suggestion
        f"{CONFIG}: [retrieval] needs name and seed",
    ]


def test_nested_tables_and_arrays_of_tables_are_named_by_their_path():
    inner = Table({"b": Number(minimum=0)})
    schema = Table({"runs": ArrayOfTables(Table({"retrieval": Table({"bm25": inner})})), "hybrid": inner})
    checker = Checker(CONFIG)
    values = {"runs": [{"retrieval": {"bm25": {"b": 1}}}, {"retrieval": {"bm25": {"b": -1}}}], "hybrid": {"b": -2}}
    kept = checker.table(schema, values, "[evaluation]")
    assert checker.problems == [
        f"{CONFIG}: [[evaluation.runs]] #2 retrieval.bm25: b must be a number >= 0, got -1",
        f"{CONFIG}: [evaluation.hybrid] b must be a number >= 0, got -2",
    ]
    assert kept["runs"] == [{"retrieval": {"bm25": {"b": 1}}}, {"retrieval": {"bm25": {}}}]


def test_a_missing_file_is_named_only_when_files_are_checked(tmp_path):
    config = tmp_path / "s.toml"
    (tmp_path / "here.csv").write_text("a\n", encoding="utf-8")
    checker = Checker(config, check_files=True)
    for value in ("here.csv", "hf:org/data", "builtin:weat1"):
        assert checker.value(FILE, value, "[t]", "k") == value
    assert checker.value(ListOf(FILE), ["here.csv", "gone.csv"], "[t]", "paths") is not None
    assert checker.problems == [
        f"{config}: [t] paths item 2: no such file or folder 'gone.csv' (looked for {tmp_path / 'gone.csv'})"
    ]
    assert Checker(config).value(FILE, "gone.csv", "[t]", "k") == "gone.csv"  # not checked: kept
