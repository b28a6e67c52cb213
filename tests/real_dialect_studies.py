"""The real dialect studies, run once per session in one warehouse (a plugin of tests/conftest.py).

``studies/squad_dialect_seed_compatible.toml`` (no site), then ``studies/squad_dialect.toml`` (its
site shows both). The modules that only read them (the flagship study's checks in
tests/integration/test_real_dialect_study.py, the seed-compatible parity with its corrected default,
the full study's BM25, in tests/integration/test_seed_compatible_parity.py, and the real SQuAD and
pairs those runs loaded in tests/integration/test_real_squad_and_pairs.py) read this warehouse; the
real audit (tests/biaswh/test_audit_real.py) runs in a copy of it, where SQuAD, the pairs and their
corpus are loaded and built already, and the session's BM25 index and vectors of that corpus
(among them the 4 AAE queries the precomputed file lacks, embedded by the first run) are cached.
Under `make test` they share one xdist group (``real-dialect``, :mod:`tests.scheduling`), so the
studies run once, on one worker. Read only: a test that changes the warehouse works on
:func:`tests.conftest.copy_warehouse` of :attr:`RealDialectStudies.home`.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from biaswh.warehouse.settings.home import REPOSITORY_ROOT

STUDIES = REPOSITORY_ROOT / "studies"
REAL_DIALECT_FILES = (
    "squad-v1.1/train.parquet",
    "dialect-pairs/aave_poc_dataset_20250927-193921.json",
    "embeddings/all-MiniLM-L6-v2.parquet",
)
PAIR_SET = "aave_poc_dataset_20250927-193921"  # squad_dialect.toml's pairs (the seed-compatible run names its own)


@dataclass(frozen=True)
class RealDialectStudies:
    """The warehouse of both runs, their run ids, and what `biaswh run studies/squad_dialect.toml` printed."""

    home: Path
    run_id: str  # squad_dialect
    seed_compatible_run_id: str
    completed: subprocess.CompletedProcess


@pytest.fixture(scope="session")
def real_dialect_studies(tmp_path_factory) -> RealDialectStudies:
    """Both real dialect studies in one warehouse, once per session; shared and read-only."""
    import duckdb

    from tests.conftest import run_here, shared_file

    for name in REAL_DIALECT_FILES:
        shared_file(name)
    home = tmp_path_factory.mktemp("real-dialect") / "warehouse"
    run_here("run", str(STUDIES / "squad_dialect_seed_compatible.toml"), "--no-site", home=home)
    completed = run_here("run", str(STUDIES / "squad_dialect.toml"), home=home)
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        succeeded = "select name, run_id from raw.runs where kind = 'study' and status = 'succeeded'"
        runs = dict(con.execute(succeeded).fetchall())
    assert sorted(runs) == ["squad_dialect", "squad_dialect_seed_compatible"], runs
    return RealDialectStudies(home, runs["squad_dialect"], runs["squad_dialect_seed_compatible"], completed)
