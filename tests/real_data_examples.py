"""The real-data and endpoint examples of README.md and docs/, run once per session (a plugin of tests/conftest.py).

In page order, in one warehouse (a copy of the session's demo warehouse): among them whole real
studies (``squad_rule_variants``, ``squad_dialect_seed_compatible``, ``weat_word2vec``...).
tests/docs/test_real_data_examples.py checks that every example ran as its page shows; a module
about one of those studies that only reads its run (tests/integration/test_rule_variant_study.py,
tests/dbt_project/test_metrics_against_trec_eval_internal_docs.py,
tests/compute/recsys/test_recsys_paper_figures.py) reads it here instead of running the study again
in a warehouse of its own. Under `make test` they share one xdist group
(``real-data-examples``, :mod:`tests.scheduling`), so the examples run once, on one worker. Read
only: a test that changes the warehouse works on :func:`tests.conftest.copy_warehouse` of
:attr:`RealDataExamples.home`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import pytest


@dataclass(frozen=True)
class RealDataExamples:
    """The warehouse the examples ran in and how many of them ran."""

    home: Path
    count: int


def run_real_data_examples(home: Path, workdir: Path) -> int:
    """Run every ``real_data`` and ``endpoint`` example in page order against ``home``; how many ran.

    An endpoint example's ``--base-url`` points at a local OpenAI-compatible stand-in
    (tests/ingest/chat_stand_in.py), never the network.
    """
    from docs.examples import blocks
    from tests.docs.example_runner import ExampleRunner, example_pages, prepare_workdir
    from tests.ingest.chat_stand_in import ChatStandIn

    runner = ExampleRunner(prepare_workdir(workdir), home)
    with ChatStandIn(responder=lambda prompt, body: "Where he be at?") as server:
        for page in example_pages():
            for block in blocks(page):
                if block.mark == "endpoint":
                    block = replace(block, code=re.sub(r"--base-url \S+", f"--base-url {server.base_url}", block.code))
                if block.mark in ("real_data", "endpoint"):
                    runner.run(block)
    return runner.count


@pytest.fixture(scope="session")
def real_data_examples(demo_warehouse, tmp_path_factory) -> RealDataExamples:
    """Every real-data and endpoint example run once for the session; shared and read-only."""
    from tests.conftest import copy_warehouse, shared_file

    shared_file("squad-v1.1/train.parquet")
    folder = tmp_path_factory.mktemp("real-data-examples")
    home = copy_warehouse(demo_warehouse.home, folder / "warehouse")
    return RealDataExamples(home, run_real_data_examples(home, folder / "work"))
