"""A study run loads its dashboards' modules in a thread while its results build waits on dbt's process."""

from __future__ import annotations

import threading

import pytest

from biaswh import plugins


def test_the_layers_load_in_another_thread_during_the_block_and_are_waited_for(monkeypatch):
    started, release, seen = threading.Event(), threading.Event(), []

    def load(layers):
        seen.append((layers, threading.current_thread().name))
        started.set()
        release.wait(5)
        seen.append("done")

    monkeypatch.setattr(plugins, "load_plugins", load)
    with plugins.loading_in_background(("dashboards",)):
        assert started.wait(5)  # under way while the block runs
        assert seen == [(("dashboards",), "biaswh-plugin-load")]
        release.set()
    assert seen[-1] == "done"  # the block's end waited for it


def test_a_failed_load_is_left_to_the_stage_that_needs_the_layer_and_no_layer_starts_no_thread(monkeypatch):
    calls = []

    def load(layers):
        calls.append(threading.current_thread().name)
        raise ImportError("a broken page module")

    monkeypatch.setattr(plugins, "load_plugins", load)
    with plugins.loading_in_background(("dashboards",)):
        pass
    assert calls == ["biaswh-plugin-load"]
    with plugins.loading_in_background(()):
        pass
    assert calls == ["biaswh-plugin-load"]
    with pytest.raises(RuntimeError, match="the block's own"):  # the block's error is the one raised
        with plugins.loading_in_background(("dashboards",)):
            raise RuntimeError("the block's own")


def test_with_deferred_the_thread_also_imports_the_deferred_modules_first(monkeypatch):
    seen = []
    monkeypatch.setattr(plugins, "load_deferred", lambda: seen.append(("deferred", threading.current_thread().name)))
    monkeypatch.setattr(plugins, "load_plugins", lambda layers: seen.append((layers, threading.current_thread().name)))
    with plugins.loading_in_background((), deferred=True):
        pass
    assert seen == [("deferred", "biaswh-plugin-load"), ((), "biaswh-plugin-load")]
    seen.clear()
    with plugins.loading_in_background(("dashboards",)):
        pass
    assert seen == [(("dashboards",), "biaswh-plugin-load")]  # not asked: not imported
