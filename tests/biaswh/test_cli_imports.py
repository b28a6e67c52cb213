"""`biaswh --help`, every subcommand's `--help` and `--version` import no heavy library, and
`biaswh sql` imports none beyond DuckDB: the modules loaded, not the seconds, so it is deterministic.
(The seconds are measured by `make bench`: benchmarks/cli_latency.py.)
"""

import json
import os
import subprocess
import sys

import pytest

from benchmarks.cli_latency import command_paths
from biaswh.cli import _parser
from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT

HEAVY = (
    "duckdb",
    "pyarrow",
    "numpy",
    "polars",
    "pandas",
    "scipy",
    "lancedb",
    "openai",
    "httpx2",
    "torch",
    "sentence_transformers",
    "dbt",
    "altair",
    "yaml",
    "jinja2",
)
# Runs biaswh (each argv in turn, in one interpreter, as the console script would), then lists the
# heavy top-level packages loaded.
PROBE = f"""
import json, runpy, sys
for argv in json.loads(sys.argv[1]):
    sys.argv = ["biaswh", *argv]
    try:
        runpy.run_module("biaswh.cli", run_name="__main__")
    except SystemExit:
        pass
print("LOADED=" + json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & {set(HEAVY)!r})))
"""


def _loaded(argvs: list[list[str]], home) -> list[str]:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argvs)],
        env={**os.environ, HOME_VARIABLE: str(home)},
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    marker = [line for line in completed.stdout.splitlines() if line.startswith("LOADED=")]
    assert marker, completed.stdout + completed.stderr
    return json.loads(marker[-1].removeprefix("LOADED="))


def test_the_command_tree_names_every_command():
    paths = {" ".join(p) for p in command_paths(_parser())}
    assert {"sql", "shell", "run", "ingest squad", "ingest pairs", "variants llm", "trec export"} <= paths


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["variants", "llm", "--help"]])
def test_help_and_version_import_no_heavy_library(args, tmp_path):
    assert _loaded([args], tmp_path) == []


def test_every_subcommand_help_together_imports_no_heavy_library(tmp_path):
    # One interpreter answers every `biaswh ... --help` in turn: what any of them imports stays loaded.
    assert _loaded([[*path, "--help"] for path in command_paths(_parser())], tmp_path) == []


def test_version_names_the_package_and_the_commit():
    completed = subprocess.run(
        [sys.executable, "-m", "biaswh.cli", "--version"], cwd=REPOSITORY_ROOT, capture_output=True, text=True
    )
    assert completed.returncode == 0
    line = completed.stdout.strip()
    assert line.startswith("biaswh 0.") and "\n" not in line
    head = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=REPOSITORY_ROOT, capture_output=True, text=True
    )
    if head.returncode == 0:  # a git checkout: the commit is named
        assert line.endswith(f"(git {head.stdout.strip()})")


def test_a_query_loads_duckdb_only(tmp_path):
    home = tmp_path / "warehouse"
    subprocess.run(
        [sys.executable, "-c", "from biaswh.warehouse.database.connection import connect; connect().close()"],
        env={**os.environ, HOME_VARIABLE: str(home)},
        cwd=REPOSITORY_ROOT,
        check=True,
    )
    assert _loaded([["sql", "select 1 as one"]], home) == ["duckdb"]


def test_loading_every_study_family_imports_no_scikit_learn_statsmodels_or_lancedb():
    # Only the WEAT RNSB metric and the recommendation importance job fit scikit-learn models;
    # only the silent-bias rates use statsmodels' intervals (Holm and BH are ours, to its bit);
    # only a write to a Lance table needs LanceDB. Each is imported when used, so a dialect or
    # evaluation study does not pay for them (about 0.6, 1 and 2.5 s).
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from biaswh.plugins import load_plugins; load_plugins();"
            " print(sorted({m.split('.')[0] for m in sys.modules}"
            " & {'sklearn', 'polars', 'scipy', 'statsmodels', 'lancedb'}))",
        ],
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert completed.stdout.strip() == "['polars', 'scipy']", completed.stdout + completed.stderr


def test_biaswh_run_starts_dbts_process_before_it_imports_the_run_pipeline(tmp_path):
    # The child loads dbt (2-3 s of CPU) while this process imports the run's modules.
    probe = (
        "import os, sys\nfrom biaswh.warehouse.dbt_build import build_process\n"
        "def start():\n"
        "    print('STARTED pipeline imported' if 'biaswh.pipeline' in sys.modules else 'STARTED first', flush=True)\n"
        "    os._exit(0)\n"
        "build_process.start = start\nfrom biaswh.cli import main\nmain(['run', 'studies/demo.toml'])\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != "BIASWH_DBT_SUBPROCESS"}
    completed = subprocess.run(
        [sys.executable, "-c", probe],
        env={**environment, HOME_VARIABLE: str(tmp_path / "home")},
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert "STARTED first" in completed.stdout, completed.stdout + completed.stderr[-3000:]
