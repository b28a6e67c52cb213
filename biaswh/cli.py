"""``biaswh``: the one console command, a thin layer over the packages.

The CLI is the composition root: it alone imports every layer (ingest, dbt, analysis,
dashboards) and chains them; no layer imports a later one.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

# LanceDB's Rust core logs deprecation warnings per query to stderr; keep errors only
# (a user's own LANCEDB_LOG wins).
os.environ.setdefault("LANCEDB_LOG", "error")

# Only the argument tree's needs are imported here (`--help` answers at once); each command imports
# its own modules when it runs (duckdb, dbt, the LLM client...): tests/biaswh/test_cli_imports.py.
from biaswh import cli_help  # noqa: E402  (after the environment the imports below read)
from biaswh.arguments import VersionAction  # noqa: E402
from biaswh.command_registry import add_commands, parsed_command  # noqa: E402
from biaswh.plugins import load_plugins  # noqa: E402
from biaswh.signals import helper_threads_without_ctrl_c, is_interrupted_query  # noqa: E402
from biaswh.warehouse.errors import UserError  # noqa: E402


class _Parser(argparse.ArgumentParser):
    """argparse with its mistakes in one line (``biaswh run: error: ...``), exit code 2, like every other error."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    """The argument tree of the commands in :mod:`biaswh.command_registry` (the kernel's and each family's)."""
    from biaswh import core_commands, diff_cli, where_cli  # noqa: F401  (importing them registers the kernel's commands)

    load_plugins(("biaswh",))  # each family's biaswh/<family>/cli.py registers its commands
    parser = _Parser(prog="biaswh", description="The bias warehouse: reproducible AI-bias studies on DuckDB.")
    parser.add_argument(
        "--version", action=VersionAction, help="show the package version and the checkout's git commit, and exit"
    )
    add_commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    cli_help.teach(parser)
    return parser


def _refuse_before_work(parser: argparse.ArgumentParser, args, extra: list[str]) -> None:
    """The checks that need no warehouse: outputs that would reach it, dbt options that would rewrite it."""
    from biaswh.output_options import check_output_options, command_path

    check_output_options(args, command_path(parser, args))
    if args.command == "build":
        from biaswh.warehouse.dbt_build.options import refuse_rewriting_options

        refuse_rewriting_options(extra)


def _prestart_dbt(argv: list[str]) -> None:
    """For ``biaswh run`` building on DuckDB: start its dbt process now, before the argument tree
    and the warehouse's lock (it only reads until the run releases it: build_process.prestart)."""
    if argv[:1] == ["run"] and not {"-h", "--help"} & set(argv) and not any(a.startswith("--target") for a in argv):
        from biaswh.warehouse.dbt_build import build_process

        build_process.prestart()


def main(argv: list[str] | None = None) -> int:
    """Run the ``biaswh`` command with ``argv`` (default: the process's arguments); return its exit code."""
    argv = sys.argv[1:] if argv is None else argv
    _prestart_dbt(argv)
    try:
        parser = _parser()
    except UserError as exc:  # a BIASWH_PLUGINS folder that is not there
        return _report(exc)
    args, extra = parser.parse_known_args(argv)
    command = parsed_command(args)
    if extra and not command.passes_on:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.passed_on = extra
    # After parsing: `--help` and argument errors answer without loading libraries.
    with helper_threads_without_ctrl_c():
        import duckdb

    from biaswh.warehouse.database.command_lock import exclusive_command

    try:
        _refuse_before_work(parser, args, extra)
        writes = command.writes_for(args)
        with exclusive_command(f"biaswh {' '.join(argv)}") if writes else contextlib.nullcontext():
            if writes:
                from biaswh.warehouse.database.connection import refuse_if_busy

                refuse_if_busy()  # before seconds of imports: a warehouse busy at the start is named at once
            command.run(args)  # each command imports only what it needs (`biaswh sql` never loads dbt)
    except UserError as exc:
        return _report(exc)
    except (OSError, duckdb.IOException) as exc:
        # A full disk, a vanished folder: the step that was writing rolled back; say so in one line.
        print(
            f"biaswh: error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            " (the step that was writing was rolled back)",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        return _interrupted()
    except RuntimeError as exc:
        if not is_interrupted_query(exc):  # DuckDB's word for a Ctrl-C during a query
            raise
        return _interrupted()
    return 0


def _interrupted() -> int:
    print("biaswh: interrupted; the warehouse is unchanged by the step that was running", file=sys.stderr)
    return 130


def _report(exc: UserError) -> int:
    """Print a user error, one line a mistake, on stderr; return its exit code."""
    for line in str(exc).splitlines() or [type(exc).__name__]:  # a config check lists every mistake, one a line
        print(f"biaswh: error: {line}", file=sys.stderr)
    if getattr(exc, "detail", ""):  # DuckDB's hint, candidates and caret line, as DuckDB wrote them
        print(exc.detail, file=sys.stderr)
    return getattr(exc, "exit_code", 2)  # 1 when the input was fine but the endpoint failed every request


def console() -> None:
    """The ``biaswh`` command and ``python -m biaswh.cli``: :func:`main`, then the exit; a study
    run's without the interpreter's teardown (a quick command's teardown is short)."""
    status = main()
    if sys.argv[1:2] == ["run"]:
        from biaswh.warehouse.runs.processes import exit_without_teardown

        exit_without_teardown(status)
    sys.exit(status)


if __name__ == "__main__":
    console()
