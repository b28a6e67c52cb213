"""Hostile layouts: a read-only warehouse (file or folder) and a linked one (absolute or relative).

In every layout the reading commands (``sql``, ``shell``, ``peek``, the Python API) work through
the sandbox, and the linked warehouse's real file is no more readable from SQL than the file
itself. On a read-only warehouse every writing command is refused in one line, exit 2, before
any work (the warehouse's sha256, folder and row counts unchanged); ``biaswh build --empty`` and
the other dbt options that would rewrite finished runs' marts are refused on any warehouse.
"""

from __future__ import annotations

import io
import os
import shutil
import stat

import pytest

import biaswh
from tests.conftest import DEMO_DATA, DEMO_STUDY, assert_refused, run_main
from tests.hostile.warehouse_state import warehouse_state

LAYOUTS = ["read-only file", "read-only folder", "absolute link", "relative link"]
COUNT = "select count(*) as n from raw.runs"


@pytest.fixture
def layout(request, demo_warehouse, tmp_path, monkeypatch):
    """(warehouse folder, real file) of a copy of the demo warehouse laid out as ``request.param``."""
    real_folder = tmp_path / "real"
    shutil.copytree(demo_warehouse.home, real_folder, ignore=shutil.ignore_patterns("site", "*.lock"))
    home = real_folder
    if request.param.endswith("link"):
        home = tmp_path / "home"
        home.mkdir()
        target = real_folder / "warehouse.duckdb" if request.param == "absolute link" else "../real/warehouse.duckdb"
        (home / "warehouse.duckdb").symlink_to(target)
    monkeypatch.setenv("BIASWH_HOME", str(home))
    monkeypatch.setenv("BIASWH_EMBEDDING_CACHE", str(demo_warehouse.embedding_cache))
    monkeypatch.chdir(tmp_path)
    locked = {"read-only file": home / "warehouse.duckdb", "read-only folder": home}.get(request.param)
    if locked:
        mode = locked.stat().st_mode
        locked.chmod(stat.S_IMODE(mode) & ~0o222)
    yield home, (home / "warehouse.duckdb").resolve()
    if locked:
        locked.chmod(mode)


@pytest.mark.parametrize("layout", LAYOUTS, indirect=True)
def test_reading_commands_work_through_the_sandbox(layout, capsys, monkeypatch):
    home, real = layout
    before = warehouse_state(home)
    code, out, error = run_main(["sql", COUNT, "--csv"], capsys)
    assert code == 0 and int(out.splitlines()[1]) > 0, error
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{COUNT};\n"))
    code, out, error = run_main(["shell"], capsys)
    assert code == 0 and "(1 row)" in out, error
    pair = biaswh.open(home).sql("select min(pair_id) as p from marts.fct_dialect_paired_ranks")["p"][0]
    code, out, error = run_main(["peek", str(DEMO_STUDY), "--pair", str(pair), "-k", "1"], capsys)
    assert code == 0 and "gold rank" in out, error
    assert biaswh.open(home).runs().height > 0 and biaswh.open(home / "warehouse.duckdb").sql(COUNT)["n"][0] > 0
    for path in (real, home / "warehouse.duckdb"):  # the real file is as closed to SQL as its name
        code, _, error = run_main(["sql", f"select octet_length(content) from read_blob('{path}')"], capsys)
        assert code == 2 and "Permission Error" in error, error
    assert warehouse_state(home) == before


WRITING = {
    "ingest": ["ingest", "squad", str(DEMO_DATA / "squad_demo.json"), "--name", "again"],
    "build": ["build"],
    "rebuild": ["rebuild", "--run", "any"],
    "analyze": ["analyze", str(DEMO_STUDY)],
    "run": ["run", str(DEMO_STUDY)],
    "trec import": ["trec", "import", "nowhere.trec", "--query-set", "pairs"],
}


@pytest.mark.parametrize("layout", LAYOUTS[:2], indirect=True)
@pytest.mark.parametrize("command", WRITING)
def test_a_read_only_warehouse_refuses_writing_commands_before_any_work(command, layout, capsys):
    home, _ = layout
    before = warehouse_state(home)
    code, _, error = run_main(WRITING[command], capsys)
    assert_refused(code, error, ["is read-only"])
    assert warehouse_state(home) == before


@pytest.mark.parametrize("layout", ["relative link"], indirect=True)
def test_a_linked_warehouse_is_written_through_its_link(layout, capsys):
    """DuckDB opens the real file (and keeps its WAL there); the link stays a link."""
    home, real = layout
    code, out, error = run_main(["ingest", "squad", str(DEMO_DATA / "squad_demo.json"), "--name", "again"], capsys)
    assert code == 0 and "loaded 64 rows" in out, error
    assert (home / "warehouse.duckdb").is_symlink() and os.path.samefile(home / "warehouse.duckdb", real)


REWRITING = ["--empty", "--sample=1 day", "--event-time-start", "--vars={}", "--defer", "--state=elsewhere"]


@pytest.mark.parametrize("layout", ["absolute link"], indirect=True)
@pytest.mark.parametrize("option", REWRITING)
def test_a_build_that_would_rewrite_finished_runs_is_refused(option, layout, capsys):
    home, _ = layout
    before = warehouse_state(home)
    code, _, error = run_main(["build", option], capsys)
    assert_refused(code, error, [option.split("=")[0]])
    assert warehouse_state(home) == before
    assert not (home / "warehouse.lock").exists()  # before any work: not even the command lock was taken


def test_a_link_to_a_file_of_another_name_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    """DuckDB names the database after the real file, and the views dbt made name ``warehouse``."""
    (tmp_path / "kept.duckdb").write_bytes(b"")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "warehouse.duckdb").symlink_to(tmp_path / "kept.duckdb")
    monkeypatch.setenv("BIASWH_HOME", str(tmp_path / "home"))
    code, _, error = run_main(["sql", COUNT], capsys)
    assert_refused(code, error, ["kept.duckdb"])
