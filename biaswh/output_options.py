"""The command-line options that name a file or folder a command writes, checked before any work.

Every such option is listed here; :func:`check_output_options` passes each one given through
:func:`warehouse.output_files.checked_output` as the command starts, so an output named as the
warehouse (any spelling, link or hard link) is refused in one line before a query runs or a
request is sent. The writers themselves write through :func:`warehouse.output_files.atomic_output`.
``tests/hostile/test_output_guard.py`` reads the parser and fails on an output option missing here.
"""

from __future__ import annotations

from dataclasses import dataclass

from warehouse.output_files import checked_output


@dataclass(frozen=True)
class OutputOption:
    """One option that names an output: the subcommand path, its argparse ``dest`` and how it is written."""

    command: tuple[str, ...]
    dest: str
    folder: bool = False  # a folder the command fills (the dashboard site)
    creates_folder: bool = True  # the file's missing folders are made (``biaswh sql --out`` wants them to exist)

    @property
    def label(self) -> str:
        spelled = "OUT" if self.dest == "out" and self.command[0] == "trec" else f"--{self.dest.replace('_', '-')}"
        return f"{' '.join(self.command)} {spelled}"


OUTPUT_OPTIONS = (
    OutputOption(("sql",), "out", creates_folder=False),
    OutputOption(("trec", "export"), "out"),
    OutputOption(("variants", "rules"), "out"),
    OutputOption(("variants", "rules"), "report"),
    OutputOption(("variants", "llm"), "out"),
    OutputOption(("variants", "llm"), "pairs_out"),
    OutputOption(("variants", "llm"), "report"),
    OutputOption(("generate",), "out"),
    OutputOption(("dashboards",), "out", folder=True),
    OutputOption(("export",), "out", folder=True),
)
# The argparse dests naming the subcommand at each depth.
_SUBCOMMAND_DESTS = ("command", "trec_command", "variants_command")


def command_path(args) -> tuple[str, ...]:
    """The subcommands ``args`` were parsed for, e.g. ``("variants", "llm")``."""
    return tuple(getattr(args, dest) for dest in _SUBCOMMAND_DESTS if getattr(args, dest, None))


def check_output_options(args) -> None:
    """Refuse the command (:class:`warehouse.output_files.OutputRefused`) when an output it names
    would reach the warehouse; run before the command does anything else."""
    path = command_path(args)
    for option in OUTPUT_OPTIONS:
        given = getattr(args, option.dest, None)
        if option.command == path and given:
            checked_output(given, option=option.label, folder=option.folder, creates_folder=option.creates_folder)
