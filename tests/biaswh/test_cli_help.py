"""Every `biaswh` command teaches in its own --help: what it does, an example, where results go;
every option says what it is for."""

from __future__ import annotations

import argparse
import re
import shlex

import pytest

from biaswh.cli import _parser
from biaswh.cli_help import HELP, _subcommands


def _commands():
    return list(_subcommands(_parser()))


def test_every_command_has_help_text():
    assert {path for path, _ in _commands()} == set(HELP)


@pytest.mark.parametrize("path", sorted(HELP))
def test_a_command_help_says_what_it_does_with_an_example_and_where_results_go(path):
    command = dict(_commands())[path]
    shown = command.format_help()
    assert command.description and len(command.description) > 20, path
    assert "example:\n  biaswh " + path in shown
    assert "results: " in shown
    assert re.search(r"\$BIASWH_HOME|--out|the file|files", shown), path


def test_every_option_and_argument_has_help_text():
    missing = []
    for path, command in [("", _parser()), *_commands()]:
        for action in command._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"biaswh {path} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, "options without help text: " + ", ".join(missing)


@pytest.mark.parametrize("path", sorted(HELP))
def test_each_example_is_a_command_the_parser_takes(path):
    words = shlex.split(HELP[path][1])[1:]
    args, extra = _parser().parse_known_args(words)
    assert not extra or path == "build"
    assert args.command == path.split()[0]


def test_the_shell_help_lists_every_dot_command_the_shell_takes():
    from biaswh.sql_shell import HELP as SHELL_HELP

    shown = dict(_commands())["shell"].format_help()
    for dot_command in re.findall(r"^  (\.\w+)", SHELL_HELP, flags=re.M):
        assert dot_command in shown


def test_the_top_help_names_where_the_warehouse_and_the_site_are():
    shown = _parser().format_help()
    assert "$BIASWH_HOME" in shown and "site/index.html" in shown and "example:" in shown


def test_generate_sampling_options_say_what_they_send():
    generate = dict(_commands())["generate"].format_help()
    for option in ("--temperature", "--top-p", "--max-tokens", "--max-retries"):
        assert re.search(re.escape(option) + r" \w+\s+\S", generate), option
