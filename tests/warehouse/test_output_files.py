"""The one guard every written file goes through (warehouse/database/output_files.py), layer by layer."""

from __future__ import annotations

import os

import pytest

from biaswh.warehouse.database.output_files import (
    OutputRefused,
    atomic_output,
    checked_output,
    name_in_folder,
    open_private_file,
    refuse_read_only_warehouse,
    replacing,
    write_text_atomically,
)


@pytest.fixture
def home(warehouse_home):
    warehouse_home.mkdir()
    (warehouse_home / "warehouse.duckdb").write_bytes(b"the warehouse")
    return warehouse_home


def _linked(kind: str, home, tmp_path):
    link = tmp_path / f"{kind}.duckdb"
    (os.symlink if kind == "symbolic" else os.link)(home / "warehouse.duckdb", link)
    return link


@pytest.mark.parametrize("kind", ["symbolic", "hard"])
def test_the_writer_itself_refuses_a_link_to_the_warehouse(kind, home, tmp_path):
    link = _linked(kind, home, tmp_path)
    with pytest.raises(OutputRefused, match="warehouse's own file"):
        write_text_atomically(link, "over it")
    with pytest.raises(OutputRefused, match="warehouse's own file"):
        with replacing(link):
            pass
    assert (home / "warehouse.duckdb").read_bytes() == b"the warehouse"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["warehouse", link.name])


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "report.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_output(target) as handle:
        handle.write("half")
        raise RuntimeError("interrupted")
    assert target.read_text(encoding="utf-8") == "old" and [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_link_at_the_target_is_replaced_and_what_it_led_to_is_untouched(tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("keep", encoding="utf-8")
    (tmp_path / "out.txt").symlink_to(other)
    write_text_atomically(tmp_path / "out.txt", "new")
    assert other.read_text(encoding="utf-8") == "keep"
    assert not (tmp_path / "out.txt").is_symlink() and (tmp_path / "out.txt").read_text(encoding="utf-8") == "new"
    assert (tmp_path / "out.txt").stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


@pytest.mark.parametrize("name", ["../escape", "a/b", "..", ".", "", "a\\b", "a\0b", "/abs"])
def test_a_name_that_leaves_its_folder_is_refused(name, tmp_path):
    with pytest.raises(OutputRefused, match="would leave its folder"):
        name_in_folder(tmp_path, name, what="name")


def test_a_plain_name_stays_in_its_folder(tmp_path):
    assert name_in_folder(tmp_path, "experiment_posts.csv", what="name") == tmp_path / "experiment_posts.csv"


@pytest.mark.parametrize("kind", ["symbolic", "hard"])
def test_a_lock_file_is_never_opened_through_a_link(kind, home, tmp_path):
    lock = tmp_path / "x.lock"
    (os.symlink if kind == "symbolic" else os.link)(home / "warehouse.duckdb", lock)
    with pytest.raises(OutputRefused, match=str(lock)):
        open_private_file(lock, what="the lock")
    assert (home / "warehouse.duckdb").read_bytes() == b"the warehouse"


def test_a_plain_lock_file_opens_for_reading_and_writing(tmp_path):
    with open_private_file(tmp_path / "x.lock", what="the lock") as handle:
        handle.write("held")
    assert (tmp_path / "x.lock").read_text(encoding="utf-8") == "held"


@pytest.mark.parametrize("read_only", ["file", "folder"])
def test_a_read_only_warehouse_refuses_writing_commands(read_only, home):
    path = home / "warehouse.duckdb" if read_only == "file" else home
    mode = path.stat().st_mode
    path.chmod(0o444 if read_only == "file" else 0o555)
    try:
        with pytest.raises(OutputRefused, match=f"warehouse {read_only} .* is read-only"):
            refuse_read_only_warehouse()
    finally:
        path.chmod(mode)
    refuse_read_only_warehouse()  # writable again: no refusal


def test_a_site_folder_may_be_the_warehouse_site_but_no_other_folder_in_it(home, tmp_path):
    assert checked_output(home / "site", option="--out", folder=True) == home / "site"
    assert checked_output(tmp_path / "elsewhere", option="--out", folder=True) == tmp_path / "elsewhere"
    for inside in (home, home / "lancedb"):
        with pytest.raises(OutputRefused, match="inside the warehouse folder"):
            checked_output(inside, option="--out", folder=True)


def test_a_read_only_output_folder_is_refused_before_any_work(home, tmp_path):
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o555)
    with pytest.raises(OutputRefused, match="is read-only"):
        checked_output(folder / "x.csv", option="--out")
