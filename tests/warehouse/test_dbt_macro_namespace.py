"""A node context's macro namespace built from the kept plan is dbt's own: the same generators in the
same dictionaries, every name resolved as dbt resolves it, and dbt's own path where the plan stops."""

from __future__ import annotations

import pytest

from biaswh.warehouse.dbt_build import macro_namespace
from biaswh.warehouse.dbt_build.invoke import parsed_project
from biaswh.warehouse.settings.home import HOME_VARIABLE

pytestmark = pytest.mark.dbt


@pytest.fixture(scope="module")
def manifest(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(tmp_path_factory.mktemp("dbt-macro-namespace") / "home"))
        yield parsed_project()


def _built(manifest, *, planned: bool, search_package: str, node=None):
    from dbt.clients.jinja import MacroStack
    from dbt.context.macros import MacroNamespaceBuilder

    macro_namespace.install()
    build = MacroNamespaceBuilder.build_namespace if planned else MacroNamespaceBuilder.build_namespace.original
    builder = MacroNamespaceBuilder("bias_warehouse", search_package, MacroStack(), ["dbt_duckdb", "dbt"], node)
    context = {"marker": search_package}
    return build(builder, manifest.get_macros_by_package(), context), context


def _shape(namespace, context) -> dict:
    """Every dictionary of the namespace as (name -> macro id) with each generator's bindings checked."""

    def ids(functions: dict) -> dict:
        for generator in functions.values():
            assert generator.context is context
        return {name: generator.macro.unique_id for name, generator in functions.items()}

    return {
        "global": ids(namespace.global_namespace),
        "local": ids(namespace.local_namespace),
        "internal": ids(namespace.global_project_namespace),
        "packages": {package: ids(functions) for package, functions in namespace.packages.items()},
    }


@pytest.mark.parametrize("search_package", ["bias_warehouse", "dbt_duckdb", "dbt"])
def test_the_planned_namespace_holds_and_resolves_what_dbts_own_does(manifest, search_package):
    node = object()
    planned, planned_context = _built(manifest, planned=True, search_package=search_package, node=node)
    again, again_context = _built(
        manifest, planned=True, search_package=search_package, node=node
    )  # from the kept plan
    own, own_context = _built(manifest, planned=False, search_package=search_package, node=node)
    assert _shape(planned, planned_context) == _shape(own, own_context) == _shape(again, again_context)
    assert len({**planned.global_namespace, **planned.local_namespace}) > 100 and planned.global_project_namespace
    # What a context copies into its top-level names, and what each name resolves to.
    copied, expected = {}, {}
    copied.update(planned)
    expected.update(own)
    assert copied.keys() == expected.keys() == set(own)
    for name, value in expected.items():
        if isinstance(value, dict):
            assert {k: v.macro.unique_id for k, v in copied[name].items()} == {
                k: v.macro.unique_id for k, v in value.items()
            }
        else:
            assert copied[name].macro.unique_id == value.macro.unique_id and copied[name].node is node
            assert planned[name] is copied[name]
    assert planned.get_from_package("dbt", "run_query").macro.unique_id == "macro.dbt.run_query"
    assert planned.get_from_package(None, "run_query") is planned["run_query"]
    assert isinstance(planned, type(own))


def test_a_builder_that_already_holds_macros_takes_dbts_own_path(manifest):
    from dbt.clients.jinja import MacroStack
    from dbt.context.macros import MacroNamespaceBuilder
    from dbt.exceptions import DuplicateMacroNameError

    macro_namespace.install()
    builder = MacroNamespaceBuilder("bias_warehouse", "bias_warehouse", MacroStack(), ["dbt_duckdb", "dbt"])
    builder.build_namespace(manifest.get_macros_by_package(), {})
    with pytest.raises(DuplicateMacroNameError):  # dbt's own check: every macro is there already
        builder.build_namespace(manifest.get_macros_by_package(), {})


def test_a_changed_macro_set_makes_a_new_plan(manifest):
    from dbt.clients.jinja import MacroStack
    from dbt.context.macros import MacroNamespaceBuilder

    macro_namespace.install()
    macros = manifest.get_macros_by_package()
    fewer = {package: dict(list(functions.items())[:3]) for package, functions in macros.items()}
    for given in (macros, fewer, macros):
        builder = MacroNamespaceBuilder("bias_warehouse", "bias_warehouse", MacroStack(), ["dbt_duckdb", "dbt"])
        namespace = builder.build_namespace(given, {})
        assert set(namespace) >= set(given["bias_warehouse"]) and set(namespace.local_namespace) == set(
            given["bias_warehouse"]
        )
        assert set(namespace.global_project_namespace) == set(given["dbt"]) | set(given["dbt_duckdb"])
