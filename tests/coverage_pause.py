"""Line coverage paused in the test workers while dbt or the sentence encoder runs (a plugin of tests/conftest.py).

The pauses themselves, and why, are in tests/coverage_site/sitecustomize.py, which every Python
process the tests start imports at start-up; here they are installed in the test workers once
pytest-cov measures them.
"""

from __future__ import annotations

import pytest

from tests.coverage_site.sitecustomize import pause_coverage_in_libraries


@pytest.hookimpl(trylast=True)  # after pytest-cov, which starts measuring an xdist worker here
def pytest_sessionstart(session) -> None:
    """Install the pauses in this test process once pytest-cov has started measuring it."""
    pause_coverage_in_libraries()
