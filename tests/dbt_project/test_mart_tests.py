"""Every mart has a test that checks its content, not only its keys.

A mart passes with a dbt unit test, or with a data test other than the key tests
(``not_null``, ``unique`` and ``unique_combination_of_columns``, which is ``unique`` over
several columns); a ``checks`` test counts as the dbt tests its checks stand for. The
manifest comes from a real ``dbt parse``, so tests declared in any yml file or as singular
tests count.
"""

from __future__ import annotations

import pytest

from biaswh.warehouse.dbt_build.checks import KINDS
from biaswh.warehouse.dbt_build.invoke import parsed_project
from biaswh.warehouse.settings.home import HOME_VARIABLE

pytestmark = pytest.mark.dbt
KEY_TESTS = {"not_null", "unique", "unique_combination_of_columns"}
# Marts allowed to have only key tests (none today). The list may only shrink: a mart on it
# that gains a content test fails this test until it is taken off the list.
KNOWN_GAPS: set[str] = set()


@pytest.fixture(scope="module")
def manifest(tmp_path_factory) -> dict:
    """The project as ``dbt parse`` sees it (this process's parsed project, the one builds use)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(tmp_path_factory.mktemp("dbt-parse") / "home"))
        return parsed_project().writable_manifest().to_dict()


def _content_tests(manifest: dict) -> dict[str, set[str]]:
    """Mart model name -> the names of its data tests beyond the key tests, and 'unit' for unit tests."""
    marts = {
        uid: node["name"]
        for uid, node in manifest["nodes"].items()
        if node["resource_type"] == "model" and node["original_file_path"].startswith("models/marts/")
    }
    found: dict[str, set[str]] = {name: set() for name in marts.values()}
    for node in manifest["nodes"].values():
        if node["resource_type"] != "test":
            continue
        metadata = node.get("test_metadata") or {}
        name = metadata.get("name", "singular")
        names = {name}
        if name == "checks":  # the dbt tests its checks stand for
            names = {KINDS[kind] for kind, value in metadata["kwargs"].items() if kind in KINDS and value}
        if not names - KEY_TESTS:
            continue
        for uid in node["depends_on"]["nodes"]:
            # A relationships test depends on both models; it checks the one it is declared on.
            if uid in marts and (node.get("attached_node") in (None, uid) or name == "singular"):
                found[marts[uid]].update(names - KEY_TESTS)
    for unit_test in manifest.get("unit_tests", {}).values():
        if unit_test["model"] in found:
            found[unit_test["model"]].add("unit")
    return found


def test_every_mart_has_a_unit_test_or_a_content_data_test(manifest):
    found = _content_tests(manifest)
    assert len(found) >= 30  # the manifest holds the marts (a parse that found none would pass vacuously)
    untested = sorted(name for name, tests in found.items() if not tests and name not in KNOWN_GAPS)
    assert not untested, f"marts with only not_null/unique tests and no unit test: {', '.join(untested)}"


def test_the_list_of_known_gaps_only_shrinks(manifest):
    found = _content_tests(manifest)
    covered = sorted(name for name in KNOWN_GAPS if found.get(name))
    gone = sorted(name for name in KNOWN_GAPS if name not in found)
    assert not covered, f"now tested, take off KNOWN_GAPS: {', '.join(covered)}"
    assert not gone, f"no longer marts, take off KNOWN_GAPS: {', '.join(gone)}"


def test_intermediate_models_read_only_staging_intermediate_and_seeds(manifest):
    """A run-keyed pin aside: it keeps, per run and once, what the marts decided when the run was
    built (int_retrieval_pair_judgments_pinned: the gold judgments of the pairs a run asked), as a
    copy into raw did before; the chain then reads the pin, never the mart."""
    nodes = manifest["nodes"]
    intermediate = [
        node
        for node in nodes.values()
        if node["resource_type"] == "model"
        and node["original_file_path"].startswith("models/intermediate/")
        and "run_keyed" not in node["tags"]
    ]
    assert intermediate
    wrong = sorted(
        f"{node['name']} reads {nodes[parent]['name']}"
        for node in intermediate
        for parent in node["depends_on"]["nodes"]
        if parent in nodes
        and not (
            nodes[parent]["resource_type"] == "seed"
            or nodes[parent]["original_file_path"].startswith(("models/staging/", "models/intermediate/"))
        )
    )
    assert not wrong, "; ".join(wrong)


def test_the_dialect_marts_derive_from_the_one_retrieval_metric_chain(manifest):
    """The gold ranks and the evaluation metrics both read fct_evaluation_relevant_ranks, nothing else reads results."""
    models = {node["name"]: node for node in manifest["nodes"].values() if node["resource_type"] == "model"}
    parents = {name: {uid.rsplit(".", 1)[-1] for uid in node["depends_on"]["nodes"]} for name, node in models.items()}
    assert "fct_evaluation_relevant_ranks" in parents["fct_dialect_gold_ranks"]
    assert "fct_evaluation_relevant_ranks" in parents["fct_evaluation_query_metrics"]
    reading_results_with_judgments = sorted(
        name
        for name, read in parents.items()
        if "stg_retrieval__results" in read and ({"stg_retrieval__judgments", "int_retrieval_judgments_pinned"} & read)
    )
    assert reading_results_with_judgments == ["fct_evaluation_relevant_ranks"]
