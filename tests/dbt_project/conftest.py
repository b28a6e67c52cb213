"""Fixtures shared by the dbt test modules."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import duckdb
import pytest

from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from tests import prebuilt
from tests.conftest import run_study_here
from tests.encoder_guard import refusing_encoder_loads

EVALUATION_STUDY = REPOSITORY_ROOT / "studies" / "demo_evaluation.toml"
# The demo evaluation run's rows: the prebuilt warehouse holds the demo dialect study's run before it.
EVALUATION_RUNS = "select run_id from raw.runs where kind = 'study' and name = 'demo_evaluation' order by started_at"


@pytest.fixture(scope="session")
def demo_evaluation(tmp_path_factory):
    """(home, read-only connection) of one warehouse after the demo evaluation study (shared, never changed).

    Under `make test` the prebuild's (tests/prebuilt.py: the demo site's warehouse right after that
    study, the demo dialect study's run before it), else (or when an older prebuild has none) run
    here; its vectors lie beside ``home``
    (:func:`demo_vectors`).
    """
    built = prebuilt.prebuilt("evaluation")
    if built:
        home = built / "warehouse"
    else:
        folder = tmp_path_factory.mktemp("evaluation")
        home = folder / "warehouse"
        with pytest.MonkeyPatch.context() as patch, refusing_encoder_loads():  # the shipped demo vectors serve it
            patch.setenv("BIASWH_EMBEDDING_CACHE", str(folder / "embeddings"))
            run_study_here(str(EVALUATION_STUDY), home=home)
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    yield home, con
    con.close()


@contextlib.contextmanager
def demo_vectors(demo_home: Path, folder: Path):
    """``BIASWH_EMBEDDING_CACHE`` set to a private copy of the vectors the :func:`demo_evaluation` run embedded, so a
    run beside it reads them as a user's rerun does (a text embedded in another batch differs in its last bits)."""
    cache = shutil.copytree(demo_home.parent / "embeddings", folder / "embeddings")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BIASWH_EMBEDDING_CACHE", str(cache))
        yield cache
