"""Judge a module's mutants in one pytest process, for guard tests too slow to start per mutant.

    python -m tests.mutants.in_process dashboards/recsys/page.py            # its mutants not killed yet
    python -m tests.mutants.in_process dashboards/recsys/page.py --shard 0/2   # every second one, from the first
    make mutants MODULES=dashboards/recsys/page.py IN_PROCESS=1

mutmut starts pytest for every mutant (a fork of a process that ran the tests once); a study
page's reading test renders the page in its own body, so a mutant costs pytest's start plus a
render per test. Here the module's workspace is made the normal way (:mod:`tests.mutants.workspace`)
and mutmut writes its mutants there without running anything; then ONE pytest process imports the
mutated copy, runs the guard tests once clean (timing each), and for each mutant switches it on with
``MUTANT_UNDER_TEST`` (mutmut's trampoline reads it at every call) and runs the guard tests, the
cheapest first, until one fails. Fixtures are pytest's own: module and session fixtures are set up
once for all mutants. The verdicts go into the workspace's results as mutmut's exit codes, so
``python -m tests.mutants``, ``mutmut show`` and ``mutmut browse`` read them, and the report is
that of ``python -m tests.mutants`` (:mod:`tests.mutants.results`). Exits 1 below the floor, 2 on
an unknown module or a guard test failing on the unmutated code.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import importlib
import json
import os
import shutil
import signal
import sys
import time
import tomllib
from pathlib import Path

import pytest
from _pytest.runner import runtestprotocol
from mutmut.state import state
from mutmut.utils.format_utils import mangled_name_from_mutant_name

from tests.mutants import workspace
from tests.mutants.results import NOT_KILLED, installed_path, load_equivalents, status_of

# mutmut's exit codes (tests/mutants/results.py): killed, survived, killed by timeout, run by no guard test.
KILLED, SURVIVED, TIMED_OUT, NO_TESTS = 1, 0, 36, 33


class MutantTimeout(Exception):
    """A guard test ran longer than the timeout under a mutant (counted killed, as mutmut does)."""


@contextlib.contextmanager
def _locked(folder: Path):
    # Shards share the workspace: one generates the mutants while the other waits, and each verdict
    # is written under the lock.
    with open(folder / "in-process.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _meta(folder: Path, module: str) -> Path:
    return folder / "mutants" / f"{installed_path(module)}.meta"


def generate(module: str, tests: list[str]) -> Path:
    """Create or refresh ``module``'s workspace and let mutmut write its mutants there (a mutant of an
    unchanged function keeps its verdict); the workspace's ``mutants/tests`` links to the checkout's."""
    from mutmut.__main__ import copy_also_copy_files, copy_src_dir, create_mutants
    from mutmut.configuration import reset_config
    from mutmut.utils.file_utils import change_cwd

    folder = workspace.prepare(module, tests)
    with _locked(folder), change_cwd(folder):
        reset_config()  # mutmut reads the settings of the folder it is in
        copied = folder / "mutants" / "tests"
        if copied.is_symlink():  # mutmut copies the tests there again
            copied.unlink()
        with contextlib.redirect_stdout(None):  # the name of every file it copies
            copy_src_dir()
            copy_also_copy_files()
            create_mutants(1)
        shutil.rmtree(copied, ignore_errors=True)  # mutmut's copy is of the tests of that hour
        copied.symlink_to(workspace.REPOSITORY / "tests")
    return folder


def to_judge(folder: Path, module: str, *, everything: bool = False, shard: tuple[int, int] = (0, 1)) -> list[str]:
    """The mutants to run, in mutmut's order: those not judged, and those not killed but for the survivors
    ``equivalent.toml`` names (all with ``everything``), every ``count``-th from the ``index``-th of
    them for ``shard=(index, count)``."""
    codes = json.loads(_meta(folder, module).read_text(encoding="utf-8"))["exit_code_by_key"]
    equivalent = load_equivalents()
    names = [
        n
        for n, code in codes.items()
        if everything or code is None or (status_of(code) in NOT_KILLED and n not in equivalent)
    ]
    names.sort(key=lambda n: (n.rsplit("_", 1)[0], int(n.rsplit("_", 1)[1])))
    index, count = shard
    return names[index::count]


def record(folder: Path, module: str, name: str, code: int) -> None:
    """Store one verdict as mutmut's exit code in the workspace's results."""
    meta = _meta(folder, module)
    with _locked(folder):
        data = json.loads(meta.read_text(encoding="utf-8"))
        data["exit_code_by_key"][name] = code
        meta.write_text(json.dumps(data, indent=4), encoding="utf-8")


def _on_alarm(*_):
    raise MutantTimeout()


class Judge:
    """A pytest plugin that replaces the test loop: the clean run, then each mutant in turn."""

    def __init__(self, folder: Path, module: str, names: list[str], timeout_multiplier: float):
        self.folder, self.module, self.names, self.multiplier = folder, module, names, timeout_multiplier
        self.clean_failures: list[str] = []
        self.verdicts: dict[str, int] = {}

    def _run(self, session, items, durations=None) -> tuple[str, str] | None:
        """Run ``items`` in order until one fails: (its id, why), or None when all pass."""
        # Tear down what the first test does not share with where the last run stopped; after each test,
        # what the next one does not need (any other test after the last: its own fixtures must go).
        session._setupstate.teardown_exact(items[0])
        for i, item in enumerate(items):
            following = items[i + 1] if i + 1 < len(items) else next((x for x in session.items if x is not item), None)
            seconds = max(10, int(self.multiplier * durations[item.nodeid])) if durations else 0
            began = time.monotonic()
            signal.alarm(seconds)
            try:
                reports = runtestprotocol(item, nextitem=following, log=False)
            except MutantTimeout:  # the alarm rang outside the test's body: in a hook, a fixture, a report
                with contextlib.suppress(Exception):
                    session._setupstate.teardown_exact(None)
                return item.nodeid, "MutantTimeout (outside the test's body)"
            finally:
                signal.alarm(0)
            if durations is None:  # the clean run: how long each test takes and which functions it runs
                self.durations[item.nodeid] = time.monotonic() - began
                self.reached[item.nodeid] = set(state()._stats)
                state()._stats.clear()
            failed = [r for r in reports if r.failed]
            if failed:
                return item.nodeid, str(failed[0].longrepr).strip().splitlines()[-1][:160]
        return None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        signal.signal(signal.SIGALRM, _on_alarm)
        self.durations: dict[str, float] = {}
        self.reached: dict[str, set[str]] = {}
        os.environ["MUTANT_UNDER_TEST"] = "stats"  # the trampolines record each function called (mutmut's "stats")
        state()._stats.clear()
        try:
            failure = self._run(session, session.items)
        finally:
            os.environ.pop("MUTANT_UNDER_TEST")
        if failure:
            self.clean_failures.append(f"{failure[0]}: {failure[1]}")
            return True
        items = sorted(session.items, key=lambda item: self.durations[item.nodeid])  # most die in the first
        print(f"\n{len(self.names)} mutants, {len(items)} guard tests ({sum(self.durations.values()):.1f} s clean)")
        for name in self.names:
            function = mangled_name_from_mutant_name(name)
            guards = [item for item in items if function in self.reached[item.nodeid]]
            os.environ["MUTANT_UNDER_TEST"] = name
            try:
                failure = self._run(session, guards, self.durations) if guards else None
            finally:
                os.environ.pop("MUTANT_UNDER_TEST")
            code = SURVIVED if failure is None else TIMED_OUT if "MutantTimeout" in failure[1] else KILLED
            code = code if guards else NO_TESTS
            record(self.folder, self.module, name, code)
            self.verdicts[name] = code
            verdict = f"KILLED {name} by {failure[0]}: {failure[1]}" if failure else f"SURVIVED {name}"
            print(verdict + ("" if guards else " (no guard test runs it)"), flush=True)
        session._setupstate.teardown_exact(None)
        return True


def judge(module: str, tests: list[str], *, everything: bool = False, shard: tuple[int, int] = (0, 1)) -> Judge:
    """Generate ``module``'s mutants and judge those :func:`to_judge` picks in this process."""
    folder = generate(module, tests)
    names = to_judge(folder, module, everything=everything, shard=shard)
    settings = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    multiplier = float(settings["timeout_multiplier"])
    plugin = Judge(folder, module, names, multiplier)
    os.chdir(folder)  # what the tests read by relative path is the workspace's (links to the checkout)
    sys.path.insert(0, str(folder / "mutants"))
    os.environ["PYTHONPATH"] = str(folder / "mutants")
    # Imported before pytest puts the workspace (links to the unmutated checkout) first on the path.
    target = importlib.import_module(installed_path(module).removesuffix(".py").replace("/", "."))
    if not Path(target.__file__).is_relative_to(folder / "mutants"):
        raise RuntimeError(f"{module} was imported from {target.__file__}, not from its mutated copy")
    # Plain asserts: a verdict needs only pass or fail, and explaining a failed comparison of a page's
    # long strings can take longer than the test.
    options = ["-q", "-p", "no:randomly", "-p", "no:cacheprovider", "--no-cov", "--assert=plain", "--tb=line"]
    arguments = [*options, "-c", "pyproject.toml", *tests]
    pytest.main(arguments, plugins=[plugin])
    return plugin


def main(arguments: list[str]) -> int:
    from tests.mutants.__main__ import load_modules, report_for

    parser = argparse.ArgumentParser(prog="python -m tests.mutants.in_process", description=__doc__.split("\n")[0])
    parser.add_argument("module", help="a guarded module (tests/mutants/modules.toml)")
    parser.add_argument("--shard", default="0/1", help="INDEX/COUNT: judge every COUNT-th mutant from the INDEX-th")
    parser.add_argument("--all", action="store_true", help="judge every mutant again, killed ones too")
    options = parser.parse_args(arguments)
    modules, floor = load_modules()
    if options.module not in modules:
        print(f"error: {options.module} is not a guarded module (tests/mutants/modules.toml)", file=sys.stderr)
        return 2
    index, count = map(int, options.shard.split("/"))
    plugin = judge(options.module, modules[options.module], everything=options.all, shard=(index, count))
    if plugin.clean_failures:
        print(f"a guard test fails on the unmutated code: {plugin.clean_failures[0]}", file=sys.stderr)
        return 2
    report = report_for(options.module)
    print("\n".join(report.lines()), flush=True)
    below = report.kill_rate is not None and report.kill_rate < floor
    if below:
        print(f"below the {floor:.0%} floor: {options.module}")
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
