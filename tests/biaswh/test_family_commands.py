"""Each study family's ``biaswh`` subcommands register from its own folder, ``biaswh/<family>/cli*.py``,
and teach in their ``--help`` as the kernel's do (what they do, an example the parser takes,
where results go); the kernel's modules register none of them.
"""

from __future__ import annotations

import shlex

import pytest

from biaswh.cli import _parser
from biaswh.cli_help import HELP, _subcommands
from biaswh.command_registry import COMMANDS, Command, parsed_command

PARSER = _parser()  # registers every family's commands (their help joins HELP)


def _registered_in(depth: int) -> dict[str, Command]:
    """The commands whose function lives ``depth`` packages deep: 1 ``biaswh.x``, 2 ``biaswh.<family>.x``."""
    found = {" ".join(path): c for path, c in COMMANDS.items() if c.run and c.run.__module__.count(".") == depth}
    return dict(sorted(found.items()))


FAMILY_COMMANDS = list(_registered_in(2))


def test_the_project_families_register_their_commands_from_their_folders():
    families = {path: command.run.__module__.split(".")[1] for path, command in _registered_in(2).items()}
    assert families == {
        "ingest squad": "retrieval",
        "ingest corpus": "retrieval",
        "ingest corpus-queries": "retrieval",
        "ingest qrels": "evaluation",
        "monitor": "evaluation",
        "alerts": "evaluation",
        "trec": "retrieval",
        "search": "retrieval",
        "ingest pairs": "dialect",
        "variants": "dialect",
        "peek": "dialect",
        "ingest vectors": "weat",
        "ingest weat-tests": "weat",
        "generate": "silent_bias",
        "audit": "common",  # every family's studies at once: the shared folder's command
    }
    kernel = {"build", "rebuild", "analyze", "dashboards", "export", "run", "sql", "shell", "diff", "where"}
    assert set(_registered_in(1)) == kernel


@pytest.mark.parametrize("path", FAMILY_COMMANDS)
def test_a_family_command_teaches_and_its_example_is_that_command(path):
    command = dict(_subcommands(PARSER))[path]
    shown = command.format_help()
    assert command.description and "example:\n  biaswh " + path in shown and "results: " in shown
    args, extra = PARSER.parse_known_args(shlex.split(HELP[path][1])[1:])
    assert not extra and " ".join(parsed_command(args).path) == path


WRITES = [
    (["ingest", "qrels", "q.tsv", "--query-set", "queries:q"], True),
    (["trec", "import", "r.trec", "--query-set", "q"], True),
    (["trec", "export", "r.trec", "--run", "r", "--retriever", "bm25"], False),
    (["peek", "s.toml", "--pair", "0"], False),
]


@pytest.mark.parametrize(("argv", "writes"), WRITES)
def test_a_family_command_says_whether_it_writes_the_warehouse(argv, writes):
    args = PARSER.parse_args(argv)
    assert parsed_command(args).writes_for(args) is writes
