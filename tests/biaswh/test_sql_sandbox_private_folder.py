"""The private folder `biaswh sql` reads the warehouse through (a hard link to its file, and to its WAL):
spills go there and it is removed, a dead process's folder is cleared and a planted link not followed,
and where no link can be made the reason is named, a writable warehouse or WAL refused, and nothing left."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

import duckdb
import pytest

from biaswh.cli import main
from biaswh.warehouse.database.sandbox import SCRATCH_PREFIX, _scratch_folders, open_sandbox
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import warehouse_paths
from tests.biaswh.sandbox_home import warehouse_state


def test_a_large_sort_spills_to_the_private_folder_and_it_is_removed(loaded_home, monkeypatch, capsys):
    monkeypatch.setenv("BIASWH_MEMORY_LIMIT", "100MB")  # the sort below holds about 150 MB of strings
    before = warehouse_state(loaded_home)
    rows = "select repeat(range::varchar, 40) as s from range(600000)"
    assert main(["sql", f"select max(s) as n from (select s from ({rows}) order by s desc offset 1)", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["n", "9" * 160]  # the largest is 99999 x 40
    assert warehouse_state(loaded_home) == before


def test_a_stale_private_folder_of_a_dead_process_is_removed(loaded_home, capsys):
    stale = loaded_home / f"{SCRATCH_PREFIX}999999999-abc"
    stale.mkdir()
    (stale / "warehouse.duckdb").write_text("left by a killed biaswh sql", encoding="utf-8")
    assert main(["sql", "select 1 as a", "--csv"]) == 0
    assert not stale.exists()


def test_only_private_folders_of_dead_processes_are_removed_and_a_planted_link_is_not_followed(
    loaded_home, tmp_path, capsys
):
    kept = [f"{SCRATCH_PREFIX}1-init", f"{SCRATCH_PREFIX}{os.getpid()}-mine", f"{SCRATCH_PREFIX}notapid-x"]
    for name in kept:  # pid 1 is alive; this process is alive; a name without a pid is nobody's
        (loaded_home / name).mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not the sandbox's", encoding="utf-8")
    (loaded_home / f"{SCRATCH_PREFIX}999999999-link").symlink_to(elsewhere, target_is_directory=True)
    assert main(["sql", "select 1 as a", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["a", "1"]
    assert all((loaded_home / name).is_dir() for name in kept)
    assert (elsewhere / "keep.txt").read_text(encoding="utf-8") == "not the sandbox's"


def test_a_wal_left_by_a_crashed_writer_is_read_through_the_private_link(loaded_home, capsys):
    con = duckdb.connect(str(loaded_home / "warehouse.duckdb"))
    con.execute("pragma disable_checkpoint_on_shutdown")  # committed rows stay in the WAL, as after a crash
    con.execute("set wal_autocheckpoint = '1TB'")
    con.execute("create table main.left_in_the_wal as select 42 as answer")
    con.close()
    before = warehouse_state(loaded_home)
    assert "warehouse.duckdb.wal" in before[0]
    assert main(["sql", "select answer from main.left_in_the_wal", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["answer", "42"]
    assert warehouse_state(loaded_home) == before


def test_a_private_folder_is_sought_only_in_folders_that_exist_on_the_warehouse_file_system(loaded_home, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(loaded_home / "no-such-folder"))
    paths = warehouse_paths()
    assert _scratch_folders(paths, paths.duckdb_file.resolve()) == [loaded_home.resolve()]


def test_without_a_folder_to_link_in_a_writable_warehouse_is_not_opened(loaded_home, monkeypatch):
    # as with a bind-mounted warehouse file: no folder on its file system at all
    monkeypatch.setattr("biaswh.warehouse.database.sandbox._scratch_folders", lambda paths, real: [])
    with pytest.raises(UserError) as refused, open_sandbox():
        pass
    assert str(refused.value).endswith(
        "making a hard link beside it failed (no folder on the warehouse's file system to link it in);"
        " put BIASWH_HOME on a file system with hard links"
    )


def test_the_private_links_are_gone_while_the_warehouse_is_open(loaded_home):
    with open_sandbox() as con:
        (scratch,) = loaded_home.glob(f"{SCRATCH_PREFIX}*")
        assert scratch.name.startswith(f"{SCRATCH_PREFIX}{os.getpid()}-")  # whose it is, for a later clean-up
        assert [p.name for p in scratch.iterdir() if not p.is_dir()] == []  # nothing there leads to the warehouse
        assert con.execute("select count(*) from raw.squad_questions").fetchone() == (64,)
    assert not list(loaded_home.glob(f"{SCRATCH_PREFIX}*"))


def test_without_a_folder_to_link_in_a_warehouse_this_user_cannot_write_is_opened_read_only(loaded_home, monkeypatch):
    monkeypatch.setattr("biaswh.warehouse.database.sandbox._scratch_folders", lambda paths, real: [])
    monkeypatch.setattr(os, "access", lambda path, mode, **options: False)  # as for another user's file
    with open_sandbox() as con:
        assert con.execute("select count(*) from raw.squad_questions").fetchone() == (64,)
        with pytest.raises(duckdb.Error, match="read-only"):
            con.execute("create table main.written (a int)")
    assert not list(loaded_home.glob(f"{SCRATCH_PREFIX}*"))


def test_a_damaged_warehouse_is_named_by_its_own_path_not_the_private_link(loaded_home, capsys):
    (loaded_home / "warehouse.duckdb").write_bytes(b"not a database " * 1000)
    assert main(["sql", "select 1 as a"]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"biaswh: error: {loaded_home / 'warehouse.duckdb'} is not a DuckDB database file"), error


@pytest.mark.parametrize(
    ("call", "error"),
    [
        ("tempfile.mkdtemp", OSError(errno.EACCES, "Permission denied")),  # no private folder can be made
        ("os.link", OSError(errno.EXDEV, "Invalid cross-device link")),  # no hard link can be made
    ],
)
def test_when_no_link_can_be_made_the_reason_is_named_and_nothing_is_left(call, error, loaded_home, monkeypatch):
    def refuse(*args, **kwargs):
        raise error

    monkeypatch.setattr(f"biaswh.warehouse.database.sandbox.{call}", refuse)
    with pytest.raises(UserError) as refused, open_sandbox():
        pass
    assert str(refused.value).endswith(
        f"making a hard link beside it failed ({error.strerror}); put BIASWH_HOME on a file system with hard links"
    )
    assert not list(loaded_home.glob(f"{SCRATCH_PREFIX}*"))


@pytest.mark.parametrize("call", ["tempfile.mkdtemp", "os.link"])
def test_when_the_warehouse_folder_refuses_the_link_the_next_folder_on_its_file_system_is_used(
    call, loaded_home, tmp_path, monkeypatch, capsys
):
    spare = tmp_path / "spare"  # the temporary folder, on the warehouse's file system here
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    module, name = call.split(".")
    original = getattr(tempfile if module == "tempfile" else os, name)

    def refuse_in_the_warehouse_folder(*args, **kwargs):
        target = Path(kwargs.get("dir") or args[-1])
        if loaded_home.resolve() in (target, *target.parents):
            raise OSError(errno.EACCES, "Permission denied")
        return original(*args, **kwargs)

    monkeypatch.setattr(f"biaswh.warehouse.database.sandbox.{call}", refuse_in_the_warehouse_folder)
    with open_sandbox() as con:
        assert con.execute("select count(*) from raw.squad_questions").fetchone() == (64,)
        assert [p.name.startswith(SCRATCH_PREFIX) for p in spare.iterdir()] == [True]
    assert not list(loaded_home.glob(f"{SCRATCH_PREFIX}*")) and list(spare.iterdir()) == []


@pytest.mark.parametrize("wal_writable", [True, False])
def test_without_a_folder_to_link_in_a_writable_wal_is_refused_like_a_writable_warehouse(
    wal_writable, loaded_home, monkeypatch
):
    con = duckdb.connect(str(loaded_home / "warehouse.duckdb"))
    con.execute("pragma disable_checkpoint_on_shutdown")  # a WAL left beside the file, as after a crash
    con.execute("create table main.left_in_the_wal as select 42 as answer")
    con.close()
    monkeypatch.setattr("biaswh.warehouse.database.sandbox._scratch_folders", lambda paths, real: [])
    monkeypatch.setattr(os, "access", lambda path, mode, **options: wal_writable and str(path).endswith(".wal"))
    if wal_writable:
        with pytest.raises(UserError, match="making a hard link beside it failed"), open_sandbox():
            pass
    else:
        with open_sandbox() as con:
            assert con.execute("select answer from main.left_in_the_wal").fetchone() == (42,)
