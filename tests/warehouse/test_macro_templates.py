"""A dbt child compiles the templates of the macros its warehouse's builds called before, between requests."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from dbt_common.clients.jinja import get_dbt_macro_name, template_cache

from biaswh.warehouse.dbt_build.macro_templates import CALLED_MACROS_FILE, compile_recorded, record_called


def _macro(name: str, body: str) -> SimpleNamespace:
    return SimpleNamespace(name=name, macro_sql=f"{{% macro {name}() %}}{body}{{% endmacro %}}")


@pytest.fixture
def manifest():
    template_cache.clear()
    macros = {f"macro.test.m{n}": _macro(f"m{n}", f"select {n}") for n in range(4)}
    yield SimpleNamespace(macros=macros)
    template_cache.clear()


def test_the_called_macros_are_recorded_and_grow_with_later_builds(tmp_path, manifest):
    template_cache.get_node_template(manifest.macros["macro.test.m2"])
    record_called(manifest, tmp_path)
    assert json.loads((tmp_path / CALLED_MACROS_FILE).read_text()) == ["macro.test.m2"]
    template_cache.clear()  # a later process calls another macro: both stay recorded
    template_cache.get_node_template(manifest.macros["macro.test.m0"])
    record_called(manifest, tmp_path)
    assert json.loads((tmp_path / CALLED_MACROS_FILE).read_text()) == ["macro.test.m0", "macro.test.m2"]


def test_the_recorded_macros_are_compiled_until_a_request_arrives(tmp_path, manifest):
    (tmp_path / CALLED_MACROS_FILE).write_text(json.dumps(["macro.test.m1", "macro.gone.x", "macro.test.m3"]))
    asked = []
    done = compile_recorded(manifest, tmp_path, keep_going=lambda: not asked.append(1) and len(asked) < 2)
    assert done == 1 and set(template_cache.file_cache) == {manifest.macros["macro.test.m1"].macro_sql}
    assert compile_recorded(manifest, tmp_path, keep_going=lambda: True) == 1  # the rest, once idle again
    template = template_cache.file_cache[manifest.macros["macro.test.m3"].macro_sql]
    macro = getattr(template.make_module(), get_dbt_macro_name("m3"))  # as dbt calls it
    assert macro() == "select 3"
    assert compile_recorded(manifest, tmp_path, keep_going=lambda: True) == 0


def test_a_macro_that_does_not_compile_is_left_to_the_build_and_no_record_is_not_an_error(tmp_path, manifest):
    assert compile_recorded(manifest, tmp_path, keep_going=lambda: True) == 0
    manifest.macros["macro.test.bad"] = SimpleNamespace(name="bad", macro_sql="{% macro bad() %}{% if %}")
    (tmp_path / CALLED_MACROS_FILE).write_text(json.dumps(["macro.test.bad", "macro.test.m0"]))
    assert compile_recorded(manifest, tmp_path, keep_going=lambda: True) == 1
    (tmp_path / CALLED_MACROS_FILE).write_text("not json")
    assert compile_recorded(manifest, tmp_path, keep_going=lambda: True) == 0
