"""dbt's string templates are compiled once per process and source, recorded per warehouse, and
compiled again by a dbt child between requests, rendering what dbt's own compile renders."""

from __future__ import annotations

import json

import pytest
from dbt_common.clients.jinja import get_environment, get_template, render_template

from biaswh.warehouse.dbt_build import template_code
from biaswh.warehouse.dbt_build.template_code import COMPILED_STRINGS_FILE, compile_recorded, record_compiled


@pytest.fixture
def kept(monkeypatch):
    """Kept code and new strings of this test only."""
    template_code.install()
    monkeypatch.setattr(template_code, "_KEPT", {})
    monkeypatch.setattr(template_code, "_NEW", {})
    return template_code._KEPT


def _render(source: str, native: bool = False, **context):
    return render_template(get_template(source, context, native=native), context)


def test_a_string_is_compiled_once_and_renders_as_dbts_own_compile(kept, monkeypatch):
    from dbt_common.clients.jinja import MacroFuzzEnvironment

    calls = []
    original = MacroFuzzEnvironment.compile.original
    monkeypatch.setattr(
        MacroFuzzEnvironment.compile, "original", lambda *args: calls.append(args[1]) or original(*args), raising=False
    )
    source = "select {{ a + 1 }} from {{ t }}"
    assert _render(source, a=1, t="x") == "select 2 from x"
    assert _render(source, a=41, t="y") == "select 42 from y"  # the kept code, another context
    assert _render("{{ [a, 2] }}", native=True, a=1) == [1, 2]  # the native kind is kept apart
    assert _render("{{ [a, 2] }}", a=1) == "[1, 2]"
    expected = original(get_environment(None, False), source)
    assert kept[(template_code._kind(get_environment(None, False)), source, None, None, False)].co_code == (
        expected.co_code
    )
    assert calls.count(source) == 1


def test_parsing_environments_with_a_node_undefined_are_not_kept(kept):
    env = get_environment(None, capture_macros=True)
    assert template_code._kind(env) is None
    env.compile("{{ x }}")
    assert kept == {} and template_code._NEW == {}  # nothing kept, nothing recorded


def test_compiled_strings_are_recorded_newest_first_and_capped(kept, tmp_path, monkeypatch):
    _render("a {{ 1 }}")
    record_compiled(tmp_path)
    _render("b {{ 2 }}", native=True)
    record_compiled(tmp_path)
    record_compiled(tmp_path)  # nothing new: unchanged
    assert json.loads((tmp_path / COMPILED_STRINGS_FILE).read_text()) == [[True, "b {{ 2 }}"], [False, "a {{ 1 }}"]]
    monkeypatch.setattr(template_code, "MOST_RECORDED", 2)
    _render("c {{ 3 }}")
    record_compiled(tmp_path)
    assert json.loads((tmp_path / COMPILED_STRINGS_FILE).read_text()) == [[False, "c {{ 3 }}"], [True, "b {{ 2 }}"]]


def test_the_recorded_strings_are_compiled_until_a_request_arrives(kept, tmp_path):
    strings = [[False, "x {{ 1 }}"], [True, "{{ 2 }}"], [False, "{% if %}"], "not a pair", [False, "y {{ 3 }}"]]
    (tmp_path / COMPILED_STRINGS_FILE).write_text(json.dumps(strings))
    asked = []
    assert compile_recorded(tmp_path, keep_going=lambda: not asked.append(1) and len(asked) < 2) == 1
    assert [key[1] for key in kept] == ["x {{ 1 }}"]
    # the rest once idle again; the one that does not compile is left to the build that renders it
    assert compile_recorded(tmp_path, keep_going=lambda: True) == 2
    assert [key[1] for key in kept] == ["x {{ 1 }}", "{{ 2 }}", "y {{ 3 }}"]
    assert template_code._NEW == {}  # compiled from the record: nothing new to record
    assert compile_recorded(tmp_path, keep_going=lambda: True) == 0
    assert _render("y {{ 3 }}") == "y 3"
    (tmp_path / COMPILED_STRINGS_FILE).write_text("not json")
    assert compile_recorded(tmp_path, keep_going=lambda: True) == 0
