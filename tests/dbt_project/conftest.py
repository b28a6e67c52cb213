"""Fixtures shared by the dbt test modules."""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from tests.conftest import run_study_here

EVALUATION_STUDY = REPOSITORY_ROOT / "studies" / "demo_evaluation.toml"


@pytest.fixture(scope="session")
def demo(tmp_path_factory):
    """(home, read-only connection) of one warehouse after the demo evaluation study (shared, never changed)."""
    home = tmp_path_factory.mktemp("evaluation") / "warehouse"
    run_study_here(str(EVALUATION_STUDY), home=home)
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    yield home, con
    con.close()
