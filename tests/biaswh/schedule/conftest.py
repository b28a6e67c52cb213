"""The Dagster tests: skipped where the dagster extra is not installed (failed under CI=true), each
with its own ephemeral Dagster instance and a DAGSTER_HOME in its temporary folder; the study job's
run continues the session's warehouse after the evaluation demo (``demo_evaluation``)."""

from __future__ import annotations

import os

import pytest

from biaswh.schedule.extra import missing_dagster_extra
from tests.dbt_project.conftest import demo_evaluation  # noqa: F401 - the session's fixture, for these modules too


@pytest.fixture(scope="module", autouse=True)
def dagster_extra():
    """Skip the module (before any fixture builds a warehouse) when the extra is missing."""
    missing = missing_dagster_extra()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI is missing the dagster extra: {missing}")
        pytest.skip(missing)


@pytest.fixture(autouse=True)
def dagster_home(tmp_path, monkeypatch):
    """A DAGSTER_HOME of the test's own (Dagster writes nothing anywhere else)."""
    home = tmp_path / "dagster_home"
    home.mkdir()
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    return home
