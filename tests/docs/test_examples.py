"""Every example of README.md and docs/ runs and prints what its page shows (docs/examples.py has
the conventions). The getting-started and bring-your-own-data pages run in test_walkthrough.py,
the real-data and endpoint examples in test_real_data_examples.py."""

from __future__ import annotations

from docs.examples import RUNNABLE, blocks
from tests.conftest import copy_warehouse
from tests.docs.example_runner import ExampleRunner, example_pages, matches, prepare_workdir

WALKTHROUGH_PAGES = ("getting-started.md", "bring-your-own-data.md")
LANGUAGES = {*RUNNABLE, "text", "toml", "yaml", "json"}
MARKS = {None, "real_data", "endpoint", "setup", "not run"}


def _examples(marks):
    pages = [page for page in example_pages() if page.name not in WALKTHROUGH_PAGES]
    return [block for page in pages for block in blocks(page) if block.mark in marks]


def test_every_block_is_an_example_or_plain_text():
    for page in example_pages():
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


def test_the_output_check_stands_for_any_text_only_where_the_page_says_so():
    assert matches("a | b\n1 | ...", "a | b\n1 | 2.5")
    assert matches("...\ndashboard site: .../index.html", "x\ny\ndashboard site: /tmp/w/site/index.html")
    assert not matches("a | b\n1 | 2", "a | b\n1 | 3")
    assert not matches("(4 rows)", "(5 rows)")
