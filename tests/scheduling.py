"""How `make test` spreads the tests over its pytest-xdist workers (a plugin of tests/conftest.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests import prebuilt

# Fixtures that several modules share and that cost a start (a study run, Ray, a browser, Spark's
# JVM): under pytest-xdist (`make test`: -n 2 --dist loadgroup) each group runs on one worker, so
# each is paid once per run, not once per worker. When `make test` prebuilds the demo warehouses
# beside the workers (tests/prebuilt.py), the tests reading them need no group of their own and
# run on either worker; else the demo site starts from the demo warehouse and the Ray parity
# test from a copy of it, so those share one group.
PREBUILT = bool(os.environ.get(prebuilt.FOLDER_VARIABLE))
DEMO_FIXTURES = {"demo_warehouse", "demo_site"}
if PREBUILT:
    SHARED_GROUPS = {"ray_local": "ray", "browser": "browser"}
else:
    SHARED_GROUPS = {"demo_warehouse": "demo", "demo_site": "demo", "browser": "demo", "ray_local": "demo"}


def _xdist_group(item: pytest.Item) -> str:
    """The one scheduling group of ``item``: its shared session fixture's, else Spark's (one JVM),
    else another session fixture's (one module's conftest may declare one), else its module's
    (module fixtures built once)."""
    for name in item.fixturenames:
        if name in SHARED_GROUPS:
            return SHARED_GROUPS[name]
    if item.get_closest_marker("spark"):
        return "spark"
    # pytest has no public accessor for a fixture's scope; the item's fixture closure holds it.
    for name, definitions in item._fixtureinfo.name2fixturedefs.items():
        if definitions[-1].scope == "session" and definitions[-1].baseid not in ("", "tests"):
            return f"session-{name}"
    return item.nodeid.split("::")[0]


def pytest_configure(config: pytest.Config) -> None:
    """In `make test`'s xdist controller: start building the demo warehouses beside the workers."""
    workers = getattr(config.option, "numprocesses", None)
    if os.environ.get(prebuilt.PREBUILD_VARIABLE) and workers and not hasattr(config, "workerinput"):
        folder = Path(tempfile.mkdtemp(prefix="biaswh-test-prebuilt-"))
        os.environ[prebuilt.FOLDER_VARIABLE] = str(folder)  # the workers, started after this, inherit it
        config.stash[_PREBUILD] = (folder, prebuilt.start(folder))


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
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test with its xdist group (before xdist reads the marks; unused without -n), and
    a test reading a demo warehouse as ``dbt`` (it needs the study's builds: `make test-fast` and
    ``-m "not dbt"`` leave it out), before ``-m`` selects. With the demo warehouses prebuilt, the
    tests reading them go last (the build has the time the others take) and Ray and Spark first
    (the longest groups: started early, the other worker fills in beside them)."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_xdist_group(item)))
        if DEMO_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.dbt)
    if PREBUILT:
        items.sort(key=lambda item: (bool(DEMO_FIXTURES & set(item.fixturenames)), not _heavy(item)))


def _heavy(item: pytest.Item) -> bool:
    return bool(item.get_closest_marker("spark") or item.get_closest_marker("ray"))
