"""Runs the examples of a Markdown page (docs/examples.py) in a working folder and a warehouse."""

from __future__ import annotations

import contextlib
import doctest
import os
import subprocess
import sys
from pathlib import Path

from docs.examples import Block, commands
from tests.conftest import REPOSITORY_ROOT

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_CHECKER = doctest.OutputChecker()
TIMEOUT_SECONDS = 1800  # a whole real study on a busy machine


def example_pages() -> list[Path]:
    """The pages whose examples run: README.md and every page under docs/, in order."""
    return [REPOSITORY_ROOT / "README.md", *sorted((REPOSITORY_ROOT / "docs").rglob("*.md"))]


def matches(expected: str, got: str) -> bool:
    """Whether ``got`` is what ``expected`` shows (``...`` stands for any text)."""
    return _CHECKER.check_output(expected.strip() + "\n", got.strip() + "\n", FLAGS)


class ExampleRunner:
    """Runs blocks one after another in ``workdir`` against the warehouse ``home``."""

    def __init__(self, workdir: Path, home: Path) -> None:
        self.workdir, self.home = workdir, home
        self.env = {
            **os.environ,
            "BIASWH_HOME": str(home),
            "PYTHONPATH": str(REPOSITORY_ROOT),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "BIASWH_PROGRESS": "0",
            "COLUMNS": "200",
        }
        self.count = 0

    def run(self, block: Block) -> None:
        """Run one block and raise AssertionError naming it when its output differs or it fails."""
        if block.title:
            (self.workdir / block.title).write_text(block.code + "\n", encoding="utf-8")
            return
        if block.language == "console":
            for command, expected in commands(block.code):
                self._shell(block, command, expected)
        elif block.language == "sql":
            if block.expected is None:
                raise AssertionError(f"{block.where}: a sql example needs its output (a text block after it)")
            self._shell(block, "biaswh sql " + _quote(block.code), block.expected)
        elif block.language == "pycon":
            self._doctest(block)
        else:
            return
        self.count += 1

    def _shell(self, block: Block, command: str, expected: str) -> None:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=self.workdir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
        )
        got = done.stdout + done.stderr
        if done.returncode != 0:
            raise AssertionError(f"{block.where}: `{command}` exited {done.returncode}:\n{got}")
        if not matches(expected, got):
            raise AssertionError(f"{block.where}: `{command}` printed\n{got}\nwhere the page shows\n{expected}")

    def _doctest(self, block: Block) -> None:
        test = doctest.DocTestParser().get_doctest(block.code, {}, block.where, str(block.path), block.line)
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        report: list[str] = []
        with _environment({"BIASWH_HOME": str(self.home)}), contextlib.chdir(self.workdir):
            runner.run(test, out=report.append)
        if runner.failures:
            raise AssertionError(f"{block.where}: the Python example's output differs:\n{''.join(report)}")


def _quote(sql: str) -> str:
    return "'" + sql.replace("'", "'\"'\"'") + "'"


@contextlib.contextmanager
def _environment(values: dict[str, str]):
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def prepare_workdir(workdir: Path) -> Path:
    """A working folder that looks like the checkout to the examples: ``studies/`` is the
    repository's, and ``../shared`` the shared data beside it (where it exists)."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "studies").symlink_to(REPOSITORY_ROOT / "studies")
    shared = REPOSITORY_ROOT.parent / "shared"
    if shared.exists() and not (workdir.parent / "shared").exists():
        (workdir.parent / "shared").symlink_to(shared)
    return workdir
