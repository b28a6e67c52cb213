"""A full disk while the vector cache is written ends in one OSError line (the CLI's exit 1), not a Rust trace."""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys

import numpy as np
import pytest

from biaswh.ingest.common.embedding_cache import EmbeddingCache, text_sha256
from tests.conftest import REPOSITORY_ROOT

# What LanceDB raises on a full disk (its message, with the Rust source path it appends).
LANCE_FULL_DISK = (
    "lance error: LanceError(IO): No space left on device (os error 28), "
    "/root/.cargo/registry/src/index.crates.io/lance-file-13.0.0/src/writer/structural.rs:191:9"
)


def _rows(n: int, dimension: int = 8):
    texts = [f"text {i}" for i in range(n)]
    vectors = np.random.default_rng(0).random((n, dimension), dtype=np.float32)
    return [text_sha256(t) for t in texts], vectors, texts


def test_lance_full_disk_becomes_one_line_enospc(tmp_path, monkeypatch):
    cache = EmbeddingCache(tmp_path / "lancedb", "model-a")

    def full_disk(*args, **kwargs):
        raise RuntimeError(LANCE_FULL_DISK)

    monkeypatch.setattr(cache._db, "create_table", full_disk)
    with pytest.raises(OSError) as raised:
        cache.add(*_rows(3), origin="computed")
    assert raised.value.errno == errno.ENOSPC
    assert os.strerror(errno.ENOSPC) in str(raised.value) and "\n" not in str(raised.value)
    assert str(tmp_path / "lancedb") in str(raised.value) and "cargo" not in str(raised.value)


def test_other_lance_errors_are_not_disguised(tmp_path, monkeypatch):
    cache = EmbeddingCache(tmp_path / "lancedb", "model-a")

    def schema_error(*args, **kwargs):
        raise RuntimeError("lance error: schema mismatch")

    monkeypatch.setattr(cache._db, "create_table", schema_error)
    with pytest.raises(RuntimeError, match="schema mismatch"):
        cache.add(*_rows(3), origin="computed")


def test_a_real_write_limit_is_reported_with_its_errno(tmp_path):
    """A file-size limit (EFBIG: the kernel's refusal, as ENOSPC is) on a real LanceDB write."""
    script = (
        "import numpy as np, sys\n"
        "from biaswh.ingest.common.embedding_cache import EmbeddingCache, text_sha256\n"
        "texts = [f't{i}' for i in range(20000)]\n"
        "vectors = np.random.default_rng(0).random((20000, 64), dtype=np.float32)\n"
        "try:\n"
        f"    EmbeddingCache({str(tmp_path / 'lancedb')!r}, 'm').add([text_sha256(t) for t in texts], vectors,"
        " texts, origin='computed')\n"
        "except OSError as exc:\n"
        "    print('OSError', exc.errno, str(exc).count(chr(10)))\n"
    )

    def limit_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (200 * 1024, 200 * 1024))

    completed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit_file_size,
        env={**os.environ, "PYTHONPATH": str(REPOSITORY_ROOT)},
    )
    assert completed.stdout.strip() == f"OSError {errno.EFBIG} 0", completed.stdout + completed.stderr[-2000:]
