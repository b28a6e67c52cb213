"""How `make test` spreads the tests over its pytest-xdist workers (a plugin of tests/conftest.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests import durations, prebuilt

# Fixtures that several modules share and that cost a start (a study run, Ray, a browser, Spark's
# JVM): under pytest-xdist (`make test`: -n 2 --dist loadgroup) each group runs on one worker, so
# each is paid once per run, not once per worker. When `make test` prebuilds the demo warehouses
# beside the workers (tests/prebuilt.py), the tests reading them need no group of their own and
# run on either worker; else the demo site starts from the demo warehouse and the Ray parity
# test from a copy of it, so those share one group.
PREBUILT = bool(os.environ.get(prebuilt.FOLDER_VARIABLE))
# Groups shorter than this (seconds in tests/durations.json) go last, after the long ones.
FILLER_SECONDS = 5.0
# audit_site: the demo site, then the demo audit; demo_evaluation (tests/dbt_project/conftest.py): the
# demo site's warehouse right after its first study, the demo evaluation
DEMO_FIXTURES = {"demo_warehouse", "demo_site", "audit_site", "demo_evaluation"}
# A module using several of them joins the first listed (the monitoring series, a few minutes of
# ticks, before the browser, a few seconds' start).
if PREBUILT:
    SHARED_GROUPS = {
        "monitoring_series": "monitoring",
        "real_data_examples": "real-data-examples",
        "real_dialect_studies": "real-dialect",
        "ray_local": "ray",
        "browser": "browser",
    }
else:
    SHARED_GROUPS = {
        "monitoring_series": "monitoring",
        "demo_warehouse": "demo",
        "demo_site": "demo",
        "audit_site": "demo",
        "browser": "demo",
        "ray_local": "demo",
        "real_data_examples": "demo",  # it starts from a copy of the demo warehouse
        "real_dialect_studies": "real-dialect",
    }
# Shared groups whose start is cheap (Chromium: a few seconds): a module of theirs measured longer
# than OWN_GROUP_SECONDS starts its own instead of holding the others on one worker behind it
# (the verdict-policy site test and the browser tests ran back to back on one worker, after the
# demo site was built, while the other worker had the Spark build).
CHEAP_START_GROUPS = {"browser"}
OWN_GROUP_SECONDS = 120.0
# While the demo warehouses are built beside them, the workers run at this niceness: the build
# holds up every test reading the demo site (the last minutes of a run), the workers' tests until
# then have time to spare. On two cores the build then gets a core of its own, not two thirds of one.
WORKER_NICENESS = 3


def _asked_group(item: pytest.Item) -> str | None:
    """The group ``item`` asks for: its shared session fixture's, else Spark's (one JVM in the test
    process; ``spark(in_process=False)``, a Spark of its own in a server, is not), else another
    session fixture's (one module's conftest may declare one); None: its module decides."""
    for name, group in SHARED_GROUPS.items():
        if name in item.fixturenames:
            return group
    spark = item.get_closest_marker("spark")
    if spark and spark.kwargs.get("in_process", True):  # a module driving its own Spark server keeps its own
        return "spark"
    # pytest has no public accessor for a fixture's scope; the item's fixture closure holds it.
    for name, definitions in item._fixtureinfo.name2fixturedefs.items():
        if definitions[-1].scope == "session" and definitions[-1].baseid not in ("", "tests"):
            return f"session-{name}"
    return None


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


def _groups(items: list[pytest.Item]) -> dict[str, str]:
    """One group per module: the first any of its tests asks for, else the module's own. A module
    whose tests ran on two workers, or in two stretches of one, would build its module fixtures twice.
    A long module of a group whose start is cheap (:data:`CHEAP_START_GROUPS`) keeps its own."""
    groups: dict[str, str] = {}
    for item in items:
        module = _module(item)
        if groups.get(module, module) == module:
            groups[module] = _asked_group(item) or module
    measured = durations.load()
    for module, group in groups.items():
        if group in CHEAP_START_GROUPS and measured.get(module, 0.0) > OWN_GROUP_SECONDS:
            groups[module] = module
    return groups


def pytest_configure(config: pytest.Config) -> None:
    """In `make test`'s xdist controller: start building the demo warehouses beside the workers."""
    workers = getattr(config.option, "numprocesses", None)
    if getattr(config.option, "dist", None) == "loadgroup":
        # xdist would hand the groups out by their number of tests, most first: a long module of
        # one test (a whole study run) came last and ran alone while the other worker waited.
        # The order of pytest_collection_modifyitems below is kept instead.
        config.option.loadscopereorder = False
    if os.environ.get(prebuilt.PREBUILD_VARIABLE) and workers and not hasattr(config, "workerinput"):
        folder = Path(tempfile.mkdtemp(prefix="biaswh-test-prebuilt-"))
        os.environ[prebuilt.FOLDER_VARIABLE] = str(folder)  # the workers, started after this, inherit it
        config.stash[_PREBUILD] = (folder, prebuilt.start(folder))
    if os.environ.get(prebuilt.PREBUILD_VARIABLE) and PREBUILT and hasattr(config, "workerinput"):
        os.nice(WORKER_NICENESS)  # a worker beside the prebuild (its subprocesses inherit it)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controller ends the prebuild (still running only when the session was cut short) and removes its folder."""
    started = config.stash.get(_PREBUILD, None)
    if started:
        folder, process = started
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


_PREBUILD = pytest.StashKey[tuple]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test with its xdist group (before xdist reads the marks; unused without -n), and
    a test reading a demo warehouse as ``dbt`` (it needs the study's builds: `make test-fast` and
    ``-m "not dbt"`` leave it out), before ``-m`` selects. Under xdist the groups go out longest
    first (seconds from tests/durations.json) and those under :data:`FILLER_SECONDS` last, so a
    run ends on short modules on both workers; with the demo warehouses prebuilt, the Ray and
    Spark groups go first (started early, the other worker fills in beside them), then the other
    long groups, then those reading the demo warehouse (built first), then those reading the demo
    site (built last, after the six other demo studies); a group's tests stay together, in their order."""
    groups = _groups(items)
    heavy, reads_demo, reads_site = set(), set(), set()  # groups, and (in reads_demo) modules too
    for item in items:
        group = groups[_module(item)]
        item.add_marker(pytest.mark.xdist_group(group))
        if getattr(config.option, "loadgroup", False):  # set in xdist workers only
            _name_group(item, group)
        if DEMO_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.dbt)
            reads_demo |= {group, _module(item)}
        if {"demo_site", "audit_site"} & set(item.fixturenames):
            reads_site.add(group)
        if item.get_closest_marker("spark") or item.get_closest_marker("ray"):
            heavy.add(group)
    if not getattr(config.option, "loadgroup", False):
        return
    cost = _group_seconds(items, groups)
    first = heavy if PREBUILT else set()
    late = reads_demo if PREBUILT else set()
    last = reads_site if PREBUILT else set()

    def tier(group: str) -> int:
        """Ray and Spark; the long groups; those reading the demo warehouse, then the demo site;
        the short ones, to even out the end (a worker is handed its next group while it still runs one)."""
        if group in first:
            return 0
        if group in last:
            return 3
        if group in late:
            return 2
        return 4 if cost[group] < FILLER_SECONDS else 1

    items.sort(
        key=lambda item: (
            tier(groups[_module(item)]),
            -cost[groups[_module(item)]],
            groups[_module(item)],
            _module(item) in late,
        )
    )


def _group_seconds(items: list[pytest.Item], groups: dict[str, str]) -> dict[str, float]:
    """Each group's seconds in the last measured `make test`: its modules' (tests/durations.json),
    a module not measured yet counted by its number of tests."""
    measured = durations.load()
    tests_per_module: dict[str, int] = {}
    for item in items:
        tests_per_module[_module(item)] = tests_per_module.get(_module(item), 0) + 1
    cost: dict[str, float] = {}
    for module, count in tests_per_module.items():
        seconds = measured.get(module, count * durations.SECONDS_PER_UNKNOWN_TEST)
        cost[groups[module]] = cost.get(groups[module], 0.0) + seconds
    return cost


def _name_group(item: pytest.Item, group: str) -> None:
    """Append ``@group`` to the test's id, which is how ``--dist loadgroup`` reads a group.

    pytest-xdist 3.8 does so by setting ``item._nodeid``, which pytest 9 no longer reads (an
    item's id is ``item._id``): its groups were silently ignored, every test scheduled alone,
    and module fixtures built on both workers. Done here, on pytest's own id.
    """
    from _pytest.nodeid import NodeId

    if isinstance(getattr(item, "_id", None), NodeId) and "@" not in item.nodeid.rsplit("]", 1)[-1]:
        item._id = NodeId.parse(f"{item.nodeid}@{group}")
