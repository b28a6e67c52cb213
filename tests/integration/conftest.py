"""The real dialect studies, run once per session in one warehouse for the modules that only read them.

``studies/squad_dialect_seed_compatible.toml`` (no site), then ``studies/squad_dialect.toml`` (its
site shows both): the flagship study (tests/integration/test_real_dialect_study.py), the
seed-compatible parity with its corrected default, the full study's BM25
(tests/integration/test_seed_compatible_parity.py), and the real SQuAD and pairs they loaded
(tests/integration/test_real_squad_and_pairs.py) each ran a study, or the same ingest and build,
in a warehouse of their own. A session fixture of this folder: under `make test` the three share
one xdist group (:mod:`tests.scheduling`), so the studies run once, on one worker. Read only.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPOSITORY_ROOT, run_here, shared_file

STUDIES = REPOSITORY_ROOT / "studies"
REAL_DIALECT_FILES = (
    "squad-v1.1/train.parquet",
    "dialect-pairs/aave_poc_dataset_20250927-193921.json",
    "embeddings/all-MiniLM-L6-v2.parquet",
)
PAIR_SET = "aave_poc_dataset_20250927-193921"  # squad_dialect.toml's pairs (the seed-compatible run names its own)


@dataclass(frozen=True)
class RealDialectStudies:
    """The warehouse of both runs, the run ids, and what `biaswh run studies/squad_dialect.toml` printed."""

    home: Path
    run_id: str  # squad_dialect
    seed_compatible_run_id: str
    completed: subprocess.CompletedProcess


@pytest.fixture(scope="session")
def real_dialect_studies(tmp_path_factory) -> RealDialectStudies:
    """Both real dialect studies in one warehouse, once per session; shared and read-only."""
    import duckdb

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
