"""Hostile disks: the disk fills while DuckDB commits.

On a small tmpfs (mounted when this process may; else that case skips), an ingest too large for
the space left fails at its commit: one line naming the full disk, exit code 1, no row of it and
no run row kept, the other tables as they were. Before, DuckDB's ``TransactionException`` ended
the command with a traceback. The commit's translation is also checked without a mount.
"""

from __future__ import annotations

import json
import random
import subprocess

import duckdb
import pytest

from biaswh.warehouse.database.transactions import CommitFailed, transaction
from tests.conftest import run_here, seeded_squad_warehouse
from tests.fingerprints import warehouse_raw_fingerprint


@pytest.fixture
def small_disk(tmp_path):
    """A 48 MB tmpfs folder (root with mount rights only)."""
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(mount_point)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=False)


def _corpus(path, documents: int) -> None:
    words = random.Random(7)
    with open(path, "w", encoding="utf-8") as handle:
        for number in range(documents):
            text = " ".join(f"word{words.randrange(100_000)}" for _ in range(400))
            handle.write(json.dumps({"_id": f"d{number}", "text": text}) + "\n")


def test_a_commit_on_a_full_disk_fails_in_one_line_and_keeps_nothing(small_disk, tmp_path, monkeypatch):
    home = small_disk / "warehouse"
    seeded_squad_warehouse(home)
    corpus = tmp_path / "corpus.jsonl"  # on the roomy disk: only the warehouse's writes fill the small one
    _corpus(corpus, 6000)  # about 16 MB of text
    filler = small_disk / "filler"
    free = subprocess.run(["df", "--output=avail", "-B1", str(small_disk)], capture_output=True, text=True)
    filler.write_bytes(b"\0" * (int(free.stdout.split()[-1]) - 6 * 1024**2))  # 6 MB left
    monkeypatch.setenv("BIASWH_HOME", str(home))
    before = warehouse_raw_fingerprint()
    completed = run_here("ingest", "corpus", str(corpus), "--name", "big", home=home, check=False)
    assert completed.returncode == 1, completed.stderr
    assert completed.stderr.count("\n") == 1 and "Traceback" not in completed.stderr
    assert "No space left on device" in completed.stderr and "rolled back" in completed.stderr
    filler.unlink()
    assert warehouse_raw_fingerprint() == before  # no document, no source version, no run row


class _CommitOnFullDisk:
    """A connection whose commit fails as DuckDB's does on a full disk."""

    def __init__(self):
        self.calls = []

    def begin(self):
        self.calls.append("begin")

    def rollback(self):
        self.calls.append("rollback")

    def commit(self):
        raise duckdb.TransactionException('Failed to commit: Could not write file "x.wal": No space left on device')


def test_a_failed_commit_is_an_os_error_the_cli_prints_in_one_line():
    with pytest.raises(CommitFailed, match="No space left on device") as failed:
        with transaction(_CommitOnFullDisk()):
            pass
    assert isinstance(failed.value, OSError)
