"""The command-line options that name a file or folder a command writes, checked before any work.

Every such option registers here where its command lives (:func:`register_output_options`: the
kernel's in :mod:`biaswh.core_commands`, a family's in ``biaswh/<family>/cli.py``);
:func:`check_output_options` passes each one given through
:func:`biaswh.warehouse.database.output_files.checked_output` as the command starts, so an output named as the
warehouse (any spelling, link or hard link) is refused in one line before a query runs or a
request is sent. The writers themselves write through :func:`biaswh.warehouse.database.output_files.atomic_output`.
``tests/hostile/test_output_guard.py`` reads the parser and fails on an output option not registered.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from biaswh.warehouse.database.output_files import checked_output


@dataclass(frozen=True)
class OutputOption:
    """One option that names an output: the subcommand path, its argparse ``dest`` and how it is written."""

    command: tuple[str, ...]
    dest: str
    folder: bool = False  # a folder the command fills (the dashboard site)
    creates_folder: bool = True  # the file's missing folders are made (``biaswh sql --out`` wants them to exist)
    positional: bool = False  # an argument, not an option: named in its upper-case dest (``OUT``)

    @property
    def label(self) -> str:
        spelled = self.dest.upper() if self.positional else f"--{self.dest.replace('_', '-')}"
        return f"{' '.join(self.command)} {spelled}"


# Every registered output option, the kernel's and each family's.
OUTPUT_OPTIONS: list[OutputOption] = []


def register_output_options(
    command: str, *dests: str, folder: bool = False, creates_folder: bool = True, positional: bool = False
) -> None:
    """Declare that the options ``dests`` of the subcommand ``command`` (e.g. ``"trec export"``) name outputs.

    Parameters
    ----------
    command : the subcommand's words, as typed after ``biaswh``.
    dests : the argparse ``dest`` of each option or argument.
    folder : it names a folder the command fills, not a file.
    creates_folder : the file's missing folders are made (False: they must exist).
    positional : an argument, not an option (its label is the upper-case ``dest``).
    """
    for dest in dests:
        option = OutputOption(tuple(command.split()), dest, folder, creates_folder, positional)
        if option not in OUTPUT_OPTIONS:  # a module imported twice registers once
            OUTPUT_OPTIONS.append(option)


def command_path(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[str, ...]:
    """The subcommands ``args`` were parsed for, e.g. ``("variants", "llm")``, read from ``parser``'s tree."""
    path: list[str] = []
    while True:
        subcommands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        chosen = getattr(args, subcommands[0].dest, None) if subcommands else None
        if chosen is None:
            return tuple(path)
        path.append(chosen)
        parser = subcommands[0].choices[chosen]


def check_output_options(args: argparse.Namespace, path: tuple[str, ...]) -> None:
    """Refuse the command ``path`` (:class:`biaswh.warehouse.database.output_files.OutputRefused`) when an output it
    names in ``args`` would reach the warehouse; run before the command does anything else."""
    for option in OUTPUT_OPTIONS:
        given = getattr(args, option.dest, None)
        if option.command == path and given:
            checked_output(given, option=option.label, folder=option.folder, creates_folder=option.creates_folder)
