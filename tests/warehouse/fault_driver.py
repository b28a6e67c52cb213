"""Run ``biaswh`` with fault points, so a test can ``kill -9`` it at a known place of a study.

``python -m tests.warehouse.fault_driver POINT -- ARGS...`` runs ``biaswh ARGS`` in this process
after patching one place to print ``FAULT-POINT <point> pid <pid>`` and wait there:

- ``ingest``: inside an ingest's transaction, after its raw rows are written, before the commit;
- ``jobs``: inside the retrieval job's transaction, after its outputs are written, before the commit;
- ``before-results-build``: between stages (no connection open) before the results build (its
  first open, which waits for a reader); it waits until the file named by ``BIASWH_TEST_RELEASE``
  exists, then goes on;
- ``none``: no wait.

Every ``dbt build`` start is announced as ``FAULT-POINT dbt build <label> started`` (no wait).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def _announce(point: str) -> None:
    print(f"FAULT-POINT {point} pid {os.getpid()}", flush=True)


def _wait_forever(point: str) -> None:
    _announce(point)
    time.sleep(600)


def _patch(point: str) -> None:
    import biaswh.compute.retrieval.steps
    import biaswh.ingest.common.versions
    import biaswh.pipeline

    # selected_build opens the warehouse first (waiting for a reader), then calls dbt_build: pause before that open.
    real_selected_build = biaswh.pipeline.selected_build
    real_dbt_build = biaswh.pipeline.dbt_build

    def selected_build(selection, label, **options):
        if point == "before-results-build" and label == "results":
            _announce(point)
            release = Path(os.environ["BIASWH_TEST_RELEASE"])
            while not release.exists():
                time.sleep(0.05)
        return real_selected_build(selection, label, **options)

    def dbt_build(extra_args=None, *, label="all", quiet=True, **options):
        _announce(f"dbt build {label} started")
        return real_dbt_build(extra_args, label=label, quiet=quiet, **options)

    biaswh.pipeline.selected_build = selected_build
    biaswh.pipeline.dbt_build = dbt_build

    if point == "ingest":
        # Every table-shaped ingest (write_version) writes through ingest_version.
        real_version = biaswh.ingest.common.versions.ingest_version

        def paused_version(*args, write_rows, **kwargs):
            def write_then_wait(run, version):
                rows = write_rows(run, version)
                _wait_forever("ingest")
                return rows

            return real_version(*args, write_rows=write_then_wait, **kwargs)

        biaswh.ingest.common.versions.ingest_version = paused_version
    if point == "jobs":
        real_relevant = biaswh.compute.retrieval.steps.write_relevant_documents

        def write_then_wait(*args, **kwargs):
            real_relevant(*args, **kwargs)
            _wait_forever("jobs")

        biaswh.compute.retrieval.steps.write_relevant_documents = write_then_wait


def main(argv: list[str]) -> int:
    point, separator, *args = argv
    assert separator == "--", "usage: fault_driver POINT -- ARGS..."
    from biaswh.pipeline import load_plugins

    load_plugins()
    _patch(point)
    from biaswh.cli import main as biaswh

    return biaswh(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
