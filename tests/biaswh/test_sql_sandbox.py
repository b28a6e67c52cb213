"""`biaswh sql` and `biaswh shell` cannot write, read files (the warehouse's own included) or change settings.

Every refused case is one line, exit code 2, and leaves the warehouse folder as it was: the
same files (no WAL, no leftover private folder) and the same sha256 of ``warehouse.duckdb``.
"""

import errno
import hashlib
import io
import os
import shutil
import tempfile
from pathlib import Path

import duckdb
import pytest

from biaswh.cli import main
from biaswh.sql_shell import shell
from biaswh.warehouse.database.sandbox import SCRATCH_PREFIX, _scratch_folders, open_sandbox
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import warehouse_paths
from tests.conftest import seeded_squad_warehouse

PERMISSION = "Permission Error"
NOT_ALLOWED = "is not allowed: biaswh sql only reads the warehouse"
INSIDE = "is inside the warehouse folder"
OWN = "is the warehouse's own file"


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """One small warehouse (the demo SQuAD file), copied for each test."""
    return seeded_squad_warehouse(tmp_path_factory.mktemp("template"))


@pytest.fixture
def loaded_home(template, warehouse_home, tmp_path, monkeypatch):
    """A copy of the template under ``tmp_path/warehouse``, with ``tmp_path`` the current folder,
    a symbolic link ``link-db`` to the warehouse file and ``link-home`` to its folder, and a hard link
    ``hard-db`` to the warehouse file."""
    warehouse_home.mkdir()
    shutil.copy(template, warehouse_home / "warehouse.duckdb")
    (warehouse_home / "warehouse.lock").write_text("", encoding="utf-8")
    (tmp_path / "link-db").symlink_to(warehouse_home / "warehouse.duckdb")
    os.link(warehouse_home / "warehouse.duckdb", tmp_path / "hard-db")
    (tmp_path / "link-home").symlink_to(warehouse_home, target_is_directory=True)
    (tmp_path / "out").mkdir()
    (tmp_path / "readable.csv").write_text("a\n1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return warehouse_home


def _state(home) -> tuple:
    """What must not change: the folder's entries and the warehouse file's sha256."""
    digest = hashlib.sha256((home / "warehouse.duckdb").read_bytes()).hexdigest()
    return sorted(os.listdir(home)), digest


def _read_blob(path: str) -> list[str]:
    return ["sql", f"select content from read_blob('{path}')"]


# name: (biaswh arguments, expected exit code, fragment of the one-line error). {db} is the
# warehouse file's absolute path, {home} its folder; relative paths start in tmp_path.
CASES = {
    "copy to the warehouse": (["sql", "copy (select 'x' as a) to '{db}' (format csv)"], 2, NOT_ALLOWED),
    "copy to the warehouse in place": (
        ["sql", "copy (select 'x' a) to 'warehouse/warehouse.duckdb' (format csv, use_tmp_file false)"],
        2,
        NOT_ALLOWED,
    ),
    "copy to its wal": (["sql", "copy (select 'x' a) to '{db}.wal' (format csv, use_tmp_file false)"], 2, NOT_ALLOWED),
    "copy after a comment, upper case": (["sql", "/* x */ COPY (SELECT 1 AS a) TO 'out/x.csv'"], 2, NOT_ALLOWED),
    "copy as the second statement": (["sql", "select 1; copy (select 1 as a) to 'out/x.csv'"], 2, NOT_ALLOWED),
    "copy from a file": (["sql", "copy raw.runs from 'readable.csv'"], 2, NOT_ALLOWED),
    "prepared copy": (["sql", "prepare p as copy (select 1 as a) to '{db}' (format csv)"], 2, PERMISSION),
    "export database": (["sql", "export database 'out/export'"], 2, NOT_ALLOWED),
    "attach another file": (["sql", "attach 'out/other.duckdb' as other"], 2, NOT_ALLOWED),
    "attach its wal": (["sql", "attach '{db}.wal' as other"], 2, NOT_ALLOWED),
    "read the warehouse as bytes": (_read_blob("{db}"), 2, PERMISSION),
    "read it by a relative path": (_read_blob("warehouse/warehouse.duckdb"), 2, PERMISSION),
    "read it through ..": (_read_blob("out/../warehouse/warehouse.duckdb"), 2, PERMISSION),
    "read it through a file link": (_read_blob("link-db"), 2, PERMISSION),
    "read it through a folder link": (_read_blob("link-home/warehouse.duckdb"), 2, PERMISSION),
    "read its wal": (_read_blob("{db}.wal"), 2, PERMISSION),
    "read its open file descriptors": (_read_blob("/proc/self/fd/*"), 2, PERMISSION),
    "read another file in its folder": (["sql", "select * from read_text('{home}/warehouse.lock')"], 2, PERMISSION),
    "read a file elsewhere": (["sql", "select * from read_csv('readable.csv')"], 2, PERMISSION),
    "read a file through query()": (
        ["sql", "select * from query('select * from read_blob(''{db}'')')"],
        2,
        "query() is not allowed",
    ),
    "install": (["sql", "install httpfs"], 2, PERMISSION),
    "load": (["sql", "load httpfs"], 2, PERMISSION),
    "set": (["sql", "set threads = 1"], 2, "the configuration has been locked"),
    "set external access back on": (["sql", "set enable_external_access = true"], 2, "configuration has been locked"),
    "write": (["sql", "delete from raw.runs"], 2, "read-only mode"),
    "--out the warehouse": (["sql", "select 1 as a", "--csv", "--out", "{db}"], 2, OWN),
    "--out it relatively": (["sql", "select 1 as a", "--csv", "--out", "warehouse/warehouse.duckdb"], 2, OWN),
    "--out its wal": (["sql", "select 1 as a", "--csv", "--out", "warehouse/warehouse.duckdb.wal"], 2, INSIDE),
    "--out through ..": (["sql", "select 1 as a", "--csv", "--out", "out/../warehouse/warehouse.duckdb"], 2, OWN),
    "--out through a file link": (["sql", "select 1 as a", "--csv", "--out", "link-db"], 2, OWN),
    "--out a hard link of it": (["sql", "select 1 as a", "--csv", "--out", "hard-db"], 2, OWN),
    "--out through a folder link": (["sql", "select 1 as a", "--out", "link-home/new.txt"], 2, INSIDE),
    "--out a new file in the folder": (["sql", "select 1 as a", "--format=json", "--out", "{home}/x.json"], 2, INSIDE),
    "--out the folder itself": (["sql", "select 1 as a", "--csv", "--out", "link-home"], 2, INSIDE),
    "--out parquet over the warehouse": (["sql", "select 1 as a", "--format", "parquet", "--out", "{db}"], 2, OWN),
    "--out a missing folder": (["sql", "select 1 as a", "--csv", "--out", "nowhere/x.csv"], 2, "no such folder"),
    "--out a folder": (["sql", "select 1 as a", "--csv", "--out", "out"], 2, "is a folder"),
}


@pytest.mark.parametrize("name", CASES)
def test_nothing_typed_reaches_the_warehouse_files(name, loaded_home, tmp_path, capsys):
    args, code, fragment = CASES[name]
    before = _state(loaded_home)
    db = loaded_home / "warehouse.duckdb"
    assert main([a.format(db=db, home=loaded_home) for a in args]) == code
    error = capsys.readouterr().err
    first, *excerpt = error.splitlines()
    assert first.startswith("biaswh: error: ") and fragment in first, error
    assert "Traceback" not in error
    # Below the one refusal line, only DuckDB's own pointer at the fault: "LINE 1: ..." and its caret.
    assert excerpt == [] or (len(excerpt) == 2 and excerpt[0].startswith("LINE 1: ") and excerpt[1].strip() == "^")
    assert _state(loaded_home) == before
    assert list((tmp_path / "out").iterdir()) == []


def test_the_shell_refuses_the_same_and_goes_on(loaded_home):
    before = _state(loaded_home)
    db = loaded_home / "warehouse.duckdb"
    typed = (
        f"copy (select 'x' as a) to '{db}' (format csv, use_tmp_file false);\n"
        f"select content from read_blob('{db}');\n"
        "select count(*) as n from squad_questions;\n"
    )
    out = io.StringIO()
    shell(stdin=io.StringIO(typed), stdout=out)
    lines = out.getvalue().splitlines()
    assert NOT_ALLOWED in lines[1] and PERMISSION in lines[2]
    assert lines[3].startswith("LINE 1: select content from read_blob(") and lines[4].strip() == "^"
    assert lines[5:8] == ["n ", "--", "64"]
    assert _state(loaded_home) == before


def test_a_normal_select_still_works_and_writes_its_out_file_elsewhere(loaded_home, tmp_path, capsys):
    assert main(["sql", "select split, count(*) as n from squad_questions group by split", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["split,n", "train,64"]
    assert main(["sql", "select 1 as a", "--csv", "--out", "out/a.csv"]) == 0
    assert (tmp_path / "out" / "a.csv").read_text(encoding="utf-8") == "a\n1\n"
    assert not list(loaded_home.glob(f"{SCRATCH_PREFIX}*"))  # the private folder is gone


def test_a_large_sort_spills_to_the_private_folder_and_it_is_removed(loaded_home, monkeypatch, capsys):
    monkeypatch.setenv("BIASWH_MEMORY_LIMIT", "100MB")  # the sort below holds about 150 MB of strings
    before = _state(loaded_home)
    rows = "select repeat(range::varchar, 40) as s from range(600000)"
    assert main(["sql", f"select max(s) as n from (select s from ({rows}) order by s desc offset 1)", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["n", "9" * 160]  # the largest is 99999 x 40
    assert _state(loaded_home) == before


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
    before = _state(loaded_home)
    assert "warehouse.duckdb.wal" in before[0]
    assert main(["sql", "select answer from main.left_in_the_wal", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["answer", "42"]
    assert _state(loaded_home) == before


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


@pytest.mark.parametrize("query", ["", "   ", ";", "-- only a comment"])
def test_an_empty_query_is_one_line_and_exit_2(query, loaded_home, capsys):
    assert main(["sql", query]) == 2
    error = capsys.readouterr().err
    assert error.startswith("biaswh: error: sql: the query") and error.count("\n") == 1


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
