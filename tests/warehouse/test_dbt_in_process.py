"""dbt runs inside biaswh's process: parsed once, reused across builds and warehouses, the file released."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from biaswh.warehouse.database.connection import connect
from biaswh.warehouse.dbt_build import invoke as dbt_invoke
from biaswh.warehouse.dbt_build.parse_cache import CACHE_VARIABLE
from biaswh.warehouse.dbt_build.runner import run_dbt_build
from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT

pytestmark = pytest.mark.dbt
SELECTION = [
    "--select",
    "stg_squad__questions",
    "--indirect-selection",
    "cautious",
    "--exclude-resource-type",
    "unit_test",
]


def test_two_warehouses_two_builds_one_parse_no_child_process(tmp_path, monkeypatch):
    real_popen = subprocess.Popen

    def no_dbt_child(command, *args, **kwargs):
        program = str(command[0] if isinstance(command, (list, tuple)) else command)
        assert not program.endswith("dbt"), f"dbt was started as a child process: {command!r}"
        return real_popen(command, *args, **kwargs)  # dbt itself asks `uname -p` for its metadata

    monkeypatch.setattr(subprocess, "Popen", no_dbt_child)
    parses = []
    real_invoke = dbt_invoke.invoke_dbt

    def counting(args, **options):
        parses.append(args[0]) if args[0] == "parse" else None
        return real_invoke(args, **options)

    before = os.getcwd()
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "parsed"))
    dbt_invoke.parsed_project()  # this process's parse (free when an earlier test parsed)
    monkeypatch.setattr(dbt_invoke, "invoke_dbt", counting)
    for name in ("first", "second"):
        home = tmp_path / name
        monkeypatch.setenv(HOME_VARIABLE, str(home))
        connect().close()
        for _ in range(2):
            summary = run_dbt_build(SELECTION, label=name)
            assert summary.counts.get("success") == 1 and not summary.failures
        con = connect()  # dbt's connection is closed: ours (another configuration) opens the file
        assert con.execute("select count(*) from staging.stg_squad__questions").fetchone() == (0,)
        con.close()
        log = (home / "dbt" / "logs" / "dbt-build.log").read_text(encoding="utf-8")
        assert log.count("OK created sql view model staging.stg_squad__questions") == 2
        assert (home / "dbt" / "target" / "manifest.json").exists()
    assert parses == []  # every build reused the parsed project
    assert os.getcwd() == before  # dbt ran from each warehouse folder, and the process came back


def _in_a_new_process(home, cache, command: str) -> dict | None:
    """``invoke_dbt([command, ...])`` through biaswh's invoker in a fresh Python process: dbt's
    perf_info.json when the call parsed the project, else None."""
    environment = {**os.environ, HOME_VARIABLE: str(home), CACHE_VARIABLE: str(cache)}
    environment["PYTHONPATH"] = str(REPOSITORY_ROOT)
    code = (
        "import sys; from biaswh.warehouse.dbt_build.invoke import invoke_dbt;"
        " from biaswh.warehouse.database.connection import connect;"
        f" connect().close(); sys.exit(not invoke_dbt([{command!r}, *{SELECTION!r}]).success)"
    )
    if command == "parse":
        code = code.replace(f"*{SELECTION!r}", "")
    subprocess.run([sys.executable, "-c", code], env=environment, cwd=REPOSITORY_ROOT, check=True, timeout=600)
    performance = home / "dbt" / "target" / "perf_info.json"
    return json.loads(performance.read_text(encoding="utf-8")) if performance.exists() else None


def test_a_fresh_warehouse_starts_from_the_parse_another_process_made(tmp_path):
    cache = tmp_path / "dbt-cache"
    first = _in_a_new_process(tmp_path / "first", cache, "parse")
    assert first["parsed_path_count"] == first["path_count"] > 100  # nothing to start from: a full parse
    assert len(list(cache.glob("partial_parse-*.msgpack"))) == len(list(cache.glob("manifest-*.pickle"))) == 1
    # Asked to parse, a new process re-reads dbt's state and parses no file again.
    second = _in_a_new_process(tmp_path / "second", cache, "parse")
    assert second["path_count"] == first["path_count"] and second["parsed_path_count"] == 0
    # Asked to build, it loads the parsed project and does not parse at all.
    assert _in_a_new_process(tmp_path / "third", cache, "build") is None
    log = tmp_path / "third" / "dbt" / "logs" / "dbt-build.log"
    assert not log.exists() or "partial parsing" not in log.read_text(encoding="utf-8")
    assert (tmp_path / "third" / "dbt" / "target" / "manifest.json").exists()
    results = json.loads((tmp_path / "third" / "dbt" / "target" / "run_results.json").read_text(encoding="utf-8"))
    statuses = [r["status"] for r in results["results"]]
    assert statuses.count("success") == 1 and set(statuses) == {"success", "pass"}, statuses
    for home in ("second", "third"):
        assert (tmp_path / home / "dbt" / "target" / "manifest.json").exists()
    assert not (REPOSITORY_ROOT / "warehouse.duckdb").exists() and not (tmp_path / "warehouse.duckdb").exists()


def test_a_study_run_loads_dbt_in_the_background_and_its_build_reuses_it(tmp_path, monkeypatch):
    """The kept parsed project is loaded once, by the background start, before the first build
    asks; the build runs from it. A project changed since it was kept is not loaded from it."""
    from biaswh.study_builds import start_dbt_early
    from biaswh.warehouse.dbt_build import warm_start
    from biaswh.warehouse.dbt_build.parse_cache import store_parsed

    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "parsed"))
    store_parsed(dbt_invoke.parsed_project(), dbt_invoke.project_digest(), [])  # kept for this project
    dbt_invoke.forget_parsed_projects()
    loads, loaded_when_called, called = [], [], threading.Event()
    real_load, real_options = dbt_invoke.load_parsed, dbt_invoke.parse_options

    def counting(digest, parse_args):
        if threading.current_thread().name == warm_start.THREAD_NAME:
            called.wait(timeout=3)  # a dbt call that did not wait for this load would have begun
        loads.append(threading.current_thread().name)
        return real_load(digest, parse_args)

    def calling(args):
        loaded_when_called.append(bool(dbt_invoke._MANIFESTS))
        called.set()
        return real_options(args)

    monkeypatch.setattr(dbt_invoke, "load_parsed", counting)
    monkeypatch.setattr(dbt_invoke, "parse_options", calling)
    start_dbt_early({"sources": None, "results": ""})
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "study"))
    connect().close()
    summary = run_dbt_build(SELECTION, label="study")
    assert summary.counts.get("success") == 1 and not summary.failures
    assert loads == [warm_start.THREAD_NAME]  # loaded in the background only, and only once
    assert loaded_when_called[0]  # the build's dbt call began after the background load ended

    # Edited since: the background start finds nothing kept for it and keeps nothing stale.
    dbt_invoke.forget_parsed_projects()
    monkeypatch.setattr(dbt_invoke, "project_digest", lambda: "an edited project")
    dbt_invoke.start_dbt_in_background()
    warm_start.wait_for_dbt()
    assert loads == [warm_start.THREAD_NAME] * 2 and dbt_invoke._MANIFESTS == {}


def test_no_background_start_for_a_run_without_dbt_or_with_dbt_in_a_child(monkeypatch):
    from biaswh.study_builds import start_dbt_early

    started = []
    monkeypatch.setattr("biaswh.study_builds.start_dbt_in_background", lambda: started.append("started"))
    start_dbt_early({"sources": "", "results": ""})  # no build
    start_dbt_early({"sources": None}, "spark")  # Spark's own parse (another key)
    monkeypatch.setenv("BIASWH_DBT_SUBPROCESS", "1")
    start_dbt_early({"sources": None})  # dbt in a child process
    assert started == []
    monkeypatch.delenv("BIASWH_DBT_SUBPROCESS")
    start_dbt_early({"sources": None, "results": ""})
    assert started == ["started"]
