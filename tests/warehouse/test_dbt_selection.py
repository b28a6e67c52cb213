"""Selecting nodes by bare name through the index gives dbt's own answer, for every name of the project."""

from __future__ import annotations

import pytest

from biaswh.warehouse.dbt_build import node_index as dbt_selection
from biaswh.warehouse.dbt_build.invoke import parsed_project
from biaswh.warehouse.settings.home import HOME_VARIABLE

pytestmark = pytest.mark.dbt


@pytest.fixture(scope="module")
def name_search(tmp_path_factory):
    """dbt's bare-name selector method over the real parsed project, and the ids it searches."""
    from dbt.graph.selector_methods import QualifiedNameSelectorMethod

    dbt_selection.install()  # as a study build does (idempotent)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(tmp_path_factory.mktemp("dbt-selection") / "home"))
        manifest = parsed_project()
    included = set(manifest.nodes) | set(manifest.unit_tests) | set(manifest.sources)
    return QualifiedNameSelectorMethod(manifest, None, []), included


def _dbts_answer(method, included, selector) -> set[str]:
    """What dbt's own scan over every node answers."""
    from dbt.graph.selector_methods import QualifiedNameSelectorMethod

    return set(QualifiedNameSelectorMethod.search.original(method, included, selector))


def test_every_name_and_folder_selects_what_dbts_own_search_selects(name_search):
    method, included = name_search
    from dbt.graph.selector_methods import QualifiedNameSelectorMethod

    assert QualifiedNameSelectorMethod.search.indexed
    nodes = [*method.manifest.nodes.values(), *method.manifest.unit_tests.values()]
    selectors = {part for node in nodes for part in node.fqn} | {"no_such_node", "staging", "bias_warehouse"}
    assert len(selectors) > 250  # models, seeds, data tests, unit tests, folders and the package
    sizes = {}
    for selector in sorted(selectors):
        ours = set(method.search(included, selector))
        assert ours == _dbts_answer(method, included, selector), selector
        sizes[selector] = len(ours)
    # A model's name selects that model alone; a folder or the package selects many nodes.
    assert sizes["stg_corpus__queries"] == 1 and sizes["no_such_node"] == 0
    assert sizes["staging"] > 40 and sizes["bias_warehouse"] > sizes["staging"]


def test_a_smaller_node_set_and_patterns_answer_as_dbt_does(name_search):
    method, included = name_search
    models = {uid for uid in included if uid.startswith("model.")}
    # The index follows the node set searched: a data test's name finds nothing among models.
    test_name = next(node.name for node in method.manifest.nodes.values() if node.resource_type == "test")
    assert set(method.search(models, test_name)) == _dbts_answer(method, models, test_name) == set()
    assert len(set(method.search(included, test_name))) == 1
    # Paths and wildcards are dbt's own search.
    for selector in ("staging.corpus.*", "stg_corpus__*", "bias_warehouse.marts", "marts.dialect"):
        ours = set(method.search(included, selector))
        assert ours and ours == _dbts_answer(method, included, selector), selector
