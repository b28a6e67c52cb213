"""Line coverage paused while dbt runs in a test process (a plugin of tests/conftest.py).

`make test` measures the coverage of our packages (pytest-cov). Its tracer is called for every
line Python runs, dbt's and Jinja's included, although only our files are recorded: with dbt in
the test process, a test spent about 30% longer (test_run_scope.py: 75 s without coverage,
95-100 s with it). dbt's own lines are never measured, so the tracer stops for each
``dbtRunner.invoke`` and starts again after it. What dbt calls back into (our event callbacks,
on dbt's threads) is not measured while it runs; every other line of ours is.

Applied in the test workers and in the process that prebuilds the demo warehouses
(tests/prebuilt.py); a ``biaswh`` subprocess a test starts is measured whole, dbt included.
"""

from __future__ import annotations

import functools

import pytest


def pause_coverage_during_dbt() -> bool:
    """When coverage is measuring this process, stop it for the length of every dbt invocation.

    Returns whether the pause was installed (False without coverage, or when already installed).
    """
    try:
        import coverage
    except ImportError:
        return False
    measuring = coverage.Coverage.current()
    if measuring is None:
        return False
    from dbt.cli.main import dbtRunner

    if getattr(dbtRunner.invoke, "_pauses_coverage", False):
        return False
    invoke = dbtRunner.invoke

    @functools.wraps(invoke)
    def invoke_unmeasured(self, *args, **kwargs):
        measuring.stop()
        try:
            return invoke(self, *args, **kwargs)
        finally:
            measuring.start()

    invoke_unmeasured._pauses_coverage = True
    dbtRunner.invoke = invoke_unmeasured
    return True


@pytest.hookimpl(trylast=True)  # after pytest-cov, which starts measuring an xdist worker here
def pytest_sessionstart(session) -> None:
    """Install the pause in this test process once pytest-cov has started measuring it."""
    pause_coverage_during_dbt()
