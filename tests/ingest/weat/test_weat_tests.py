"""WEAT definitions: the shipped Caliskan et al. (2017) lists, user YAML/JSON, and bad files."""

from __future__ import annotations

import json

import pytest
import yaml

from biaswh.ingest.weat.weat_tests import builtin_path, load_weat_tests, parse_weat_tests
from biaswh.warehouse.errors import InputError
from tests.fingerprints import raw_fingerprint

USER_TESTS = {
    "name": "mine",
    "tests": {
        "career": {
            "title": "Career vs family",
            "target_x": {"label": "male names", "words": ["John", "Paul"]},
            "target_y": {"label": "female names", "words": ["Amy", "Joan"]},
            "attribute_a": {"label": "career words", "words": ["salary", "office"]},
            "attribute_b": {"label": "family words", "words": ["home", "parents", "cousins"], "excluded": ["cousins"]},
        }
    },
}


def _sizes(records, test):
    return {
        role: (
            sum(r["test"] == test and r["set_role"] == role and not r["excluded_by_definition"] for r in records),
            sum(r["test"] == test and r["set_role"] == role and r["excluded_by_definition"] for r in records),
        )
        for role in ("target_x", "target_y", "attribute_a", "attribute_b")
    }


def test_caliskan_lists_have_the_papers_sizes_and_exclusions():
    name, records = parse_weat_tests(builtin_path("builtin:caliskan2017"))
    assert name == "caliskan2017"
    assert sorted({r["test"] for r in records}) == sorted(f"weat{i}" for i in range(1, 11))
    assert _sizes(records, "weat1") == {r: (25, 0) for r in ("target_x", "target_y", "attribute_a", "attribute_b")}
    # WEAT 3: 50 names each, 18 of each excluded by the paper, leaving 32 + 32.
    assert _sizes(records, "weat3")["target_x"] == (32, 18) and _sizes(records, "weat3")["target_y"] == (32, 18)
    assert _sizes(records, "weat9") == {
        "target_x": (6, 0),
        "target_y": (6, 0),
        "attribute_a": (7, 0),
        "attribute_b": (7, 0),
    }
    words = {(r["test"], r["set_role"], r["word"]) for r in records}
    assert ("weat6", "target_x", "John") in words and ("weat4", "target_y", "Darnell") in words
    assert ("weat8", "target_x", "NASA") in words  # case kept exactly as listed


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_user_tests_load_from_yaml_or_json_and_reingest_adds_nothing(con, tmp_path, suffix):
    path = tmp_path / f"mine{suffix}"
    path.write_text(json.dumps(USER_TESTS) if suffix == ".json" else yaml.safe_dump(USER_TESTS), encoding="utf-8")
    result = load_weat_tests(con, path)
    assert (result.source_name, result.rows) == ("mine", 9)
    excluded = con.execute("select word from raw.weat_test_words where excluded_by_definition").fetchall()
    assert excluded == [("cousins",)]
    before = raw_fingerprint(con)
    assert load_weat_tests(con, path).status == "unchanged"
    assert raw_fingerprint(con) == before


def _broken(tmp_path, mutate) -> str:
    document = json.loads(json.dumps(USER_TESTS))
    mutate(document["tests"]["career"])
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        parse_weat_tests(path)
    return str(caught.value)


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda t: t.pop("attribute_b"), "field 'tests.career.attribute_b': missing word set"),
        (lambda t: t["target_y"]["words"].append("John"), "target_x and target_y share words ['John']"),
        (lambda t: t["target_x"]["words"].append("Paul"), "word 'Paul' is listed twice"),
        (lambda t: t["target_x"].update(excluded=["Nobody"]), "excluded words must be among the set's words"),
        (lambda t: t["attribute_a"].update(words=[]), "field 'tests.career.attribute_a.words'"),
        (lambda t: t["attribute_a"]["words"].append(" padded"), "without surrounding spaces"),
    ],
)
def test_bad_definitions_name_the_field(tmp_path, mutate, expected):
    assert expected in _broken(tmp_path, mutate)


def test_malformed_yaml_names_the_line(con, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\ntests:\n  t1: {title: [unclosed\n", encoding="utf-8")
    before = raw_fingerprint(con)
    with pytest.raises(InputError, match=r"bad.yaml: malformed YAML at line \d+"):
        load_weat_tests(con, path)
    assert raw_fingerprint(con) == before


def test_unknown_builtin_lists_the_shipped_ones():
    with pytest.raises(InputError, match="caliskan2017"):
        builtin_path("builtin:nope")
