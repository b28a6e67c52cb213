"""`python -m tests.mutants.in_process`: which mutants it judges, the verdicts it stores for the report,
and its test loop on a planted module whose "mutants" a test kills, misses or finds broken clean."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.mutants.in_process import Judge, record, to_judge
from tests.mutants.results import ModuleReport, module_results

pytest_plugins = ("pytester",)
PREFIX = "biaswh.stats.x.x_f__mutmut_"


def _planted(folder: Path, codes: dict[int, int | None]) -> Path:
    meta = folder / "mutants" / "biaswh" / "stats" / "x.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {PREFIX + str(n): c for n, c in codes.items()}}), encoding="utf-8")
    return folder


def test_the_mutants_not_killed_yet_are_judged_in_mutmuts_order_and_shared_between_shards(tmp_path):
    folder = _planted(tmp_path, {10: None, 2: 0, 1: 1, 3: 33, 4: 36, 5: None})
    assert to_judge(folder, "stats/x.py") == [PREFIX + "2", PREFIX + "3", PREFIX + "5", PREFIX + "10"]
    assert to_judge(folder, "stats/x.py", shard=(1, 2)) == [PREFIX + "3", PREFIX + "10"]
    assert to_judge(folder, "stats/x.py", everything=True, shard=(0, 3)) == [PREFIX + "1", PREFIX + "4"]


def test_a_verdict_is_stored_as_mutmuts_exit_code_and_the_report_reads_it(tmp_path):
    folder = _planted(tmp_path, {1: None, 2: None, 3: 0})
    record(folder, "stats/x.py", PREFIX + "1", 1)
    record(folder, "stats/x.py", PREFIX + "2", 36)
    statuses = module_results(folder, "stats/x.py")
    assert statuses == {PREFIX + "1": "killed", PREFIX + "2": "timeout", PREFIX + "3": "survived"}
    assert ModuleReport("stats/x.py", statuses).kill_rate == 2 / 3


PLANTED_TESTS = """
import os
from mutmut.state import state

def f():
    # the planted trampoline: it records its call in the clean run (mutmut's "stats"); mutant 1
    # returns a wrong value, mutant 2 one no test looks at; x_g (mutant 3) is never called
    if os.environ.get("MUTANT_UNDER_TEST") == "stats":
        state()._stats.add("biaswh.stats.x.x_f")
    return {"biaswh.stats.x.x_f__mutmut_1": 3}.get(os.environ.get("MUTANT_UNDER_TEST"), 2)

def test_fast():
    assert f() in (2, 3)

def test_value():
    assert f() == 2
"""


def test_each_mutant_runs_the_tests_until_one_fails_and_a_failing_clean_run_judges_nothing(pytester, tmp_path):
    folder = _planted(tmp_path / "workspace", {1: None, 2: None})
    pytester.makepyfile(test_planted=PLANTED_TESTS)
    names = [PREFIX + "1", PREFIX + "2", "biaswh.stats.x.x_g__mutmut_3"]
    judge = Judge(folder, "stats/x.py", names, timeout_multiplier=20.0)
    pytester.inline_run("-p", "no:randomly", plugins=[judge])
    assert judge.clean_failures == [] and set(judge.durations) == {
        "test_planted.py::test_fast",
        "test_planted.py::test_value",
    }
    assert judge.verdicts == {PREFIX + "1": 1, PREFIX + "2": 0, "biaswh.stats.x.x_g__mutmut_3": 33}
    assert module_results(folder, "stats/x.py") == {
        PREFIX + "1": "killed",
        PREFIX + "2": "survived",
        "biaswh.stats.x.x_g__mutmut_3": "no tests",
    }
    assert "MUTANT_UNDER_TEST" not in os.environ

    broken = Judge(folder, "stats/x.py", [PREFIX + "1"], timeout_multiplier=20.0)
    pytester.makepyfile(test_planted=PLANTED_TESTS.replace("f() == 2", "f() == 4"))
    pytester.inline_run("-p", "no:randomly", plugins=[broken])
    assert broken.verdicts == {} and broken.clean_failures[0].startswith("test_planted.py::test_value: ")
