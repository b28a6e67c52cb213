"""`make mutants`: mutation testing of the modules that guard data, endpoints and verdicts.

    python -m tests.mutants                 # the guarded modules changed against main
    python -m tests.mutants all             # every guarded module
    python -m tests.mutants stats/ compute/weat/ect.py   # modules, or every module under a folder

Each module's mutants run against only the test modules that guard it (``modules.toml``), in
its own workspace under ``.mutants/`` (:mod:`tests.mutants.workspace`), with one worker. The
report gives the kill rate per module and lists every survivor's change; survivors judged
equivalent (``equivalent.toml``) are shown with their reason and left out of the rate. Exits 1
when a module's rate is below ``kill_rate_floor`` or mutmut failed, 2 on an unknown module.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from tests.mutants import workspace
from tests.mutants.results import NOT_KILLED, ModuleReport, installed_path, load_equivalents, module_results

MODULES_FILE = Path(__file__).with_name("modules.toml")


def load_modules(path: Path = MODULES_FILE) -> tuple[dict[str, list[str]], float]:
    """The guarded modules with their guard tests, and the kill-rate floor, from ``modules.toml``."""
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    return dict(table["modules"]), float(table["kill_rate_floor"])


def changed_files(base: str = "main") -> set[str]:
    """Files changed against where this branch left ``base``: commits, staged, unstaged and new files."""
    root = workspace.REPOSITORY

    def git(*args: str) -> list[str]:
        result = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
        return result.stdout.split()

    merge_base = git("merge-base", base, "HEAD")[0]
    return set(git("diff", "--name-only", merge_base)) | set(git("ls-files", "--others", "--exclude-standard"))


def select(arguments: list[str], modules: dict[str, list[str]], changed: set[str] | None = None) -> list[str]:
    """The modules to run: ``all``, named modules or folders, or (no argument) those whose code or
    guard tests changed. Raises ValueError naming an argument that matches no guarded module."""
    if arguments == ["all"]:
        return list(modules)
    if not arguments:
        changed = changed_files() if changed is None else changed
        return [m for m, tests in modules.items() if m in changed or any(t.split("::")[0] in changed for t in tests)]
    chosen: list[str] = []
    for argument in arguments:
        matches = [m for m in modules if m == argument or m.startswith(argument.rstrip("/") + "/")]
        if not matches:
            raise ValueError(f"{argument} is not a guarded module nor a folder of them (tests/mutants/modules.toml)")
        chosen += [m for m in matches if m not in chosen]
    return chosen


def report_for(module: str) -> ModuleReport:
    """Read ``module``'s verdicts and the changes its surviving mutants make from its workspace."""
    from mutmut.configuration import reset_config
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.utils.file_utils import change_cwd

    folder = workspace.workspace_for(module)
    statuses = module_results(folder, module)
    diffs = {}
    with change_cwd(folder):
        reset_config()  # mutmut reads the settings of the folder it is in
        for name, status in statuses.items():
            if status in NOT_KILLED:
                diffs[name] = get_diff_for_mutant(name, path=installed_path(module))
    return ModuleReport(module, statuses, diffs, load_equivalents())


def main(arguments: list[str]) -> int:
    modules, floor = load_modules()
    try:
        chosen = select(arguments, modules)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not chosen:
        print("No guarded module nor its guard tests changed against main; `make mutants MODULES=all` runs them all.")
        return 0
    failed = []
    for module in chosen:
        print(f"mutating {module} against {len(modules[module])} test module(s) ...", flush=True)
        status = workspace.run(module, modules[module])
        if status != 0:
            log = workspace.workspace_for(module) / "mutmut.log"
            print(f"{module}: mutmut exited {status}; see {log.relative_to(workspace.REPOSITORY)}")
            failed.append(module)
            continue
        report = report_for(module)
        print("\n".join(report.lines()), flush=True)
        if report.kill_rate is not None and report.kill_rate < floor:
            failed.append(module)
    if failed:
        print(f"below the {floor:.0%} floor or not run: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
