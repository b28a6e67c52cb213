"""The suite's own machinery: module seconds for the xdist order, and coverage paused in test subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from tests import durations, scheduling
from tests.scheduling import _group_seconds, _groups

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.integration.test_study" name="test_a" time="40.5"/>
<testcase classname="tests.integration.test_study" name="test_b" time="1.5"/>
<testcase classname="tests.stats.test_paired.TestWilcoxon" name="test_c" time="2.25"/>
<testcase classname="tests.test_layers" name="test_d" time="0.25"/>
</testsuite></testsuites>
"""


def test_module_seconds_sum_each_modules_tests_classes_included(tmp_path):
    report = tmp_path / "junit.xml"
    report.write_text(JUNIT, encoding="utf-8")
    assert durations.module_seconds(report) == {
        "tests/integration/test_study.py": 42.0,
        "tests/stats/test_paired.py": 2.25,
        "tests/test_layers.py": 0.25,
    }


def test_the_refresh_command_writes_the_file_the_scheduler_reads(tmp_path, monkeypatch):
    report = tmp_path / "junit.xml"
    report.write_text(JUNIT, encoding="utf-8")
    monkeypatch.setattr(durations, "DURATIONS_FILE", tmp_path / "durations.json")
    assert durations.main([str(report)]) == 0
    assert json.loads((tmp_path / "durations.json").read_text(encoding="utf-8"))["tests/test_layers.py"] == 0.2
    assert durations.load()["tests/integration/test_study.py"] == 42.0
    assert durations.main([]) == 2


def test_a_group_costs_its_modules_seconds_and_an_unmeasured_module_its_tests(monkeypatch):
    monkeypatch.setattr(durations, "load", lambda: {"tests/a.py": 30.0, "tests/b.py": 5.0})
    items = [SimpleNamespace(nodeid=f"{module}::test_{n}") for module, n in [("tests/a.py", 1), ("tests/b.py", 1)]]
    items += [SimpleNamespace(nodeid=f"tests/new.py::test_{n}") for n in range(3)]
    groups = {"tests/a.py": "spark", "tests/b.py": "spark", "tests/new.py": "tests/new.py"}
    assert _group_seconds(items, groups) == {"spark": 35.0, "tests/new.py": 3 * durations.SECONDS_PER_UNKNOWN_TEST}


def _item(module: str, fixtures: list[str]) -> SimpleNamespace:
    return SimpleNamespace(
        nodeid=f"{module}::test_it",
        fixturenames=fixtures,
        get_closest_marker=lambda name: None,
        _fixtureinfo=SimpleNamespace(name2fixturedefs={}),
    )


def test_a_long_module_starts_its_own_browser_and_keeps_ray_shared(monkeypatch):
    seconds = {"tests/long_pages.py": 300.0, "tests/pages.py": 20.0, "tests/long_ray.py": 300.0, "tests/ray.py": 9.0}
    monkeypatch.setattr(durations, "load", lambda: seconds)
    monkeypatch.setattr(scheduling, "SHARED_GROUPS", {"browser": "browser", "ray_local": "ray"})
    items = [_item("tests/long_pages.py", ["browser"]), _item("tests/pages.py", ["tmp_path", "browser"])]
    items += [_item("tests/long_ray.py", ["ray_local"]), _item("tests/ray.py", ["ray_local"]), _item("tests/x.py", [])]
    assert _groups(items) == {
        "tests/long_pages.py": "tests/long_pages.py",  # Chromium starts in seconds: not worth the wait
        "tests/pages.py": "browser",
        "tests/long_ray.py": "ray",  # one Ray instance for every Ray test
        "tests/ray.py": "ray",
        "tests/x.py": "tests/x.py",
    }


def test_spark_in_the_test_process_is_one_group_and_a_spark_server_module_keeps_its_own(monkeypatch):
    import pytest

    monkeypatch.setattr(durations, "load", lambda: {})
    monkeypatch.setattr(scheduling, "SHARED_GROUPS", {})
    marks = {
        "tests/session_a.py": pytest.mark.spark.mark,
        "tests/session_b.py": pytest.mark.spark(in_process=True).mark,
        "tests/cluster.py": pytest.mark.spark(in_process=False).mark,
    }
    items = [
        SimpleNamespace(
            **{**vars(_item(module, [])), "get_closest_marker": lambda name, m=mark: m if name == "spark" else None}
        )
        for module, mark in marks.items()
    ]
    assert _groups(items) == {
        "tests/session_a.py": "spark",
        "tests/session_b.py": "spark",
        "tests/cluster.py": "tests/cluster.py",
    }


def test_a_long_page_module_reading_the_monitoring_series_joins_its_group_not_its_own_browser(monkeypatch):
    monkeypatch.setattr(durations, "load", lambda: {"tests/series_page.py": 300.0, "tests/ticks.py": 200.0})
    shared = {"monitoring_series": "monitoring", "browser": "browser"}
    monkeypatch.setattr(scheduling, "SHARED_GROUPS", shared)
    # The test asks for the browser before the fixture that reads the series.
    items = [_item("tests/series_page.py", ["sites", "browser", "monitoring_series"])]
    items += [_item("tests/ticks.py", ["ticks", "monitoring_series"])]
    assert _groups(items) == {"tests/series_page.py": "monitoring", "tests/ticks.py": "monitoring"}


def test_every_measured_module_still_exists():
    root = Path(__file__).parent.parent
    measured = durations.load()
    assert len(measured) > 100
    assert [module for module in measured if not (root / module).is_file()] == []


def _started_process(environment: dict) -> list[str]:
    probe = (
        "import sys\n"
        "print(any(type(f).__name__ == '_PatchOnImport' for f in sys.meta_path))\n"
        "from dbt.cli.main import cli, dbtRunner\n"
        "print(getattr(dbtRunner.invoke, '_pauses_coverage', False) and getattr(cli.main, '_pauses_coverage', False))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], env=environment, capture_output=True, text=True, timeout=300, check=True
    )
    return completed.stdout.split()


def test_a_measured_subprocess_runs_dbt_unmeasured(tmp_path):
    # The environment a test's subprocess gets: coverage's start-up hook measures it
    # (patch = subprocess) and tests/coverage_site is on PYTHONPATH (conftest.coverage_site).
    # The sentence encoder's module is patched by the same finder, on its first import.
    import coverage

    config = coverage.Coverage(config_file=str(Path(__file__).parent.parent / "pyproject.toml"))
    config.config.data_file = str(tmp_path / ".coverage")
    site = str(Path(__file__).parent / "coverage_site")
    environment = {**os.environ, "PYTHONPATH": site, "COVERAGE_PROCESS_CONFIG": config.config.serialize()}
    assert _started_process(environment) == ["True", "True"]
    unmeasured = {k: v for k, v in environment.items() if not k.startswith("COVERAGE_")}
    assert _started_process(unmeasured) == ["False", "False"]


def test_a_kept_prebuild_without_the_evaluation_copy_lets_the_test_build_its_own(tmp_path, monkeypatch):
    from tests import prebuilt

    monkeypatch.setenv(prebuilt.FOLDER_VARIABLE, str(tmp_path))
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "done").write_text("")
    assert prebuilt.prebuilt("evaluation") is None  # an older prebuild: no wait of 45 minutes
    (tmp_path / "evaluation").mkdir()
    (tmp_path / "evaluation" / "done").write_text("")
    assert prebuilt.prebuilt("evaluation") == tmp_path / "evaluation"
    assert prebuilt.prebuilt("site") == tmp_path / "site"


def test_a_prebuild_naming_its_warehouses_builds_those_and_leaves_the_others_to_the_tests(tmp_path, monkeypatch):
    from tests import prebuilt

    monkeypatch.setenv(prebuilt.FOLDER_VARIABLE, str(tmp_path))
    for name in ("demo", "site", "evaluation"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "done").write_text("")
    monkeypatch.setenv(prebuilt.PREBUILD_VARIABLE, "demo,site")  # `make test-spark`
    assert prebuilt.wanted() == ("demo", "site")
    assert prebuilt.prebuilt("audit") is None  # built by its fixture, no wait for a build that never starts
    assert [prebuilt.prebuilt(name) for name in ("demo", "site", "evaluation")] == [
        tmp_path / "demo",
        tmp_path / "site",
        tmp_path / "evaluation",
    ]
    monkeypatch.setenv(prebuilt.PREBUILD_VARIABLE, "site")  # and the demo it starts from
    assert prebuilt.wanted() == ("demo", "site")
    for every in ("1", "demo,site,audit"):
        monkeypatch.setenv(prebuilt.PREBUILD_VARIABLE, every)
        assert prebuilt.wanted() == ("demo", "site", "audit")
