"""The output guard's cases that the command-level tests do not reach (warehouse/database/output_files.py):
a warehouse folder not made yet, a linked warehouse's files outside its folder, a second mount
of the folder, a file with other names, the lock file's mode, messages and encoding."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from biaswh.warehouse.database.output_files import (
    OutputRefused,
    checked_output,
    name_in_folder,
    open_private_file,
    refuse_link,
    refuse_read_only_warehouse,
)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def test_a_file_path_is_checked_as_a_file_in_an_existing_folder_by_default(warehouse_home, tmp_path):
    report = tmp_path / "report.json"
    report.write_text("an earlier report", encoding="utf-8")
    assert checked_output(report, option="--report") == report  # an existing file is replaced, not refused
    assert checked_output(tmp_path, option="--out", folder=True) == tmp_path  # an existing site folder too


# Each refusal of checked_output: (given, options) → why, as the one-line message says it.
REFUSALS = {
    "the warehouse file": (
        lambda home, here: home / "warehouse.duckdb",
        {},
        lambda home, here: f"is the warehouse's own file ({home / 'warehouse.duckdb'})",
    ),
    "a file in the warehouse folder": (
        lambda home, here: home / "x.csv",
        {},
        lambda home, here: f"is inside the warehouse folder {home} (BIASWH_HOME); use a folder outside it",
    ),
    "a site in the warehouse folder": (
        lambda home, here: home / "lancedb",
        {"folder": True},
        lambda home, here: f"is inside the warehouse folder {home} (BIASWH_HOME); use the warehouse's site folder",
    ),
    "a site that is a file": (
        lambda home, here: here / "a-file",
        {"folder": True},
        lambda home, here: "is a file; name a folder",
    ),
    "a file that is a folder": (lambda home, here: here, {}, lambda home, here: "is a folder; name a file"),
    "a file in no folder": (
        lambda home, here: here / "missing" / "x.csv",
        {},
        lambda home, here: f"no such folder {here / 'missing'}",
    ),
    "a folder under a file": (
        lambda home, here: here / "a-file" / "new" / "x.csv",
        {"creates_folder": True},
        lambda home, here: f"{here / 'a-file'} is a file, not a folder",
    ),
    "a file in a read-only folder": (
        lambda home, here: here / "read-only" / "x.csv",
        {},
        lambda home, here: f"the folder {here / 'read-only'} is read-only",
    ),
    "a read-only site folder": (
        lambda home, here: here / "read-only",
        {"folder": True},
        lambda home, here: f"the folder {here / 'read-only'} is read-only",
    ),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_each_refusal_names_the_option_the_path_as_given_and_why(case, warehouse_home, tmp_path):
    warehouse_home.mkdir()
    (warehouse_home / "warehouse.duckdb").write_bytes(b"the warehouse")
    here = tmp_path / "outputs"
    here.mkdir()
    (here / "a-file").write_text("a file", encoding="utf-8")
    (here / "read-only").mkdir(mode=0o555)
    given, options, why = REFUSALS[case]
    with pytest.raises(OutputRefused) as refused:
        checked_output(str(given(warehouse_home, here)), option="--out", **options)
    assert (
        str(refused.value) == f"--out {given(warehouse_home, here)}: {why(warehouse_home, here)}; nothing was written"
    )


def test_before_the_warehouse_folder_exists_a_path_inside_it_is_refused(warehouse_home, tmp_path):
    assert not warehouse_home.exists()
    with pytest.raises(OutputRefused, match="inside the warehouse folder"):
        checked_output(warehouse_home / "lancedb", option="--out", folder=True)
    with pytest.raises(OutputRefused, match="inside the warehouse folder"):
        checked_output(warehouse_home / "exports" / "x.csv", option="--out", creates_folder=True)
    new_site = tmp_path / "sites" / "new"
    assert checked_output(new_site, option="--out", folder=True) == new_site  # outside it: fine
    assert not warehouse_home.exists() and not new_site.exists()


def test_a_linked_warehouses_files_beside_its_real_file_are_refused_in_any_spelling(warehouse_home, tmp_path):
    real = tmp_path / "disk"
    real.mkdir()
    (real / "warehouse.duckdb").write_bytes(b"the warehouse")
    (real / "warehouse.duckdb.wal").write_bytes(b"its log")
    warehouse_home.mkdir()
    (warehouse_home / "warehouse.duckdb").symlink_to(real / "warehouse.duckdb")
    for spelling in (real / "warehouse.duckdb.wal", real / "not-there" / ".." / "warehouse.duckdb.wal"):
        with pytest.raises(OutputRefused, match=r"is the warehouse's own file"):
            checked_output(spelling, option="--out")
    assert (real / "warehouse.duckdb.wal").read_bytes() == b"its log"


def _can_bind_mount(tmp_path) -> bool:
    if shutil.which("unshare") is None:
        return False
    source, target = tmp_path / "probe-source", tmp_path / "probe-target"
    source.mkdir(), target.mkdir()
    probe = ["unshare", "--user", "--map-root-user", "--mount", "mount", "--bind", str(source), str(target)]
    return subprocess.run(probe, capture_output=True).returncode == 0


CHECK_IN_NAMESPACE = """
import sys
from biaswh.warehouse.database.output_files import OutputRefused, checked_output
try:
    checked_output(sys.argv[1], option="--out")
except OutputRefused as refusal:
    print(refusal)
else:
    print("accepted")
"""


def test_a_second_mount_of_the_warehouse_folder_is_still_the_warehouse_folder(warehouse_home, tmp_path):
    """Another path to the same folder (a bind mount) resolves to another name: only the folder's
    identity shows it is the warehouse's."""
    if not _can_bind_mount(tmp_path):
        pytest.skip("no unprivileged mount namespace here (unshare --user --mount)")
    warehouse_home.mkdir()
    alias = tmp_path / "alias"
    alias.mkdir()
    mount_then_check = 'mount --bind "$0" "$1" && exec "$2" -c "$3" "$1/x.csv"'
    command = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", mount_then_check]
    arguments = [str(warehouse_home), str(alias), sys.executable, CHECK_IN_NAMESPACE]
    result = subprocess.run(command + arguments, capture_output=True, text=True, env=os.environ)
    assert result.returncode == 0, result.stderr
    assert f"--out {alias / 'x.csv'}: is inside the warehouse folder {warehouse_home}" in result.stdout
    assert list(warehouse_home.iterdir()) == []


@pytest.mark.parametrize("name", ["experiment_X.csv", "posts 2026.csv", "études.json"])
def test_any_plain_name_stays_in_its_folder(name, tmp_path):
    assert name_in_folder(tmp_path, name, what="name") == tmp_path / name


def test_a_plain_file_of_its_own_passes_and_any_other_is_refused(warehouse_home, tmp_path):
    own = tmp_path / "history"
    own.write_text("select 1;", encoding="utf-8")
    refuse_link(own, what="the history")  # no refusal
    refuse_link(tmp_path / "not-yet", what="the history")  # nothing there yet: no refusal
    second_name = tmp_path / "second-name"
    os.link(own, second_name)
    warehouse_home.mkdir()
    (warehouse_home / "warehouse.duckdb").write_bytes(b"the warehouse")
    for path in (own, second_name, tmp_path, warehouse_home / "warehouse.duckdb"):
        with pytest.raises(OutputRefused, match=f"^the history {path} is not a plain file of its own"):
            refuse_link(path, what="the history")


def test_a_private_file_is_made_with_its_mode(tmp_path):
    with open_private_file(tmp_path / "x.lock", what="the lock"):
        pass
    assert (tmp_path / "x.lock").stat().st_mode & 0o777 == 0o644 & ~_umask()
    with open_private_file(tmp_path / "y.lock", what="the lock", mode=0o600):
        pass
    assert (tmp_path / "y.lock").stat().st_mode & 0o777 == 0o600 & ~_umask()


def test_a_private_file_that_cannot_be_opened_is_refused_in_one_line_naming_it(tmp_path):
    folder = tmp_path / "a-folder.lock"
    folder.mkdir()
    with pytest.raises(OutputRefused) as refused:
        open_private_file(folder, what="the lock")
    assert str(refused.value) == f"the lock {folder}: cannot open it (Is a directory)"
    link = tmp_path / "link.lock"
    link.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OutputRefused, match=f"^the lock {link} is a symbolic link"):
        open_private_file(link, what="the lock")
    assert not (tmp_path / "elsewhere").exists()


WRITE_UNDER_ASCII_LOCALE = """
import sys
from pathlib import Path
from biaswh.warehouse.database.output_files import open_private_file
with open_private_file(Path(sys.argv[1]), what="the lock") as handle:
    handle.write("biaswh run \\u00e9tudes.toml")  # escaped: the command line itself is read as ASCII
"""


def test_a_private_file_is_utf_8_whatever_the_locale(tmp_path):
    ascii_locale = {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
    result = subprocess.run(
        [sys.executable, "-c", WRITE_UNDER_ASCII_LOCALE, str(tmp_path / "x.lock")],
        capture_output=True,
        text=True,
        env={**os.environ, **ascii_locale},
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "x.lock").read_bytes() == "biaswh run études.toml".encode("utf-8")


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may write a folder whose owner bit forbids it")
def test_a_folder_its_group_may_write_is_not_read_only(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o575)  # writable by its group and others, not by its owner
    assert checked_output(folder / "x.csv", option="--out") == folder / "x.csv"


def test_a_read_only_warehouse_says_which_commands_still_work(warehouse_home):
    warehouse_home.mkdir()
    database = warehouse_home / "warehouse.duckdb"
    database.write_bytes(b"the warehouse")
    database.chmod(0o444)
    with pytest.raises(OutputRefused) as refused:
        refuse_read_only_warehouse()
    assert str(refused.value) == (
        f"the warehouse file {database} is read-only: writing commands need it writable"
        " (reading ones, such as biaswh sql, work as it is)"
    )
