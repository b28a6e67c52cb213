"""Every example of README.md and docs/ runs and prints what its page shows (docs/examples.py has
the conventions). The getting-started and bring-your-own-data pages run in test_walkthrough.py."""

from __future__ import annotations

import re

import pytest

from docs.examples import RUNNABLE, blocks
from tests.conftest import REPOSITORY_ROOT, copy_warehouse, shared_file
from tests.docs.example_runner import ExampleRunner, matches, prepare_workdir
from tests.docs.test_recorded_findings import assert_recorded

WALKTHROUGH_PAGES = ("getting-started.md", "bring-your-own-data.md")
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
LANGUAGES = {*RUNNABLE, "text", "toml", "yaml", "json"}
MARKS = {None, "real_data", "endpoint", "setup", "not run"}


def _pages():
    return [REPOSITORY_ROOT / "README.md", *sorted((REPOSITORY_ROOT / "docs").rglob("*.md"))]


def _examples(marks):
    return [b for page in _pages() if page.name not in WALKTHROUGH_PAGES for b in blocks(page) if b.mark in marks]


def test_every_block_is_an_example_or_plain_text():
    for page in _pages():
        for block in blocks(page):
            assert block.language in LANGUAGES, f"{block.where}: a ```{block.language} block; use console or pycon"
            assert block.mark in MARKS, f"{block.where}: unknown example mark {block.mark!r}"
            assert block.mark != "not run" or block.reason, f"{block.where}: say why the example is not run"
            assert block.language != "sql" or block.expected is not None, (
                f"{block.where}: a sql example needs its output"
            )


def test_every_example_prints_what_its_page_shows(demo_site, tmp_path, capsys):
    home = copy_warehouse(demo_site.parent, tmp_path / "warehouse")
    runner = ExampleRunner(prepare_workdir(tmp_path / "work"), home)
    examples = _examples({None})
    for block in examples:
        runner.run(block)
    skipped = _examples({"real_data", "endpoint", "setup", "not run"})
    with capsys.disabled():
        print(f"\ndocs examples: {runner.count} run, {len(skipped)} left to the real-data tests or not run")
    assert runner.count >= 10


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
        for page in _pages():
            for block in blocks(page):
                if block.mark == "endpoint":
                    block = replace(block, code=re.sub(r"--base-url \S+", f"--base-url {server.base_url}", block.code))
                if block.mark in ("real_data", "endpoint"):
                    runner.run(block)
    with capsys.disabled():
        print(f"\ndocs real-data and endpoint examples: {runner.count} run")
    assert runner.count >= 10
    assert_recorded(home, REAL_STUDIES_RUN_WHOLE)


def test_the_output_check_stands_for_any_text_only_where_the_page_says_so():
    assert matches("a | b\n1 | ...", "a | b\n1 | 2.5")
    assert matches("...\ndashboard site: .../index.html", "x\ny\ndashboard site: /tmp/w/site/index.html")
    assert not matches("a | b\n1 | 2", "a | b\n1 | 3")
    assert not matches("(4 rows)", "(5 rows)")
