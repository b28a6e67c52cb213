"""Which example commands the runner calls in this process, and that such a call keeps what a shell keeps."""

from __future__ import annotations

import pytest

from docs.examples import Block
from tests.docs.example_runner import ExampleRunner, biaswh_arguments


@pytest.mark.parametrize(
    ("command", "arguments"),
    [
        ("biaswh --version", ["--version"]),
        ("biaswh run studies/demo.toml --limit 20", ["run", "studies/demo.toml", "--limit", "20"]),
        ("biaswh sql \"select count(*) from t where x = 'a'\"", ["sql", "select count(*) from t where x = 'a'"]),
        ("biaswh export demo --out exports/   # a comment", ["export", "demo", "--out", "exports/"]),
        ("biaswh sql 'it'\"'\"'s'", ["sql", "it's"]),
        ("biaswh run a.toml --opt=value", ["run", "a.toml", "--opt=value"]),
    ],
)
def test_a_plain_biaswh_command_runs_here_with_the_words_a_shell_would_pass(command, arguments):
    assert biaswh_arguments(command) == arguments


@pytest.mark.parametrize(
    "command",
    [
        "biaswh sql 'select 1' | head -1",
        "biaswh run a.toml && biaswh sql x",
        "biaswh run a.toml > out.txt",
        "biaswh run $STUDY",
        'biaswh sql "select $HOME"',
        "biaswh run studies/*.toml",
        "biaswh variants llm --squad s.parquet \\\n    --out c.jsonl",
        "BIASWH_PLUGINS=x biaswh run a.toml",
        "make demo",
        "# a comment only",
        "cd dbt_project && dbt docs generate",
    ],
)
def test_anything_a_shell_would_expand_or_redirect_runs_in_bash(command):
    assert biaswh_arguments(command) is None


def test_a_command_run_here_fails_as_in_a_shell_and_shows_its_error_line(tmp_path):
    runner = ExampleRunner(tmp_path, tmp_path / "warehouse")
    block = Block(tmp_path / "page.md", 1, "console", "$ biaswh run missing.toml\n")
    with pytest.raises(AssertionError, match=r"page.md:1: `biaswh run missing.toml` exited 2:\n.*missing.toml"):
        runner.run(block)


def test_a_command_run_here_is_checked_against_what_the_page_shows(tmp_path):
    runner = ExampleRunner(tmp_path, tmp_path / "warehouse")
    runner.run(Block(tmp_path / "page.md", 1, "console", "$ biaswh --version\nbiaswh ...\n"))
    with pytest.raises(AssertionError, match="where the page shows\nsomething else"):
        runner.run(Block(tmp_path / "page.md", 1, "console", "$ biaswh --version\nsomething else\n"))
    assert runner.count == 1
