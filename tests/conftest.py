"""Shared fixtures: every test gets its own warehouse folder through BIASWH_HOME."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT
from tests import prebuilt
from tests.encoder_guard import refusing_encoder_loads

# Idle BLAS (OpenBLAS) and OpenMP (torch, numba) threads sleep at once instead of spinning: `make test`
# runs two workers and the demo prebuild on two cores, where a spinning thread takes the core its
# sibling waits for (an encoder pass cost 19.4 CPU-s spinning and 5.0 s passive, QR and products 13.0
# and 2.0, load ~16). The thread counts stay as they were, so every result keeps its bits (checked).
# Set before the workers, the prebuild and every process the tests start load those libraries.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

# ../shared/data beside the checkout; BIASWH_SHARED_DATA overrides it (e.g. in a git worktree elsewhere).
SHARED_DATA = Path(os.environ.get("BIASWH_SHARED_DATA") or REPOSITORY_ROOT.parent / "shared" / "data")
DEMO_STUDY = REPOSITORY_ROOT / "studies" / "demo.toml"
DEMO_DATA = REPOSITORY_ROOT / "studies" / "demo_data"
AUDIT_DEMO = REPOSITORY_ROOT / "studies" / "audit_demo.toml"


# How `make test` spreads the tests over its workers, the demo warehouses it builds beside them,
# the coverage pauses, the dbt cache, the one Ray instance the Ray tests share, the one series
# of monitoring ticks the monitoring tests share, the one run of the docs' real-data examples and
# the one warehouse of the real dialect studies.
pytest_plugins = [
    "tests.scheduling",
    "tests.coverage_pause",
    "tests.dbt_cache",
    "tests.ray_local",
    "tests.monitoring_series",
    "tests.real_data_examples",
    "tests.real_dialect_studies",
]


def pytest_configure(config: pytest.Config) -> None:
    """pytest keeps a test module's assertion-rewritten code in ``__pycache__`` only where Python may
    write bytecode: under PYTHONDONTWRITEBYTECODE (some CI images) every worker rewrote every module
    at each collection (a collection took 12.3 CPU-seconds, 7.9 with the kept files, measured)."""
    sys.dont_write_bytecode = False  # this process only: `make setup` compiles our packages anyway


def _session_cache(tmp_path_factory, variable: str, name: str):
    """A machine-level cache folder of this session's own, named by ``variable`` while it lasts."""
    folder = tmp_path_factory.mktemp(name)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(variable, str(folder))
        yield folder


@pytest.fixture(scope="session", autouse=True)
def embedding_cache(tmp_path_factory) -> Path:
    """The machine's embedding cache, for this session: a folder of its own (never ~/.cache).

    Shared by every test and every `biaswh` subprocess they start (set in os.environ), so the
    demo's texts are embedded once per session; a test that must see texts embedded sets its own.
    """
    yield from _session_cache(tmp_path_factory, "BIASWH_EMBEDDING_CACHE", "embedding-cache")


@pytest.fixture(scope="session", autouse=True)
def vega_cache(tmp_path_factory) -> Path:
    """The machine's Vega bundle cache, for this session: a folder of its own (never ~/.cache)."""
    yield from _session_cache(tmp_path_factory, "BIASWH_VEGA_CACHE", "vega-cache")


@pytest.fixture(scope="session", autouse=True)
def bm25_cache(tmp_path_factory) -> Path:
    """The machine's BM25 index cache, for this session: a folder of its own (never ~/.cache)."""
    yield from _session_cache(tmp_path_factory, "BIASWH_BM25_CACHE", "bm25-cache")


@pytest.fixture(scope="session", autouse=True)
def coverage_site():
    """Every Python process a test starts imports tests/coverage_site/sitecustomize.py at start-up:
    when coverage measures it (``patch = subprocess``), dbt and the sentence encoder run unmeasured."""
    folder = str(Path(__file__).parent / "coverage_site")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [folder, os.environ.get("PYTHONPATH")])))
        yield


@pytest.fixture
def warehouse_home(tmp_path, monkeypatch) -> Path:
    """A fresh, empty warehouse folder for one test."""
    home = tmp_path / "warehouse"
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    return home


@pytest.fixture
def con(warehouse_home):
    from biaswh.warehouse.database.connection import connect

    connection = connect()
    yield connection
    connection.close()


def shared_file(relative: str) -> Path:
    """A file from ../shared/data; CI must have it, so there a missing file fails instead of skipping."""
    path = SHARED_DATA / relative
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI is missing the shared data file {path}")
        pytest.skip(f"shared data not present: {path}")
    return path


def run_cli(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess:
    """Run the real `biaswh` command in a subprocess against the warehouse at ``home``."""
    env = {**os.environ, HOME_VARIABLE: str(home)}
    completed = subprocess.run(
        [sys.executable, "-m", "biaswh.cli", *args],
        env=env,
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if check and completed.returncode != 0:
        raise AssertionError(
            f"biaswh {' '.join(args)} failed ({completed.returncode}):\n"
            f"{completed.stdout[-4000:]}\n{completed.stderr[-4000:]}"
        )
    return completed


def run_here(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess:
    """:func:`run_cli` in this process: ``biaswh ARGS`` through its own ``main``, the session's parsed
    dbt project reused (no interpreter, import or dbt parse per call). For setup and queries; a
    test about the process itself (exit on a signal, import-time cost, what reaches the terminal)
    keeps :func:`run_cli`."""
    from biaswh.cli import main

    printed, errors = io.StringIO(), io.StringIO()
    with (
        pytest.MonkeyPatch.context() as patch,
        contextlib.redirect_stdout(printed),
        contextlib.redirect_stderr(errors),
    ):
        patch.setenv(HOME_VARIABLE, str(home))
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse's own refusals
            code = exit_.code
    completed = subprocess.CompletedProcess(["biaswh", *args], code, printed.getvalue(), errors.getvalue())
    if check and code != 0:
        raise AssertionError(
            f"biaswh {' '.join(args)} failed ({code}):\n{completed.stdout[-4000:]}\n{completed.stderr[-4000:]}"
        )
    return completed


def run_study_here(config: str, *, home: Path, limit: int | None = None, site: bool = True) -> Path | None:
    """``biaswh run CONFIG`` in this process against the warehouse at ``home`` (the session's parsed dbt
    project is reused: no interpreter, dbt start-up or parse per study); ``site=False``: no site drawn."""
    from biaswh.pipeline import run_study

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        return run_study(str(config), limit=limit, build_site=site)


def run_study_printed(config: str, *, home: Path, limit: int | None = None, site: bool = True) -> str:
    """:func:`run_study_here`, returning what the run printed (its summary lines), for fixtures
    that cannot take ``capsys``; a study that fails raises as ``biaswh run`` would report it."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        run_study_here(config, home=home, limit=limit, site=site)
    return printed.getvalue()


def seed_warehouse(folder: Path, load) -> Path:
    """The warehouse file in ``folder`` after ``load(connection)``: built once per module, copied per test."""
    from biaswh.warehouse.database.connection import connect

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(folder))
        connection = connect()
        try:
            load(connection)
        finally:
            connection.close()
    return folder / "warehouse.duckdb"


def seeded_squad_warehouse(home: Path) -> Path:
    """Create a warehouse in ``home`` holding the demo SQuAD (train); return its file (for copying)."""
    from biaswh.ingest.retrieval.squad import load_squad

    return seed_warehouse(home, lambda connection: load_squad(connection, str(DEMO_DATA / "squad_demo.json")))


def run_main(argv: list[str], capsys) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``biaswh`` run in-process, argparse's own exits included."""
    from biaswh.cli import main

    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_refused(code: int, error: str, names) -> None:
    """A refusal as the CLI must give it: exit code 2, one stderr line holding each of ``names``, no traceback."""
    assert code == 2, error
    assert error.endswith("\n") and error.count("\n") == 1, error
    assert "Traceback" not in error and ": error: " in error
    for expected in names:
        assert expected in error, error


@dataclass(frozen=True)
class DemoWarehouse:
    """A warehouse after one `biaswh run studies/demo.toml`: its folder, what the run printed,
    and the embedding cache it filled (its own, empty before: the run imported the shipped demo vectors)."""

    home: Path
    stdout: str
    embedding_cache: Path


def copy_warehouse(source: Path, destination: Path) -> Path:
    """A private copy of the warehouse folder ``source`` (its site's kept bodies, not its pages) for a test
    that changes it: :func:`tests.prebuilt.copy_without_pages`."""
    return prebuilt.copy_without_pages(source, destination)


@pytest.fixture(scope="session")
def demo_warehouse(tmp_path_factory) -> DemoWarehouse:
    """One demo study run for the whole session, in this process (in-process dbt).

    Shared and read-only: a test that changes a warehouse works on :func:`copy_warehouse` of it.
    """
    built = prebuilt.prebuilt("demo")
    if built:
        printed = (built / "stdout.txt").read_text(encoding="utf-8")
        return DemoWarehouse(built / "warehouse", printed, built / "embeddings")
    from biaswh.pipeline import run_study

    home = tmp_path_factory.mktemp("demo-warehouse") / "warehouse"
    cache = tmp_path_factory.mktemp("demo-embeddings")
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed), refusing_encoder_loads():
        patch.setenv(HOME_VARIABLE, str(home))
        patch.setenv("BIASWH_EMBEDDING_CACHE", str(cache))
        run_study(str(DEMO_STUDY))
    return DemoWarehouse(home, printed.getvalue(), cache)


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory, request) -> Path:
    """One warehouse after every `studies/demo*.toml` (what `make demo` builds); its site folder.

    Session-scoped and shared: tests that only read it use it as is, never change it. It starts
    from a copy of :func:`demo_warehouse` (the first of those studies), so the demo runs once.
    """
    built = prebuilt.prebuilt("site")
    if built:
        return built / "warehouse" / "site"
    from biaswh.pipeline import run_studies

    demo_warehouse = request.getfixturevalue("demo_warehouse")
    home = copy_warehouse(demo_warehouse.home, tmp_path_factory.mktemp("demo-site") / "warehouse")
    others = [str(study) for study in sorted((REPOSITORY_ROOT / "studies").glob("demo*.toml")) if study != DEMO_STUDY]
    with pytest.MonkeyPatch.context() as patch, refusing_encoder_loads():
        patch.setenv(HOME_VARIABLE, str(home))
        patch.setenv("BIASWH_EMBEDDING_CACHE", str(home.parent / "embeddings"))  # empty, as the prebuilt site's
        run_studies(others)  # in turn, as `make demo` runs them
    return home / "site"


@pytest.fixture(scope="session")
def audit_site(tmp_path_factory, request) -> Path:
    """The demo site's warehouse after `biaswh audit studies/audit_demo.toml` (the end of `make demo`); its site.

    Session-scoped and shared, read only, as :func:`demo_site` (whose copy it starts from).
    """
    built = prebuilt.prebuilt("audit")
    if built:
        return built / "warehouse" / "site"
    from biaswh.common.audit_run import run_audit

    demo_site = request.getfixturevalue("demo_site")
    home = copy_warehouse(demo_site.parent, tmp_path_factory.mktemp("audit-site") / "warehouse")
    with pytest.MonkeyPatch.context() as patch, refusing_encoder_loads():
        patch.setenv(HOME_VARIABLE, str(home))
        patch.setenv("BIASWH_EMBEDDING_CACHE", str(home.parent / "embeddings"))  # empty, as the prebuilt audit's
        run_audit(str(AUDIT_DEMO))
    return home / "site"
