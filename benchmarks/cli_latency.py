"""How fast the ``biaswh`` command answers: ``--help``, every subcommand's ``--help``, ``--version``
and ``biaswh sql "select 1"``.

Each is the median of ``RUNS`` fresh processes (``python -m biaswh.cli ...``), wall time and CPU
time (user + system of the process). Targets: every ``--help`` and ``--version``
within 0.3 s, the trivial query within 1 s, on 2 cores. The wall time of a bare interpreter
(``python -c pass``) and the load average are recorded beside them: on a loaded machine they
show how much of a command's time is the machine's and not the command's. Writes benchmarks/results/cli_latency.json.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import write_result
from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT

RUNS = 9
HELP_TARGET_SECONDS = 0.3
SQL_TARGET_SECONDS = 1.0


def command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command of the tree, e.g. ``("ingest", "squad")``, ``("sql",)``: the ones with their own ``--help``."""
    paths = []
    for action in parser._actions:  # argparse offers no public walk of its subcommands
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                paths.append((*prefix, name))
                paths += command_paths(child, (*prefix, name))
    return paths


def _timed(argv: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process running ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=REPOSITORY_ROOT, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _median(argv: list[str], env: dict, *, target: float | None) -> dict:
    walls, cpus = zip(*(_timed(argv, env) for _ in range(RUNS)))
    result = {
        "median_seconds": round(statistics.median(walls), 3),
        "median_cpu_seconds": round(statistics.median(cpus), 3),
    }
    if target is not None:
        result["meets_target"] = result["median_seconds"] <= target
        # CPU seconds meet it too when a loaded machine (see load_average_1min) slows the wall time.
        result["cpu_meets_target"] = result["median_cpu_seconds"] <= target
    return result


def main() -> None:
    from biaswh.cli import _parser

    biaswh = [sys.executable, "-m", "biaswh.cli"]
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as folder:
        env = {**os.environ, HOME_VARIABLE: str(Path(folder) / "warehouse")}
        # An empty warehouse: the time of `select 1` is the command's own, not the data's.
        subprocess.run(
            [sys.executable, "-c", "from biaswh.warehouse.database.connection import connect; connect().close()"],
            env=env,
            cwd=REPOSITORY_ROOT,
            check=True,
        )
        commands = {"--help": _median([*biaswh, "--help"], env, target=HELP_TARGET_SECONDS)}
        commands["--version"] = _median([*biaswh, "--version"], env, target=HELP_TARGET_SECONDS)
        for path in command_paths(_parser()):
            commands[" ".join(path) + " --help"] = _median([*biaswh, *path, "--help"], env, target=HELP_TARGET_SECONDS)
        sql = _median([*biaswh, "sql", "select 1"], env, target=SQL_TARGET_SECONDS)
        bare = _median([sys.executable, "-c", "pass"], env, target=None)
    helps = [v for k, v in commands.items() if k.endswith("--help") or k == "--version"]
    write_result(
        "cli_latency",
        {
            "runs_per_command": RUNS,
            "target_help_seconds": HELP_TARGET_SECONDS,
            "target_sql_seconds": SQL_TARGET_SECONDS,
            "slowest_help_seconds": max(v["median_seconds"] for v in helps),
            "sql_select_1": sql,
            "bare_interpreter": bare,
            "meets_target": all(v["meets_target"] for v in helps) and sql["meets_target"],
            "cpu_meets_target": all(v["cpu_meets_target"] for v in helps) and sql["cpu_meets_target"],
            "commands": commands,
            "cpu_count": os.cpu_count(),
            "load_average_1min": os.getloadavg()[0],
        },
    )


if __name__ == "__main__":
    main()
