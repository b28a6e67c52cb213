"""Line coverage paused while third-party code that calls back none of ours runs (tests only).

`make test` measures the coverage of our packages (pytest-cov, and ``patch = subprocess`` for the
Python processes the tests start). Its tracer is called for every Python function any library
runs, although only our files are recorded: dbt and Jinja in a study's builds, PyTorch in the
sentence encoder's forward passes. A dbt-heavy module took 95-100 s measured and 62 s with dbt
paused. So the tracer stops for each call below and starts again after it:

- ``dbt.cli.main.dbtRunner.invoke``, and ``cli.main`` that the ``dbt`` command runs: what dbt
  calls back into (our event callbacks, on dbt's threads) is not measured while it runs;
- ``sentence_transformers.SentenceTransformer.encode``: no line of ours runs inside it.

Every other line of ours is measured, except the rest of the function that made the call: when
tracing starts again, Python traces the frames called from then on, not those already running (so
the pauses wrap whole library calls, never imports, which run inside our modules' own frames).
A module not imported yet is patched when it is first
imported (a finder on ``sys.meta_path``), so a process that never runs dbt never imports it.

This file is the ``sitecustomize`` of every Python process the tests start (tests/conftest.py puts
its folder on ``PYTHONPATH``), which coverage's start-up hook has measured since before it ran; the
test workers and the prebuild install the same pauses through :func:`pause_coverage_in_libraries`.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import os
import sys

# Set in a process coverage measures from its start (pytest-cov's ``patch = subprocess``, or
# coverage's own); a child started without them runs unmeasured.
COVERAGE_VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")

# module: the (class or object, method) pairs whose calls run unmeasured.
PAUSED_CALLS = {
    "dbt.cli.main": (("dbtRunner", "invoke"), ("cli", "main")),
    "sentence_transformers": (("SentenceTransformer", "encode"),),
}


def _pause_module(measuring, module) -> None:
    for owner_name, method_name in PAUSED_CALLS[module.__name__]:
        _pause_around(measuring, getattr(module, owner_name), method_name)


def _pause_around(measuring, owner, name: str) -> None:
    method = getattr(owner, name)
    if getattr(method, "_pauses_coverage", False):
        return

    @functools.wraps(method)
    def unmeasured(*args, **kwargs):
        measuring.stop()
        try:
            return method(*args, **kwargs)
        finally:
            measuring.start()

    unmeasured._pauses_coverage = True
    setattr(owner, name, unmeasured)


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Patches a module of :data:`PAUSED_CALLS` right after its first import."""

    def __init__(self, measuring) -> None:
        self.measuring = measuring

    def find_spec(self, name, path, target=None):
        if name not in PAUSED_CALLS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_patch(module):
            exec_module(module)
            _pause_module(self.measuring, module)

        spec.loader.exec_module = exec_then_patch
        return spec


def pause_coverage_in_libraries() -> bool:
    """When coverage measures this process, run the calls of :data:`PAUSED_CALLS` unmeasured.

    Returns whether coverage is measuring (False: nothing installed).
    """
    try:
        import coverage
    except ImportError:
        return False
    measuring = coverage.Coverage.current()
    if measuring is None:
        return False
    for module_name in PAUSED_CALLS:
        if module_name in sys.modules:
            _pause_module(measuring, sys.modules[module_name])
    if not any(isinstance(finder, _PatchOnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PatchOnImport(measuring))
    return True


_COVERAGE_STARTED_HERE = any(os.environ.get(name) for name in COVERAGE_VARIABLES)
if __name__ == "sitecustomize" and _COVERAGE_STARTED_HERE:
    pause_coverage_in_libraries()
