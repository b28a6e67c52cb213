"""The real-data and endpoint examples of README.md and docs/ run, in page order, in one warehouse.

A module of its own: it reads only the session's demo warehouse, not the demo site, so under
`make test` it runs while the site's studies are still being built beside the workers
(tests/prebuilt.py), not after them with every test that reads the site.
"""

from __future__ import annotations

import re

import pytest

from docs.examples import blocks
from tests.conftest import copy_warehouse, shared_file
from tests.docs.example_runner import ExampleRunner, example_pages, prepare_workdir
from tests.docs.test_recorded_findings import assert_recorded

# The real studies the examples run whole: their findings must be the ones the docs state.
REAL_STUDIES_RUN_WHOLE = (
    "internal_docs_evaluation",
    "recsys_paper",
    "recsys_published",
    "silent_bias",
    "squad_dialect_seed_compatible",
    "squad_rule_variants",
    "weat_word2vec",
)


@pytest.mark.real_data
def test_every_real_data_and_endpoint_example_runs(demo_warehouse, tmp_path, capsys):
    """In page order, in one warehouse; an endpoint example's --base-url points at a local
    OpenAI-compatible stand-in (tests/ingest/chat_stand_in.py), never the network."""
    from dataclasses import replace

    from tests.ingest.chat_stand_in import ChatStandIn

    shared_file("squad-v1.1/train.parquet")
    home = copy_warehouse(demo_warehouse.home, tmp_path / "warehouse")
    runner = ExampleRunner(prepare_workdir(tmp_path / "work"), home)
    with ChatStandIn(responder=lambda prompt, body: "Where he be at?") as server:
        for page in example_pages():
            for block in blocks(page):
                if block.mark == "endpoint":
                    block = replace(block, code=re.sub(r"--base-url \S+", f"--base-url {server.base_url}", block.code))
                if block.mark in ("real_data", "endpoint"):
                    runner.run(block)
    with capsys.disabled():
        print(f"\ndocs real-data and endpoint examples: {runner.count} run")
    assert runner.count >= 10
    assert_recorded(home, REAL_STUDIES_RUN_WHOLE)
