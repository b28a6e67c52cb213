"""Warehouses that several modules here read, built once (session fixtures: under `make test` those
modules share one xdist group, tests/scheduling.py): the SQL sandbox's small warehouse
(test_sql_sandbox.py, test_sql_sandbox_private_folder.py)."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.conftest import seeded_squad_warehouse


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
