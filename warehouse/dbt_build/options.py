"""The command-line options of a dbt call in this process: which of them shape the parsed
project (and name its target), and the options every call adds for this warehouse."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from biaswh.warehouse.dbt_build.project_dir import dbt_project_dir
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR


def parse_options(args: Sequence[str]) -> list[str]:
    """The options of ``args`` that change the parsed project: ``--target`` and ``--vars``."""
    kept = []
    for i, arg in enumerate(args):
        if arg in ("--target", "-t", "--vars") and i + 1 < len(args):
            kept += [arg, args[i + 1]]
        elif arg.startswith(("--target=", "--vars=")):
            kept.append(arg)
    return kept


def target_name(args: Sequence[str]) -> str | None:
    """The profile target ``args`` name (``--target spark``, ``-t spark``, ``--target=spark``), or
    None for the profile's default."""
    options = parse_options(args)
    for i, arg in enumerate(options):
        if arg in ("--target", "-t"):
            return options[i + 1]
        if arg.startswith("--target="):
            return arg.split("=", 1)[1]
    return None


def full_args(args: Sequence[str], *, log_path: Path, target_path: Path, console: bool) -> list[str]:
    """``args`` (a command first) with the project, profile, target and log options this warehouse uses."""
    command, *rest = args
    return [
        "--no-use-colors",
        "--log-path",
        str(log_path),
        # The log file is ours (the callback below writes dbt's terminal lines to it); dbt's
        # own debug log is not kept.
        "--log-level-file",
        "none",
        "--log-level",
        "info" if console else "none",
        "--no-send-anonymous-usage-stats",
        # dbt would rewrite manifest.json (about 2 s) on every parse and build: written here
        # only when the project changed (dbt_build.invoke._write_manifest), run_results.json per call.
        "--no-write-json",
        command,
        "--project-dir",
        str(dbt_project_dir()),
        "--profiles-dir",
        str(DBT_PROJECT_DIR),
        "--target-path",
        str(target_path),
        *rest,
    ]


# dbt options that would build the study marts from something other than the raw rows and the
# studies' own parameters: every finished run's rows in the rebuilt marts would change (or vanish).
REWRITING_OPTIONS = {
    "--empty": "it builds every selected model from zero rows (the marts of finished runs would be emptied)",
    "--sample": "it builds from a sample of the rows (the marts of finished runs would lose rows)",
    "--event-time-start": "it builds from a time window of the rows (the marts of finished runs would lose rows)",
    "--event-time-end": "it builds from a time window of the rows (the marts of finished runs would lose rows)",
    "--vars": "study parameters come from each study's config; other values would rewrite finished runs' marts",
    "--defer": "it reads models from another dbt state, not this warehouse",
    "--favor-state": "it reads models from another dbt state, not this warehouse",
    "--state": "it reads models from another dbt state, not this warehouse",
    "--defer-state": "it reads models from another dbt state, not this warehouse",
}


def refuse_rewriting_options(args: Sequence[str]) -> None:
    """Refuse dbt options that would rewrite finished runs' marts (:data:`REWRITING_OPTIONS`).

    Raises
    ------
    UserError
        Naming the first such option and why (``--no-empty`` and the like are allowed).
    """
    for arg in args:
        name = arg.split("=", 1)[0]
        if name in REWRITING_OPTIONS:
            raise UserError(
                f"biaswh build {name} is refused for the study warehouse: {REWRITING_OPTIONS[name]};"
                " run dbt on a copy of the warehouse for that"
            )
