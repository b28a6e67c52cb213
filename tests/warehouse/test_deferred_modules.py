"""scipy.stats loads when a statistic first needs it, not when a study's plugins load (0.5 s of CPU)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from biaswh.warehouse import deferred_modules
from biaswh.warehouse.deferred_modules import DeferredModule
from biaswh.warehouse.settings.home import REPOSITORY_ROOT

_LOADED = "import json, sys\nprint(json.dumps([name in sys.modules for name in ('scipy.stats', 'scipy.optimize')]))\n"


def _in_a_fresh_process(code: str) -> list:
    completed = subprocess.run(
        [sys.executable, "-c", code + _LOADED], cwd=REPOSITORY_ROOT, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_a_study_runs_plugins_load_without_scipy_stats_and_a_test_loads_it_when_it_runs():
    loaded = "from biaswh.plugins import RUN_LAYERS, load_plugins\nload_plugins(RUN_LAYERS)\n"
    assert _in_a_fresh_process(loaded) == [False, False]
    tested = loaded + (
        "from biaswh.stats.paired.mcnemar import mcnemar\n"
        "assert abs(mcnemar(2, 9, n_pairs=20).p_value - 0.0654296875) < 1e-12\n"  # exact: 2 P(X <= 2 | 11, 1/2)
    )
    assert _in_a_fresh_process(tested) == [True, True]


def test_load_deferred_imports_every_deferred_module():
    code = "from biaswh.warehouse.deferred_modules import load_deferred\nload_deferred()\n"
    assert _in_a_fresh_process(code) == [True, True]


def test_a_deferred_module_reads_the_modules_attributes_as_they_are_now(monkeypatch):
    stats = DeferredModule("scipy.stats")
    import scipy.stats

    assert stats.binomtest is scipy.stats.binomtest
    monkeypatch.setattr(scipy.stats, "binomtest", "patched")
    assert stats.binomtest == "patched"  # no copy kept: a patch of the module is seen
    with pytest.raises(AttributeError):
        stats.no_such_function  # noqa: B018
    assert repr(deferred_modules.scipy_stats) == "<deferred module 'scipy.stats'>"
