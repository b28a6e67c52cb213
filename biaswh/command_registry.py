"""Every ``biaswh`` subcommand registers here: the kernel's own and each study family's.

A family's commands live in its folder of this layer, ``biaswh/<family>/cli.py`` (or
``cli_<part>.py``), found as the other layers' ``steps.py`` are (:mod:`biaswh.plugins`, a
``BIASWH_PLUGINS`` folder's ``biaswh/<family>/`` included). ``biaswh/cli.py`` builds the argument
tree from this registry and runs the command the parsed arguments name; nothing here names a family.

A command registers its place (``"variants"``, or ``"ingest squad"`` under a command that takes
subcommands), its one-line summary, the function adding its arguments, its position in the
listing (``order``), whether it writes the warehouse, and the help its ``--help`` teaches
(:data:`biaswh.cli_help.HELP`: what it does, an example, where results go).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable

from biaswh.cli_help import add_help

# A command's arguments: a function adding them (and any subcommands of its own) to its parser.
AddArguments = Callable[[argparse.ArgumentParser], None]
RunCommand = Callable[[argparse.Namespace], None]


@dataclass(frozen=True)
class Command:
    """One registered subcommand of ``biaswh``."""

    path: tuple[str, ...]  # ("variants",), or ("ingest", "squad") under a command with subcommands
    summary: str  # its line in the parent's listing
    arguments: AddArguments | None
    run: RunCommand | None  # None for a command whose registered subcommands run (``ingest``)
    order: int  # position among its siblings in the listing
    writes: bool | Callable[[argparse.Namespace], bool]  # holds the command lock for its whole life
    subcommands: tuple[str, str] | None = None  # (argparse dest, metavar) of its registered subcommands
    passes_on: bool = False  # arguments it does not parse go on (to dbt), as ``args.passed_on``

    def writes_for(self, args: argparse.Namespace) -> bool:
        """Whether this command, parsed as ``args``, writes the warehouse."""
        return self.writes(args) if callable(self.writes) else self.writes


COMMANDS: dict[tuple[str, ...], Command] = {}


def register_command(
    path: str,
    *,
    summary: str,
    arguments: AddArguments | None = None,
    order: int = 1000,
    writes: bool | Callable[[argparse.Namespace], bool] = False,
    explained: dict[str, tuple[str, str, str]] | None = None,
    passes_on: bool = False,
):
    """Decorator: ``fn(args)`` runs the subcommand ``path`` (words separated by spaces).

    Parameters
    ----------
    path : the command's words, e.g. ``"trec"`` or ``"ingest qrels"`` (its parent registered too).
    summary : its one line in ``biaswh --help`` (or its parent's).
    arguments : adds its options, and any subcommands of its own, to its parser.
    order : its position among its siblings (the project's own commands use 10, 20, ...; default: last).
    writes : True (or a function of the parsed arguments) when it writes the warehouse.
    explained : command path -> (what it does, an example, where results go), for it and each
        subcommand it adds itself (:data:`biaswh.cli_help.HELP`; the kernel's own are there already).
    passes_on : the arguments it does not parse are passed on (``biaswh build`` to dbt).
    """

    def decorate(fn: RunCommand) -> RunCommand:
        words = tuple(path.split())
        COMMANDS[words] = Command(words, summary, arguments, fn, order, writes, passes_on=passes_on)
        for command_path, texts in (explained or {}).items():
            add_help(command_path, texts)
        return fn

    return decorate


def register_command_group(
    path: str, *, summary: str, order: int, dest: str, metavar: str, writes: bool = False
) -> None:
    """Register a command whose subcommands register themselves (``biaswh ingest SOURCE``).

    Parameters
    ----------
    path, summary, order, writes : as :func:`register_command`.
    dest, metavar : the argparse ``dest`` that holds the chosen subcommand, and its name in usage lines.
    """
    words = tuple(path.split())
    COMMANDS[words] = Command(words, summary, None, None, order, writes, subcommands=(dest, metavar))


def children(parent: tuple[str, ...]) -> list[Command]:
    """The commands registered directly under ``parent`` (``()``: the top level), in listing order."""
    found = [c for c in COMMANDS.values() if c.path[:-1] == parent]
    return sorted(found, key=lambda command: (command.order, command.path))


def add_commands(subparsers, parent: tuple[str, ...] = ()) -> None:
    """Add every command registered under ``parent`` to ``subparsers``, with their own subcommands."""
    for command in children(parent):
        parser = subparsers.add_parser(command.path[-1], help=command.summary)
        if command.arguments is not None:
            command.arguments(parser)
        if command.subcommands is not None:
            dest, metavar = command.subcommands
            add_commands(parser.add_subparsers(dest=dest, required=True, metavar=metavar), command.path)


def parsed_command(args: argparse.Namespace) -> Command:
    """The registered command ``args`` were parsed for (the leaf: ``ingest squad``, not ``ingest``)."""
    command = COMMANDS[(args.command,)]
    while command.subcommands is not None:
        command = COMMANDS[(*command.path, getattr(args, command.subcommands[0]))]
    return command
