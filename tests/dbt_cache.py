"""One dbt parse-state folder per test session, shared by its workers and every process they start.

`biaswh` keeps dbt's partial-parse state per machine (``~/.cache/biaswh/dbt``, see
``warehouse/dbt_build/parse_cache.py``), so a fresh warehouse does not pay a full parse. A test
session gets a folder of its own instead (never the user's cache): made by the first pytest
process (the xdist controller under `make test`) and inherited through the environment by the
workers, the prebuilt demo warehouses and the `biaswh` subprocesses of the tests.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from biaswh.warehouse.dbt_build.parse_cache import CACHE_VARIABLE

_MADE = pytest.StashKey[str]()


@pytest.hookimpl(tryfirst=True)  # before tests.scheduling starts the prebuild
def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get(CACHE_VARIABLE) is None:
        os.environ[CACHE_VARIABLE] = config.stash[_MADE] = tempfile.mkdtemp(prefix="biaswh-test-dbt-cache-")


def pytest_unconfigure(config: pytest.Config) -> None:
    made = config.stash.get(_MADE, None)
    if made:
        os.environ.pop(CACHE_VARIABLE, None)
        shutil.rmtree(made, ignore_errors=True)
