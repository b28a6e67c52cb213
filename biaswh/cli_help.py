"""What each ``biaswh`` command's own ``--help`` says: what it does, an example, and where its
results go. :func:`teach` adds it to the argument tree that ``biaswh.cli`` builds, so the option
definitions stay where they are and every page of help reads the same way.

:data:`HELP` holds the kernel's commands; a family's commands add theirs as they register
(:func:`biaswh.command_registry.register_command`, through :func:`add_help`). The texts name no
study family: ``{family}``, ``{families}`` and ``{subcommands}`` in them are filled as the tree is
taught, from the families found (:func:`biaswh.warehouse.settings.plugin_roots.family_names`) and the command's
registered subcommands.
"""

from __future__ import annotations

import argparse
import textwrap

from biaswh.warehouse.settings.plugin_roots import family_names

HOME = "the warehouse in $BIASWH_HOME (default: .warehouse/ in the checkout)"
SITE = "$BIASWH_HOME/site/index.html"
READS = f"Reads {HOME}; changes nothing."
LOADS = f"Writes raw.* of {HOME}, in one transaction; an identical file loaded again is a no-op."

SHELL_DOT_COMMANDS = """\
dot commands:
  .help                        what the shell takes
  .tables                      every relation: schema, name, type
  .schema NAME                 NAME's columns with their types and descriptions
  .mode table|csv|json|line    how results are shown
  .quit                        leave (as does Ctrl-D)"""

# The build command's epilog: what it passes to dbt, where dbt's output goes.
BUILD_EPILOG = (
    "Any further arguments (e.g. --select tag:{family}, a study family's models; the families: {families})"
    " are passed to dbt build."
    " dbt's per-node output goes to $BIASWH_HOME/dbt/logs/dbt-build.log; -v shows it here."
)

# command path -> (what it does, an example, where results go); families' commands join as they register
HELP: dict[str, tuple[str, str, str]] = {
    "ingest": (
        "Load one source ({subcommands}) into the raw schema, named and versioned. Studies load"
        " their own inputs; this is for loading by hand.",
        "biaswh ingest corpus my-corpus --name my_corpus",
        LOADS,
    ),
    "build": (
        "Build the dbt project: every model, data test and unit test.",
        "biaswh build --select tag:{family}",
        f"Writes the staging, intermediate and marts schemas of {HOME}; dbt's log goes to"
        " $BIASWH_HOME/dbt/logs/dbt-build.log.",
    ),
    "rebuild": (
        "Recompute one run's rows in every run-keyed mart, on purpose (a finished run's rows never change otherwise).",
        "biaswh rebuild --run 0123abcd...",
        f"Replaces that run's rows in the marts of {HOME}.",
    ),
    "analyze": (
        "Run a study's analysis steps (statistical tests, verdicts) on the built marts.",
        "biaswh analyze studies/demo.toml",
        f"Writes analysis.* of {HOME}, keyed by the run.",
    ),
    "dashboards": (
        "Write the static dashboard site from what the warehouse holds.",
        "biaswh dashboards",
        f"Writes {SITE} (or --out); open it in a browser, no server needed.",
    ),
    "export": (
        "Write every table of a study run's pages as files: csv or parquet hold the stored values"
        " (one column per number, with run_id and study); latex (booktabs, with tables.tex to"
        " compile) and markdown hold the page's display with significance marks and the verdict"
        " policy in each caption.",
        "biaswh export studies/demo.toml --format latex --out exports/",
        f"Reads {HOME}; writes OUT/<study>-<run>/ (default OUT: ./exports), one file per table.",
    ),
    "run": (
        "Run a study end to end: check its config, ingest its inputs, build, run its compute jobs,"
        " analyse, and write the site. Several studies run in turn in one process.",
        "biaswh run studies/demo.toml",
        f"Writes {HOME} and the site {SITE}; the last line printed is the site's path. With"
        " --no-site the site is left as it was, and the last line says to draw it with `biaswh dashboards`.",
    ),
    "sql": (
        "Run one SQL statement, read-only. Unqualified names resolve through marts, analysis,"
        " intermediate, staging and raw; writes, files and settings are refused.",
        'biaswh sql "select run_name, run_status from dim_runs"',
        READS + " --out writes the result to a file outside $BIASWH_HOME.",
    ),
    "diff": (
        "Say what differs between two runs: config keys, inputs (version and sha256), code, and"
        " each result table whose stored rows differ (floats to 12 digits, latencies left out);"
        " 'identical' when nothing does. A run is its id or a unique start of it.",
        "biaswh diff 1f0c2a9d3b7e 8e41d7f0a2c5",
        READS + " One line per difference group on stdout.",
    ),
    "shell": (
        "An interactive read-only SQL prompt: line editing, history (~/.biaswh_history),"
        " statements over several lines until ';'.\n\n" + SHELL_DOT_COMMANDS,
        "biaswh shell",
        READS,
    ),
}

# `biaswh run --no-site`, `biaswh audit --no-site`: for schedulers and batches of runs.
NO_SITE_HELP = "do not redraw the dashboard site (a scheduler or a batch draws it once, with `biaswh dashboards`)"

TOP_EPILOG = f"""\
example:
  biaswh run studies/demo.toml

Every command works on the warehouse in $BIASWH_HOME (default: .warehouse/ in the
checkout); a study run writes the site {SITE}.
`biaswh COMMAND --help` says what a command does, with an example."""


def add_help(path: str, texts: tuple[str, str, str]) -> None:
    """Add the help of the command ``path`` (what it does, an example, where results go) to :data:`HELP`."""
    description, example, results = texts
    if not example.startswith(f"biaswh {path}"):
        raise ValueError(f"biaswh {path}: its example must start with the command, got {example!r}")
    HELP[path] = (description, example, results)


def teach(parser: argparse.ArgumentParser) -> None:
    """Give every subcommand of ``parser`` its description and an epilog with an example and
    where its results go (:data:`HELP`)."""
    parser.epilog = TOP_EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    families = family_names()
    for path, command in _subcommands(parser):
        if path not in HELP:
            raise KeyError(f"biaswh {path}: no help text in biaswh/cli_help.py")
        description, example, results = (filled(text, command, families) for text in HELP[path])
        command.description = "\n\n".join(_wrap(part) for part in description.split("\n\n"))
        extra = f"\n\n{filled(command.epilog, command, families)}" if command.epilog else ""
        command.epilog = f"example:\n  {example}\n\n" + textwrap.fill(f"results: {results}", width=88) + extra
        command.formatter_class = argparse.RawDescriptionHelpFormatter


def filled(text: str, command: argparse.ArgumentParser, families: list[str]) -> str:
    """``text`` with its placeholders filled: ``{family}`` (the first of ``families``, for an
    example), ``{families}`` (all of them) and ``{subcommands}`` (``command``'s own, in listing order)."""
    subcommands = [
        name for action in command._actions if isinstance(action, argparse._SubParsersAction) for name in action.choices
    ]
    return (
        text.replace("{families}", ", ".join(families))
        .replace("{family}", families[0] if families else "FAMILY")
        .replace("{subcommands}", ", ".join(subcommands))
    )


def _wrap(paragraph: str) -> str:
    if paragraph.startswith("dot commands:"):
        return paragraph  # a table, already laid out
    return textwrap.fill(paragraph, width=88)


def _subcommands(parser: argparse.ArgumentParser, prefix: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                path = f"{prefix} {name}".strip()
                yield path, command
                yield from _subcommands(command, path)
