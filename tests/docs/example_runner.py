"""Runs the examples of a Markdown page (docs/examples.py) in a working folder and a warehouse.

A plain ``biaswh ...`` command (no shell syntax outside its quotes) runs through ``biaswh``'s own
``main`` in this process, with the environment, working folder and file descriptors a shell
would give it: Python's start-up, the imports and dbt's parse of the project are paid once per
test, not once per command (a real study's ``biaswh run`` spent 10 to 20 s of its time there).
Any other command runs in ``bash``.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import shlex
import subprocess
import sys
import tempfile
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
        argv = biaswh_arguments(command)
        if argv is None:
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=self.workdir,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_SECONDS,
            )
            code, got = done.returncode, done.stdout + done.stderr
        else:
            code, got = self._biaswh_here(argv)
        if code != 0:
            raise AssertionError(f"{block.where}: `{command}` exited {code}:\n{got}")
        if not matches(expected, got):
            raise AssertionError(f"{block.where}: `{command}` printed\n{got}\nwhere the page shows\n{expected}")

    def _biaswh_here(self, argv: list[str]) -> tuple[int, str]:
        """(exit code, stdout then stderr) of ``biaswh ARGV`` run by its ``main`` in this process.

        What Python prints and what a library writes to file descriptors 1 and 2 are both kept,
        as a shell's pipe would keep them."""
        from biaswh.cli import main

        variables = {name: self.env[name] for name in _COMMAND_VARIABLES}
        printed, errors = io.StringIO(), io.StringIO()
        with (
            tempfile.TemporaryFile() as written,
            tempfile.TemporaryFile() as written_errors,
            _environment(variables),
            contextlib.chdir(self.workdir),
            _file_descriptors(written, written_errors),
            contextlib.redirect_stdout(printed),
            contextlib.redirect_stderr(errors),
        ):
            try:
                code = main(argv)
            except SystemExit as exit_:  # argparse's own exits (--version, --help)
                code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 2)
            for handle in (written, written_errors):
                handle.seek(0)
            fd_out, fd_err = (handle.read().decode("utf-8", errors="replace") for handle in (written, written_errors))
        return code, printed.getvalue() + fd_out + errors.getvalue() + fd_err

    def _doctest(self, block: Block) -> None:
        test = doctest.DocTestParser().get_doctest(block.code, {}, block.where, str(block.path), block.line)
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        report: list[str] = []
        with _environment({"BIASWH_HOME": str(self.home)}), contextlib.chdir(self.workdir):
            runner.run(test, out=report.append)
        if runner.failures:
            raise AssertionError(f"{block.where}: the Python example's output differs:\n{''.join(report)}")


# What the runner sets for a command: the warehouse, no progress counter, a wide terminal.
_COMMAND_VARIABLES = ("BIASWH_HOME", "BIASWH_PROGRESS", "COLUMNS")
# Outside quotes, any of these makes a command shell syntax (pipes, redirections, variables,
# globs, continuations...); inside double quotes, the first three.
_SHELL_IN_DOUBLE_QUOTES = "$`\\"
_SHELL_OUTSIDE_QUOTES = _SHELL_IN_DOUBLE_QUOTES + "|&;<>()*?[]{}~"


def biaswh_arguments(command: str) -> list[str] | None:
    """The arguments of ``command`` when it is a plain ``biaswh ARGS`` (words, quoted strings and a
    trailing ``# comment``, nothing a shell would expand or redirect); else None."""
    quote = None
    for position, character in enumerate(command):
        if quote:
            if character == quote:
                quote = None
            elif quote == '"' and character in _SHELL_IN_DOUBLE_QUOTES:
                return None
        elif character in "'\"":
            quote = character
        elif character == "#" and (position == 0 or command[position - 1].isspace()):
            break  # a comment: the rest of the line is not the command's
        elif character in _SHELL_OUTSIDE_QUOTES:
            return None
    words = shlex.split(command, comments=True)
    return words[1:] if words and words[0] == "biaswh" else None


@contextlib.contextmanager
def _file_descriptors(out, err):
    """File descriptors 1 and 2 write to the files ``out`` and ``err`` for the block, restored after."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.flush()
    saved = os.dup(1), os.dup(2)
    try:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        yield
    finally:
        for stream in (sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(AttributeError, ValueError, OSError):
                stream.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


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
