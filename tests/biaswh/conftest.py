"""Warehouses that several modules here read, built once (session fixtures: under `make test` those
modules share one xdist group, tests/scheduling.py): the small audit (tests/biaswh/small_audit.py)
run on a copy of the demo warehouse (test_audit_run.py, test_audit_profiles.py), and the SQL
sandbox's small warehouse (test_sql_sandbox.py, test_sql_sandbox_private_folder.py)."""

from __future__ import annotations

import os
import shutil

import duckdb
import pytest

from tests.biaswh.small_audit import AUDIT, ENDPOINT_SUBJECTS, KEY, comparable_rows, prefers_long_posts
from tests.conftest import copy_warehouse, run_here, seeded_squad_warehouse
from tests.ingest.chat_stand_in import ChatStandIn


@pytest.fixture(scope="session")
def audited(demo_warehouse, tmp_path_factory):
    """The demo warehouse after the small audit: (home, audit config, what it printed, demo run's rows before)."""
    folder = tmp_path_factory.mktemp("audit")
    home = copy_warehouse(demo_warehouse.home, folder / "warehouse")
    config = folder / "small_audit.toml"
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        before = comparable_rows(con.execute("select * from analysis.dialect_paired_tests order by all").fetchall())
    with ChatStandIn(responder=prefers_long_posts) as stand_in, pytest.MonkeyPatch.context() as patch:
        config.write_text(AUDIT + ENDPOINT_SUBJECTS.format(base_url=stand_in.base_url), encoding="utf-8")
        patch.setenv("AUDIT_TEST_KEY", KEY)
        patch.delenv("AUDIT_TEST_KEY_NOT_SET", raising=False)
        printed = run_here("audit", str(config), home=home).stdout
        requests = list(stand_in.requests)
    return home, config, printed, before, requests


@pytest.fixture(scope="session")
def squad_template(tmp_path_factory):
    """One small warehouse (the demo SQuAD file), copied for each test of the SQL sandbox: built once."""
    return seeded_squad_warehouse(tmp_path_factory.mktemp("template"))


@pytest.fixture
def loaded_home(squad_template, warehouse_home, tmp_path, monkeypatch):
    """A copy of the template under ``tmp_path/warehouse``, with ``tmp_path`` the current folder,
    a symbolic link ``link-db`` to the warehouse file and ``link-home`` to its folder, and a hard link
    ``hard-db`` to the warehouse file."""
    warehouse_home.mkdir()
    shutil.copy(squad_template, warehouse_home / "warehouse.duckdb")
    (warehouse_home / "warehouse.lock").write_text("", encoding="utf-8")
    (tmp_path / "link-db").symlink_to(warehouse_home / "warehouse.duckdb")
    os.link(warehouse_home / "warehouse.duckdb", tmp_path / "hard-db")
    (tmp_path / "link-home").symlink_to(warehouse_home, target_is_directory=True)
    (tmp_path / "out").mkdir()
    (tmp_path / "readable.csv").write_text("a\n1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return warehouse_home
