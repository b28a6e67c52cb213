"""The demo warehouses of a `make test` run, built once beside the test workers.

Under pytest-xdist (`make test`: ``BIASWH_TEST_PREBUILD=1``, two workers) the controller process
starts ``python -m tests.prebuilt FOLDER`` before the workers start: it runs the demo study in
``FOLDER/demo`` (the session's :func:`tests.conftest.demo_warehouse`), then, on a copy of it,
every other ``studies/demo*.toml`` in ``FOLDER/site`` (:func:`tests.conftest.demo_site`; a copy
of it and its vectors right after the first of them, the demo evaluation study, in
``FOLDER/evaluation``: :func:`tests.dbt_project.conftest.demo_evaluation`), then, on a
copy of that, ``studies/audit_demo.toml`` in ``FOLDER/audit`` (:func:`tests.conftest.audit_site`);
`make test-spark` stops after the site (:func:`wanted`: none of its tests reads the audit's). The
workers meanwhile run the tests that need neither (those that do are collected last), and
every test that reads a demo warehouse may then run on either worker: both read the same
finished folders (read-only; a test that changes one works on a copy). Without the variable, or
without workers, each fixture builds its warehouse in the test process as before.

Each folder gets ``done`` when its warehouse is complete, or ``failed`` (the traceback) when
its build raised; a worker waits for one of the two.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT

# Set by `make test`: build the demo warehouses beside the workers; "1" all of them, or the names of
# those the step's tests read (`make test-spark`: "demo,site", no test of it reads the audit's).
PREBUILD_VARIABLE = "BIASWH_TEST_PREBUILD"
BUILT_IN_ORDER = ("demo", "site", "audit")  # each starts from a copy of the one before
FOLDER_VARIABLE = "BIASWH_TEST_PREBUILT"  # the folder they are built in (set by the controller for its workers)
DEMO_STUDY = REPOSITORY_ROOT / "studies" / "demo.toml"
EVALUATION_STUDY = REPOSITORY_ROOT / "studies" / "demo_evaluation.toml"
# A worker waits at most this long for a warehouse (the demo study and the six others under load).
WAIT_SECONDS = 45 * 60
# Copies made while the site is built, before it is done: a folder whose site is done without one
# comes from an older prebuild (e.g. one kept for a helper's runs), and the test builds its own.
MADE_BEFORE_THE_SITE = ("evaluation",)


def copy_without_pages(source: Path, destination: Path) -> Path:
    """A copy of the warehouse folder ``source`` without its site's pages but with the bodies its draws
    kept (``site/.drawn``): the copy's next draw reuses the body of each run whose key (the runs, their
    states, the dashboards code) is unchanged, as the source's own next draw would, and draws the rest."""
    from biaswh.dashboards.common.study_pages import DRAWN_FOLDER
    from biaswh.warehouse.database.sandbox import SCRATCH_PREFIX

    # Not another process's `biaswh sql` sandbox either: it can vanish while the copy walks it.
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("site", f"{SCRATCH_PREFIX}*"))
    if (source / "site" / DRAWN_FOLDER).is_dir():
        shutil.copytree(source / "site" / DRAWN_FOLDER, destination / "site" / DRAWN_FOLDER)
    return destination


def start(folder: Path) -> subprocess.Popen:
    """Start building the demo warehouses in ``folder``; its output goes to ``folder/build.log``."""
    folder.mkdir(parents=True, exist_ok=True)
    log = open(folder / "build.log", "w", encoding="utf-8")  # noqa: SIM115 - the child writes it until it ends
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.prebuilt", str(folder)],
            cwd=REPOSITORY_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(REPOSITORY_ROOT)},
        )
    finally:
        log.close()  # the child holds its own handle


def wanted() -> tuple[str, ...]:
    """The warehouses of :data:`BUILT_IN_ORDER` this session's prebuild builds: up to the last one
    ``BIASWH_TEST_PREBUILD`` names (those before it too, which it starts from); all when it names none."""
    names = {name.strip() for name in os.environ.get(PREBUILD_VARIABLE, "").split(",")}
    named = [BUILT_IN_ORDER.index(name) for name in names if name in BUILT_IN_ORDER]
    return BUILT_IN_ORDER[: max(named, default=len(BUILT_IN_ORDER) - 1) + 1]


def prebuilt(name: str) -> Path | None:
    """``FOLDER/name`` once its warehouse is complete; None when no prebuild runs for this session,
    when it does not build ``name`` (:func:`wanted`), or when a prebuild from before ``name`` was
    kept in it (:data:`MADE_BEFORE_THE_SITE`).

    Raises ``RuntimeError`` with the build's traceback when it failed, or when it takes longer
    than :data:`WAIT_SECONDS`.
    """
    folder = os.environ.get(FOLDER_VARIABLE)
    if not folder or ("site" if name in MADE_BEFORE_THE_SITE else name) not in wanted():
        return None
    built = Path(folder) / name
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if (built / "done").exists():
            return built
        if name in MADE_BEFORE_THE_SITE and not built.exists() and (Path(folder) / "site" / "done").exists():
            return None
        if (built / "failed").exists():
            raise RuntimeError(f"the prebuilt {name} warehouse failed:\n{(built / 'failed').read_text()}")
        if (Path(folder) / "ended").exists() and not (built / "done").exists():
            log = (Path(folder) / "build.log").read_text(encoding="utf-8", errors="replace")
            raise RuntimeError(f"the prebuild ended without the {name} warehouse:\n{log[-4000:]}")
        time.sleep(1)
    raise RuntimeError(f"the prebuilt {name} warehouse was not ready after {WAIT_SECONDS} s")


def _build(folder: Path, work) -> None:
    """Run ``work()`` with stdout captured to ``folder/stdout.txt``; mark ``done`` or ``failed``.

    Each build starts from an empty embedding cache of its own and may not load the encoder:
    the shipped demo vectors must serve every demo text (tests/encoder_guard.py).
    """
    from tests.encoder_guard import refusing_encoder_loads

    folder.mkdir(parents=True, exist_ok=True)
    try:
        with (
            open(folder / "stdout.txt", "w", encoding="utf-8") as out,
            contextlib.redirect_stdout(out),
            refusing_encoder_loads(),
        ):
            work()
    except BaseException:
        (folder / "failed").write_text(traceback.format_exc(), encoding="utf-8")
        raise
    (folder / "done").write_text("", encoding="utf-8")


def main(folder: Path) -> None:
    """Build the demo warehouse, the site warehouse from a copy of it, then the audit's from a copy of that."""
    from biaswh.common.audit_run import run_audit
    from biaswh.pipeline import run_studies, run_study
    from tests.coverage_site.sitecustomize import pause_coverage_in_libraries

    pause_coverage_in_libraries()  # as in the test workers: dbt and the encoder are not ours to measure
    demo, site, audit, evaluation = folder / "demo", folder / "site", folder / "audit", folder / "evaluation"
    os.environ["BIASWH_BM25_CACHE"] = str(folder / "bm25")  # the tests' own, never the user's ~/.cache

    def demo_study() -> None:
        os.environ[HOME_VARIABLE] = str(demo / "warehouse")
        os.environ["BIASWH_EMBEDDING_CACHE"] = str(demo / "embeddings")  # its own, empty: the demo's vectors imported
        run_study(str(DEMO_STUDY))

    def other_studies() -> None:
        shutil.copytree(demo / "warehouse", site / "warehouse", ignore=shutil.ignore_patterns("site"))
        os.environ[HOME_VARIABLE] = str(site / "warehouse")
        os.environ["BIASWH_EMBEDDING_CACHE"] = str(site / "embeddings")  # workers may read the demo's meanwhile
        studies = sorted((REPOSITORY_ROOT / "studies").glob("demo*.toml"))
        others = [str(study) for study in studies if study != DEMO_STUDY]
        assert others[0] == str(EVALUATION_STUDY)  # the first after the demo, in `make demo`'s order
        run_studies(others[:1])
        _build(evaluation, evaluation_snapshot)
        run_studies(others[1:])

    def evaluation_snapshot() -> None:
        """The site's warehouse (its pages too) and vectors right after the demo evaluation study."""
        shutil.copytree(site / "warehouse", evaluation / "warehouse")
        shutil.copytree(site / "embeddings", evaluation / "embeddings")

    def demo_audit() -> None:
        copy_without_pages(site / "warehouse", audit / "warehouse")
        os.environ[HOME_VARIABLE] = str(audit / "warehouse")
        os.environ["BIASWH_EMBEDDING_CACHE"] = str(audit / "embeddings")
        run_audit(str(REPOSITORY_ROOT / "studies" / "audit_demo.toml"))

    try:
        for name, work in zip(wanted(), (demo_study, other_studies, demo_audit)):
            _build(folder / name, work)
    finally:
        (folder / "ended").write_text("", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
