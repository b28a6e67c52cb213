"""One mutmut workspace per guarded module, under ``.mutants/`` (see docs/testing.md).

mutmut 3 keeps its settings in ``pyproject.toml`` and its results in a ``mutants/`` folder beside
it, and it throws away every cached result when the selected tests change. So each guarded module
gets a folder of its own: a ``biaswh/`` folder laid out as an install lays it out (links to the
checkout's ``biaswh/`` entries and to its layers, ``stats/`` and the rest, inside it; mutmut names a
mutant after its file's path, and the module it mutates is ``biaswh.stats.verdicts``, never
``stats.verdicts``), links to the tests and data folders of the checkout, and a ``pyproject.toml``
holding the checkout's pytest settings and its ``[tool.mutmut]`` settings with the module
(``only_mutate``) and the test modules that guard it (from ``modules.toml``). Running
``mutmut run`` there mutates that one module and runs only its guard tests; ``mutmut show NAME`` and
``mutmut browse`` work there as usual.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.mutants.results import NOT_KILLED, installed_path, module_results

REPOSITORY = Path(__file__).resolve().parents[2]
WORKSPACES = REPOSITORY / ".mutants"
# What a guard test may read besides the packages: pytest's settings come from the generated file.
ALWAYS_LINKED = ("tests",)
TEST_FINGERPRINT = "guard-tests.json"
PACKAGE = "biaswh"
LAYERS = ("warehouse", "stats", "ingest", "compute", "analysis", "dashboards")


def _package_entries() -> dict[str, Path]:
    """The workspace's ``biaswh/``: the checkout's ``biaswh/`` entries and its layers, as installed."""
    entries = {path.name: path for path in (REPOSITORY / PACKAGE).iterdir() if path.name != "__pycache__"}
    return entries | {layer: REPOSITORY / layer for layer in LAYERS}


def source_paths() -> list[str]:
    """mutmut's ``source_paths`` in a workspace: ``biaswh`` and each folder linked into it.

    mutmut walks a source path without following the links below it, so each linked folder is
    a source path of its own.
    """
    folders = sorted(name for name, path in _package_entries().items() if path.is_dir())
    return [PACKAGE, *(f"{PACKAGE}/{name}" for name in folders)]


def workspace_for(module: str) -> Path:
    """The workspace folder of ``module`` (``stats/paired/sign_flip.py`` → ``.mutants/stats.paired.sign_flip``)."""
    return WORKSPACES / module.removesuffix(".py").replace("/", ".")


def _toml_value(value: object) -> str:
    # JSON's strings, numbers and arrays of them are valid TOML; booleans are spelled alike too.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float | list):
        return json.dumps(value)
    raise TypeError(f"no TOML spelling for {value!r} here")


def _toml_table(name: str, table: dict) -> str:
    lines = [f"[{name}]"] + [f"{key} = {_toml_value(value)}" for key, value in table.items()]
    return "\n".join(lines) + "\n"


def settings_for(module: str, tests: list[str], pyproject: Path = REPOSITORY / "pyproject.toml") -> str:
    """The workspace's ``pyproject.toml``: the checkout's pytest and mutmut settings, narrowed to ``module``."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]
    mutmut = dict(config["mutmut"])
    mutmut["source_paths"] = source_paths()
    mutmut["only_mutate"] = [installed_path(module)]
    mutmut["pytest_add_cli_args_test_selection"] = list(tests)
    return (
        "# Written by `python -m tests.mutants`; the settings live in the checkout's pyproject.toml\n"
        "# and tests/mutants/modules.toml.\n"
        + _toml_table("tool.pytest.ini_options", config["pytest"]["ini_options"])
        + "\n"
        + _toml_table("tool.mutmut", mutmut)
    )


def _linked_names(pyproject: Path) -> list[str]:
    mutmut = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["mutmut"]
    return list(dict.fromkeys([*mutmut["also_copy"], *ALWAYS_LINKED]))


def prepare(module: str, tests: list[str]) -> Path:
    """Create or refresh ``module``'s workspace: links to the checkout and its generated settings."""
    folder = workspace_for(module)
    folder.mkdir(parents=True, exist_ok=True)
    pyproject = REPOSITORY / "pyproject.toml"
    for name in _linked_names(pyproject):
        link = folder / name
        if not link.is_symlink():
            link.symlink_to(REPOSITORY / name)
    (folder / PACKAGE).mkdir(exist_ok=True)
    for name, target in _package_entries().items():
        link = folder / PACKAGE / name
        if not link.is_symlink():
            link.symlink_to(target)
    (folder / "pyproject.toml").write_text(settings_for(module, tests, pyproject), encoding="utf-8")
    # The mutated copy's biaswh/ is where the layers are found (LAYERS_ROOT): the families' dbt macros
    # (their run parameters' defaults) are read from its dbt_project/, as in a checkout.
    (folder / "mutants" / PACKAGE).mkdir(parents=True, exist_ok=True)
    if not (folder / "mutants" / PACKAGE / "dbt_project").is_symlink():
        (folder / "mutants" / PACKAGE / "dbt_project").symlink_to(REPOSITORY / "dbt_project")
    return folder


def tests_fingerprint(tests: list[str]) -> str:
    """sha256 over the guard test files and every conftest.py above them: what the cached verdicts assumed."""
    files: set[Path] = set()
    for test in tests:
        path = REPOSITORY / test.split("::")[0]
        files |= set(path.rglob("*.py")) if path.is_dir() else {path}
        for parent in path.parents:
            if parent == REPOSITORY:
                break
            files |= {parent / "conftest.py"} if (parent / "conftest.py").exists() else set()
    digest = hashlib.sha256()
    for file in sorted(files):
        digest.update(str(file.relative_to(REPOSITORY)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def _mutmut(folder: Path, names: list[str], log) -> int:
    # The tests, and any process they start, import the mutated copy, never the checkout. The
    # folder must exist before Python starts: a missing sys.path entry is cached as empty.
    (folder / "mutants").mkdir(exist_ok=True)
    environment = {**os.environ, "PYTHONPATH": str(folder / "mutants")}
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", "1", *names]
    return subprocess.run(command, cwd=folder, env=environment, stdout=log, stderr=subprocess.STDOUT).returncode


def run(module: str, tests: list[str]) -> int:
    """Run mutmut on ``module`` with one worker; mutants it already judged are not run again.

    mutmut judges every mutant afresh when the list of guard tests changed, but keeps its
    verdicts when only their code did: then the tests are mapped to functions afresh and every
    mutant not killed is run again. Returns mutmut's exit status; its output goes to
    ``mutmut.log`` in the workspace.
    """
    folder = prepare(module, tests)
    record = folder / TEST_FINGERPRINT
    fingerprint = {"tests": list(tests), "sha256": tests_fingerprint(tests)}
    previous = json.loads(record.read_text()) if record.exists() else None
    again: list[str] = []
    if previous and previous["tests"] == fingerprint["tests"] and previous["sha256"] != fingerprint["sha256"]:
        (folder / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
        again = [name for name, status in module_results(folder, module).items() if status in NOT_KILLED]
    with open(folder / "mutmut.log", "w", encoding="utf-8") as log:
        status = _mutmut(folder, [], log)
        if status == 0 and again:
            status = _mutmut(folder, again, log)
    if status == 0:
        record.write_text(json.dumps(fingerprint))
    return status


def remove(module: str) -> None:
    """Delete ``module``'s workspace (its cached verdicts with it)."""
    shutil.rmtree(workspace_for(module), ignore_errors=True)
