"""`make mutants`' own machinery: which modules it runs, the settings it writes, the report it prints."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.mutants import workspace
from tests.mutants.__main__ import load_modules, select
from tests.mutants.results import ModuleReport, changed_lines, load_equivalents, module_results, mutant_prefix

ROOT = Path(__file__).resolve().parent.parent
DIFF = """--- stats/x.py
+++ stats/x.py
@@ -1,3 +1,3 @@
 def f(p):
-    return p < 0.05
+    return p <= 0.05"""


def test_every_guarded_module_and_guard_test_exists_and_each_guarded_area_is_listed():
    modules, floor = load_modules()
    assert floor == 0.9
    for module, tests in modules.items():
        assert (ROOT / module).is_file(), module
        assert tests and all((ROOT / test.split("::")[0]).exists() for test in tests), module
    listed = set(modules)
    for required in (
        "warehouse/database/sandbox.py",
        "warehouse/runs/registry.py",
        "biaswh/withdrawal.py",
        "biaswh/api.py",
    ):
        assert required in listed
    assert {"ingest/common/llm/client.py", "warehouse/settings/config_schema.py"} <= listed
    for package in ("stats", "stats/paired", "compute/weat"):
        kernels = {str(p.relative_to(ROOT)) for p in (ROOT / package).glob("*.py") if p.name != "__init__.py"}
        # config_section.py: a table and no function, so no mutant (tests/mutants/modules.toml)
        assert kernels - listed <= {"stats/paired/result.py", "compute/weat/metric_store.py", "compute/weat/store.py",
                                    "compute/weat/runner.py", "compute/weat/vectors.py",
                                    "compute/weat/config_section.py"}, package  # fmt: skip
    for family in ("dialect", "evaluation", "recsys", "silent_bias", "weat"):
        assert {f"dashboards/{family}/card.py", f"dashboards/{family}/page.py"} <= listed


def test_modules_are_chosen_by_name_folder_or_change():
    modules = {"stats/a.py": ["tests/stats/test_a.py"], "stats/paired/b.py": ["tests/stats/test_b.py"], "c.py": []}
    assert select(["all"], modules) == list(modules)
    assert select(["stats/"], modules) == ["stats/a.py", "stats/paired/b.py"]
    assert select(["stats/paired/b.py", "stats"], modules) == ["stats/paired/b.py", "stats/a.py"]
    assert select([], modules, changed={"stats/a.py", "README.md"}) == ["stats/a.py"]
    assert select([], modules, changed={"tests/stats/test_b.py"}) == ["stats/paired/b.py"]
    assert select([], modules, changed=set()) == []
    with pytest.raises(ValueError, match="stat is not a guarded module"):
        select(["stat"], modules)


def test_a_workspace_gets_the_checkouts_settings_narrowed_to_one_module(tmp_path):
    text = workspace.settings_for("stats/verdicts.py", ["tests/stats/test_verdicts.py"])
    settings = tomllib.loads(text)["tool"]
    base = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    assert settings["pytest"]["ini_options"] == base["pytest"]["ini_options"]
    assert settings["mutmut"] == {
        **base["mutmut"],
        "source_paths": workspace.source_paths(),
        "only_mutate": ["biaswh/stats/verdicts.py"],
        "pytest_add_cli_args_test_selection": ["tests/stats/test_verdicts.py"],
    }
    assert workspace.workspace_for("stats/paired/sign_flip.py") == ROOT / ".mutants" / "stats.paired.sign_flip"


def test_the_fingerprint_of_the_guard_tests_follows_their_files_and_conftests():
    one = workspace.tests_fingerprint(["tests/stats/test_verdicts.py"])
    assert one == workspace.tests_fingerprint(["tests/stats/test_verdicts.py::test_x"])
    assert one != workspace.tests_fingerprint(["tests/stats/test_ordering.py"])


def _planted_workspace(folder: Path) -> Path:
    meta = folder / "mutants" / "biaswh" / "stats" / "x.py.meta"
    meta.parent.mkdir(parents=True)
    codes = {"biaswh.stats.x.x_f__mutmut_1": 1, "biaswh.stats.x.x_f__mutmut_2": 0, "biaswh.stats.x.x_f__mutmut_3": 0}
    codes |= {
        "biaswh.stats.x.x_f__mutmut_4": 33,
        "biaswh.stats.x.x_f__mutmut_5": 36,
        "biaswh.stats.x.x_f__mutmut_6": None,
    }
    meta.write_text(json.dumps({"exit_code_by_key": codes}), encoding="utf-8")
    return folder


def test_the_report_counts_kills_sets_equivalents_apart_and_lists_survivors(tmp_path):
    statuses = module_results(_planted_workspace(tmp_path), "stats/x.py")
    assert (
        statuses["biaswh.stats.x.x_f__mutmut_4"] == "no tests" and statuses["biaswh.stats.x.x_f__mutmut_5"] == "timeout"
    )
    assert statuses["biaswh.stats.x.x_f__mutmut_6"] == "not checked"
    diffs = {name: DIFF for name, status in statuses.items() if status in ("survived", "no tests")}
    equivalents = {"biaswh.stats.x.x_f__mutmut_2": {"change": changed_lines(DIFF), "reason": "p is never exactly 0.05"}}
    equivalents["biaswh.stats.x.x_f__mutmut_9"] = {"change": "- a\n+ b", "reason": "gone since"}
    report = ModuleReport("stats/x.py", statuses, diffs, equivalents)
    assert report.killed == ["biaswh.stats.x.x_f__mutmut_1", "biaswh.stats.x.x_f__mutmut_5"]
    assert report.equivalent == ["biaswh.stats.x.x_f__mutmut_2"]
    assert report.survivors == ["biaswh.stats.x.x_f__mutmut_3", "biaswh.stats.x.x_f__mutmut_4"]
    assert report.kill_rate == pytest.approx(2 / 4)
    lines = report.lines()
    assert lines[0] == ("stats/x.py: kill rate 50.0% (2 killed, 2 survived, 1 equivalent excluded, 1 not checked)")
    assert "  SURVIVED biaswh.stats.x.x_f__mutmut_4 [no tests]" in lines and "      + return p <= 0.05" in lines
    assert "  equivalent biaswh.stats.x.x_f__mutmut_2: p is never exactly 0.05" in lines
    assert lines[-1].endswith("excuses nothing now): biaswh.stats.x.x_f__mutmut_9")


def test_an_equivalent_entry_whose_change_no_longer_matches_excuses_nothing(tmp_path):
    statuses = {"biaswh.stats.x.x_f__mutmut_2": "survived"}
    other = DIFF.replace("p <= 0.05", "p < 0.06")
    entry = {"biaswh.stats.x.x_f__mutmut_2": {"change": changed_lines(DIFF), "reason": "p is never exactly 0.05"}}
    report = ModuleReport("stats/x.py", statuses, {"biaswh.stats.x.x_f__mutmut_2": other}, entry)
    assert report.survivors == ["biaswh.stats.x.x_f__mutmut_2"] and report.kill_rate == 0.0
    assert report.stale_equivalents == ["biaswh.stats.x.x_f__mutmut_2"]


def test_every_equivalent_entry_has_a_change_and_a_reason_and_names_a_guarded_module(tmp_path):
    modules, _ = load_modules()
    prefixes = {mutant_prefix(module) for module in modules}
    for name, entry in load_equivalents().items():
        assert any(name.startswith(prefix) for prefix in prefixes), name
        assert entry["change"].startswith(("- ", "+ ")), name
    broken = tmp_path / "equivalent.toml"
    broken.write_text('["biaswh.stats.x.x_f__mutmut_1"]\nchange = "- a"\nreason = " "\n', encoding="utf-8")
    with pytest.raises(ValueError, match="needs exactly a change and a non-empty reason"):
        load_equivalents(broken)
