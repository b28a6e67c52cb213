"""A later dbt call in a process gets the graph dbt linked for the same parsed project, the plugin
modules found for the same ``sys.path`` and the type tester built for the same columns."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from biaswh.warehouse.dbt_build import invocation_cache
from biaswh.warehouse.dbt_build.build_process import WARM_UP_SELECTION
from biaswh.warehouse.dbt_build.invoke import invoke_dbt, parsed_project
from biaswh.warehouse.dbt_build.runner import build_environment
from biaswh.warehouse.settings.home import HOME_VARIABLE

pytestmark = pytest.mark.dbt


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("dbt-invocation-cache") / "home"
        patch.setenv(HOME_VARIABLE, str(folder))
        parsed_project()
        yield folder


def _edges(graph) -> set:
    return {(a, b, tuple(sorted(data.items()))) for a, b, data in graph.edges(data=True)}


def test_a_later_build_gets_a_copy_of_the_graph_dbt_linked(home, monkeypatch):
    from dbt.compilation import Compiler, Linker

    monkeypatch.setenv(HOME_VARIABLE, str(home))
    invocation_cache.install()
    monkeypatch.setattr(invocation_cache, "_GRAPHS", {})
    linked = []
    original = Compiler.compile.original
    monkeypatch.setattr(Compiler.compile, "original", lambda *a, **k: linked.append(1) or original(*a, **k))
    for _ in range(3):
        assert invoke_dbt(["build", "--select", WARM_UP_SELECTION], env=build_environment(())).success
    assert linked == [1]
    manifest = parsed_project()
    ((_, graphs),) = invocation_cache._GRAPHS.values()
    ((key, kept),) = graphs.items()
    assert key == (True, True, invocation_cache._shape(manifest))  # a build's compile adds the test edges
    linker = Linker()
    linker.link_graph(manifest)
    manifest.build_parent_and_child_maps()
    linker.add_test_edges(manifest)
    assert set(kept.nodes) == set(linker.graph.nodes) and len(kept) > 250
    assert _edges(kept) == _edges(linker.graph)
    assert any(data.get("edge_type") == "parent_test" for _, _, data in kept.edges(data=True))


def test_a_manifest_of_another_size_is_another_key():
    small = SimpleNamespace(nodes={"a": 1}, sources={}, macros={"m": 1})
    grown = SimpleNamespace(nodes={"a": 1, "b": 2}, sources={}, macros={"m": 1})
    assert invocation_cache._shape(small) != invocation_cache._shape(grown)
    assert invocation_cache._shape(small) == (1, 0, 0, 0, 0, 0, 0, 1)


def test_plugin_modules_are_listed_once_per_search_path(monkeypatch):
    import sys

    from dbt.plugins.manager import PluginManager

    invocation_cache.install()
    monkeypatch.setattr(invocation_cache, "_PLUGIN_MODULES", {})
    found = PluginManager.get_prefixed_modules()
    assert found == PluginManager.get_prefixed_modules.original() and "dbt_common" in found
    assert len(invocation_cache._PLUGIN_MODULES) == 1
    monkeypatch.setattr(sys, "path", [*sys.path, "/no/such/folder"])
    assert PluginManager.get_prefixed_modules() == found and len(invocation_cache._PLUGIN_MODULES) == 2


def test_a_type_tester_is_kept_per_text_columns_and_types_rows_as_a_new_one(monkeypatch):
    from dbt_common.clients import agate_helper

    invocation_cache.install()
    monkeypatch.setattr(invocation_cache, "_TYPE_TESTERS", {})
    tester = agate_helper.build_type_tester(["a"], string_null_values=())
    assert agate_helper.build_type_tester(("a",), string_null_values=[]) is tester
    assert agate_helper.build_type_tester(["b"], string_null_values=()) is not tester
    rows, names = [["1", "x", "2024-01-02"], ["", "y", None]], ["a", "b", "c"]
    ours = agate_helper.table_from_rows(rows, names, text_only_columns=["a"])
    fresh = agate_helper.build_type_tester.original(["a"], string_null_values=()).run(rows, names)
    assert [type(t) for t in ours.column_types] == [type(t) for t in fresh]
    assert [tuple(row) for row in ours.rows] == [("1", "x", ours.rows[0][2]), ("", "y", None)]
