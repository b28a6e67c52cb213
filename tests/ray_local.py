"""The local Ray instance the Ray tests share (a plugin of tests/conftest.py).

``ray.init`` takes about 11 s under load, so the first test asking for :func:`ray_local` starts
one instance for the session. Idle, its daemons (GCS, raylet, dashboard agent, two idle
workers) still used 3.3 CPU-seconds a minute measured here: paid for the rest of a 15-minute
session on 2 cores, that is 40 s of a core for nothing. So the instance stops right after the
session's last test that uses it, not at the session's end.

Under `make test` every such test is in the ``ray`` group (tests/scheduling.py), which one
worker runs in collection order, so the last of them in ``session.items`` is the last it runs.
"""

from __future__ import annotations

import os
import sys

import pytest

from tests.coverage_site.sitecustomize import COVERAGE_VARIABLES

_LAST_USER = pytest.StashKey["pytest.Item | None"]()


@pytest.fixture(scope="session")
def ray_local():
    """A local Ray instance with 2 workers, started once, stopped after its last test."""
    try:
        import ray
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI is missing the Ray extra (make ray)")
        pytest.skip("the Ray extra is not installed (make ray)")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_DISABLE_USAGE_STATS", "1")
        from biaswh.compute.common.engine import ComputeSettings, ensure_ray

        with pytest.MonkeyPatch.context() as unmeasured:
            # Ray's processes (its Python daemons and the workers they start) inherit this
            # environment: without coverage's variable they run untraced (ours run locally too).
            for name in COVERAGE_VARIABLES:
                unmeasured.delenv(name, raising=False)
            ensure_ray(ComputeSettings("ray", workers=2))  # as a study started here starts it
        try:
            yield ray
        finally:
            stop_ray()


def last_ray_user(items: list) -> object | None:
    """The last of ``items`` that uses :func:`ray_local` (directly or through another fixture)."""
    users = [item for item in items if "ray_local" in getattr(item, "fixturenames", ())]
    return users[-1] if users else None


def stop_ray() -> None:
    """Stop this process's Ray instance if one runs."""
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()


@pytest.hookimpl(trylast=True)  # after the item's own fixtures (and its module's) are torn down
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Stop Ray after the session's last test using it."""
    session = item.session
    if _LAST_USER not in session.stash:
        session.stash[_LAST_USER] = last_ray_user(session.items)
    if item is session.stash[_LAST_USER]:
        stop_ray()
