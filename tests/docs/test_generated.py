"""The generated regions of README.md and docs/ are what `python -m docs.generate` gives now, and
the README stays a front door."""

from __future__ import annotations

import subprocess
import sys

from docs import regions, study_facts
from tests.conftest import REPOSITORY_ROOT


def test_every_generated_region_is_up_to_date():
    # In a process of its own: plugins a test registered in this worker must not enter the text.
    checked = subprocess.run(
        [sys.executable, "-m", "docs.generate", "--check"], cwd=REPOSITORY_ROOT, capture_output=True, text=True
    )
    assert checked.returncode == 0, "stale generated regions (run python -m docs.generate): " + checked.stdout


def test_the_readme_is_short_and_holds_the_study_table():
    text = (REPOSITORY_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert "studies" in regions.region_names(text)


# Studies without a recorded run, each with the reason; the table says so in their row.
NOT_YET_RECORDED: dict[str, str] = {}  # study name: why its run is not recorded yet


def test_the_table_has_a_row_and_a_recorded_finding_for_every_study_config():
    table = study_facts.studies_table()
    results = study_facts.load_results()
    for path in study_facts.study_files():
        assert f"| `{path.name}` |" in table
        name = study_facts.study_name(path)
        if name in NOT_YET_RECORDED:
            assert name not in results and study_facts.NOT_RECORDED in table
            continue
        assert results[name]["verdicts"], f"{name}: no recorded finding"
        assert isinstance(results[name]["seconds"], int)


def test_the_table_leads_with_the_audits_each_with_its_recorded_headline():
    rows = [line for line in study_facts.studies_table().splitlines() if line.startswith("| `")]
    audits = study_facts.audit_files()
    assert [path.name for path in audits] == ["audit_demo.toml", "audit_real.toml"]
    assert [row.split("`")[1] for row in rows[: len(audits)]] == [path.name for path in audits]
    results = study_facts.load_results()
    for path, row in zip(audits, rows):
        (headline,) = results[study_facts.study_name(path)]["verdicts"]
        assert f"Audit (`biaswh audit`): {headline}" in row and " tested findings significant" in headline
    assert "| demo | `studies/demo_data`, `builtin:caliskan2017`" in rows[0]
    assert "| real | `../shared/data/silent-bias`, `../shared/data/squad-v1.1`" in rows[1]


def test_the_kind_of_data_is_the_declared_one_else_follows_the_inputs(tmp_path):
    kinds = {p.name: study_facts.study_kind(p) for p in study_facts.study_files()}
    assert kinds["demo.toml"] == "demo" and kinds["squad_dialect.toml"] == "real"
    assert set(kinds.values()) <= {"demo", "synthetic", "real"}
    undeclared = {
        "shared.toml": ('description = "x"', "../../shared/data/squad-v1.1/train.parquet", "real"),
        "simulated.toml": ('description = "synthetic posts"', "demo_data/x.csv", "synthetic"),
        "written.toml": ('description = "hand-written"', "demo_data/x.csv", "demo"),
    }
    for name, (description, path, kind) in undeclared.items():
        (tmp_path / name).write_text(f'[study]\nname = "x"\n{description}\n[[ingest]]\npath = "{path}"\n')
        assert study_facts.study_kind(tmp_path / name) == kind


def test_a_region_is_filled_between_its_markers_only():
    text = "before\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nafter\n"
    assert regions.fill(text, lambda name: f"new {name}") == (
        "before\n<!-- generated:x -->\nnew x\n<!-- /generated:x -->\nafter\n"
    )
