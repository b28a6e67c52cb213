"""The sandbox where no hard link to the warehouse can be made: the real file opened read-only, locked down
all the same, named by the path the user gave, and nothing left behind when opening fails.

``tests/biaswh/test_sql_sandbox.py`` holds the refusals through the command; here the fallback of
:func:`biaswh.warehouse.database.sandbox.open_sandbox` is called directly, with no folder to link in (as for a warehouse
file bind-mounted on its own) and the permissions of another user's file, read by a stand-in for
``os.access`` (the suite may run as root, who may write every file).
"""

from __future__ import annotations

import os
import shutil

import duckdb
import pytest

from biaswh.warehouse.database.sandbox import SCRATCH_PREFIX, open_sandbox
from biaswh.warehouse.errors import UserError
from tests.conftest import seeded_squad_warehouse


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return seeded_squad_warehouse(tmp_path_factory.mktemp("template"))


@pytest.fixture
def home(template, warehouse_home, tmp_path, monkeypatch):
    """A copy of the template in ``warehouse_home``, ``readable.csv`` beside it in the current folder."""
    warehouse_home.mkdir()
    shutil.copy(template, warehouse_home / "warehouse.duckdb")
    (tmp_path / "readable.csv").write_text("a\n1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return warehouse_home


def _no_folder_to_link_in(monkeypatch, writable=()) -> None:
    """No folder on the warehouse's file system, and only the files named in ``writable`` writable
    (every file readable): ``os.access`` answers for the mode it is asked about."""

    def access(path, mode, **options):
        if mode == os.W_OK:
            return any(str(path).endswith(suffix) for suffix in writable)
        return mode in (os.R_OK, os.F_OK)

    monkeypatch.setattr("biaswh.warehouse.database.sandbox._scratch_folders", lambda paths, real: [])
    monkeypatch.setattr(os, "access", access)


def _leave_a_wal(home) -> None:
    con = duckdb.connect(str(home / "warehouse.duckdb"))
    con.execute("pragma disable_checkpoint_on_shutdown")  # a WAL left beside the file, as after a crash
    con.execute("create table main.left_in_the_wal as select 42 as answer")
    con.close()


def test_the_real_file_opened_instead_is_locked_down_like_the_link(home, monkeypatch):
    monkeypatch.setenv("BIASWH_MEMORY_LIMIT", "300MB")
    _no_folder_to_link_in(monkeypatch)
    with open_sandbox() as con:
        assert con.execute("select count(*) from raw.squad_questions").fetchone() == (64,)
        assert con.execute("select current_setting('enable_external_access')").fetchone() == (False,)
        assert con.execute("select current_setting('memory_limit')").fetchone()[0].startswith("286")  # 300 MB in MiB
        with pytest.raises(duckdb.PermissionException, match="disabled by configuration"):
            con.execute("select * from read_csv('readable.csv')")
        with pytest.raises(duckdb.Error, match="read-only"):
            con.execute("create table main.written (a int)")
    assert not list(home.glob(f"{SCRATCH_PREFIX}*"))


def test_a_writable_wal_alone_refuses_the_real_file_and_a_read_only_one_is_read(home, monkeypatch):
    _leave_a_wal(home)
    _no_folder_to_link_in(monkeypatch, writable=[".wal"])
    with pytest.raises(UserError) as refused, open_sandbox():
        pass
    assert str(refused.value) == (
        f"sql: cannot open {home / 'warehouse.duckdb'} safely: making a hard link beside it failed (no folder on"
        " the warehouse's file system to link it in); put BIASWH_HOME on a file system with hard links"
    )
    _no_folder_to_link_in(monkeypatch)
    with open_sandbox() as con:
        assert con.execute("select answer from main.left_in_the_wal").fetchone() == (42,)


def test_a_damaged_linked_file_is_named_by_the_warehouse_path_not_the_real_one(home, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "warehouse.duckdb").write_bytes(b"not a database " * 1000)
    (home / "warehouse.duckdb").unlink()
    (home / "warehouse.duckdb").symlink_to(elsewhere / "warehouse.duckdb")
    _no_folder_to_link_in(monkeypatch)
    with pytest.raises(UserError) as refused, open_sandbox():
        pass
    assert str(refused.value).startswith(f"{home / 'warehouse.duckdb'} is not a DuckDB database file")


def test_when_the_linked_file_cannot_be_opened_its_private_folder_is_removed(home):
    (home / "warehouse.duckdb").write_bytes(b"not a database " * 1000)
    with pytest.raises(UserError, match="is not a DuckDB database file"), open_sandbox():
        pass
    assert sorted(os.listdir(home)) == ["warehouse.duckdb"]
