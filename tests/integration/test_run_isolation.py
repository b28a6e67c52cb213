"""Runs are immutable: in one warehouse, every later study leaves every earlier run's rows as they were.

One warehouse runs, in turn: every `studies/demo*.toml` (a copy of the session's demo site, where
`make demo`'s order ran them: the dialect, evaluation, external-runs, monitoring, recsys,
rule-variant, silent-bias and WEAT families); the real dialect study on its first 3 pairs (the
shipped vectors hold all their texts, so no encoder loads for one query; the full study is
tests/real_dialect_studies.py's); the demo dialect study again with other highlighted k; a small
audit, whose dialect, evaluation and WEAT studies run after those families' demo runs; and a plain
`dbt build`. After each step, every earlier run's rows in every run-keyed mart and `analysis.*` table
hash the same as before.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from biaswh.common.audit_run import run_audit
from biaswh.pipeline import run_study
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR, HOME_VARIABLE
from tests.conftest import DEMO_DATA, REPOSITORY_ROOT, copy_warehouse, shared_file
from tests.fingerprints import run_fingerprints

pytestmark = [pytest.mark.dbt, pytest.mark.real_data]
STUDIES = REPOSITORY_ROOT / "studies"
# The real study's first pairs: pair 4's AAE query is the first the shipped vectors lack.
REAL_PAIRS = 3


def _demo_with_highlight_k(folder: Path, highlight_k: list[int]) -> Path:
    """The demo dialect study with other highlighted k (paths made absolute for a copy elsewhere)."""
    text = (STUDIES / "demo.toml").read_text(encoding="utf-8")
    text = text.replace('"demo_data/', f'"{DEMO_DATA}/').replace(
        "dialect_highlight_k = [1, 3, 5]", f"dialect_highlight_k = {highlight_k}"
    )
    assert str(highlight_k) in text
    path = folder / "demo_other_k.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _small_audit(folder: Path) -> Path:
    """An audit of BM25 and two versions of the demo vectors (so it compares them), on the demo data."""
    path = folder / "small_audit.toml"
    path.write_text(
        f"""
[audit]
name = "isolation_audit"
seed = 11

[[subjects]]
kind = "retriever"
name = "bm25"
retriever = "bm25"

[[subjects]]
kind = "embedding"
name = "demo-vectors"
version = "1"
path = "{DEMO_DATA / "weat" / "demo_vectors.npz"}"
format = "npz"

[[subjects]]
kind = "embedding"
name = "demo-vectors"
version = "2"
path = "{DEMO_DATA / "weat" / "demo_vectors_v2.npz"}"
format = "npz"
""",
        encoding="utf-8",
    )
    return path


def _fingerprints(home: Path) -> dict:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return run_fingerprints(con)


def _study_runs(home: Path, name: str) -> list[str]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return [
            r[0]
            for r in con.execute(
                "select run_id from raw.runs where kind = 'study' and name = ?"
                " and status = 'succeeded' order by started_at",
                [name],
            ).fetchall()
        ]


def _studies_run(home: Path) -> set[str]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return {
            r[0]
            for r in con.execute("select name from raw.runs where kind = 'study' and status = 'succeeded'").fetchall()
        }


def _highlighted_k(home: Path, run_id: str) -> list[int]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return [
            r[0]
            for r in con.execute(
                "select distinct k from marts.agg_dialect_recall_at_k where run_id = ? and is_highlighted_k order by k",
                [run_id],
            ).fetchall()
        ]


def test_every_study_leaves_earlier_runs_unchanged(demo_site, tmp_path, monkeypatch):
    shared_file("squad-v1.1/train.parquet")
    shared_file("dialect-pairs/aave_poc_dataset_20250927-193921.json")
    # Step 1, every demo study, is the session's demo site's warehouse, copied.
    warehouse_home = copy_warehouse(demo_site.parent, tmp_path / "warehouse")
    monkeypatch.setenv(HOME_VARIABLE, str(warehouse_home))
    demo_studies = sorted(path.stem for path in STUDIES.glob("demo*.toml"))
    assert sorted(_studies_run(warehouse_home)) == demo_studies
    steps = [
        ("squad_dialect", STUDIES / "squad_dialect.toml", REAL_PAIRS),
        ("demo", _demo_with_highlight_k(tmp_path, [2, 4]), None),
        ("audit", _small_audit(tmp_path), None),
    ]
    before = _fingerprints(warehouse_home)
    tables = {table for table, _ in before}
    for family in ("dialect", "evaluation", "recsys", "silent_bias", "weat"):  # earlier runs of each family's tables
        assert any(family in table for table in tables), (family, sorted(tables))
    for number, (name, config, limit) in enumerate(steps, start=2):
        if name == "audit":
            run_audit(str(config), build_site=False)  # rows only: no site drawn
        else:
            run_study(str(config), limit=limit, build_site=False)  # rows only: no site drawn
        after = _fingerprints(warehouse_home)
        changed = sorted(key for key, value in before.items() if after.get(key) != value)
        assert not changed, f"step {number} ({config.name}) changed earlier runs' rows: {changed[:5]}"
        new_runs = {run for _, run in after} - {run for _, run in before}
        assert new_runs, f"step {number} ({config.name}) added no run-keyed rows"
        before = after

    first_demo, second_demo = _study_runs(warehouse_home, "demo")
    assert _highlighted_k(warehouse_home, first_demo) == [1, 3, 5]
    assert _highlighted_k(warehouse_home, second_demo) == [2, 4]
    with duckdb.connect(str(warehouse_home / "warehouse.duckdb"), read_only=True) as con:
        # the audit's comparison is among the rows its step added, and no earlier run's changed
        assert con.execute("select count(*) from analysis.audit_comparisons").fetchone()[0] > 0
        # The demo's recall is computed against the demo corpus, whatever the real study loaded:
        # every demo pair's gold document is found by BM25 within the demo's depth.
        recall = con.execute(
            "select min(recall) from marts.agg_dialect_recall_at_k where run_id = ? and retriever = 'bm25' and k = 20",
            [first_demo],
        ).fetchone()[0]
        assert recall == 1.0
        real_sets = con.execute(
            "select distinct pair_set from marts.fct_dialect_gold_ranks r join raw.runs u"
            " using (run_id) where u.name = 'squad_dialect'"
        ).fetchall()
        assert real_sets == [("aave_poc_dataset_20250927-193921",)]
        n_real_pairs = con.execute(
            "select count(distinct pair_id) from marts.fct_dialect_gold_ranks r join raw.runs u"
            " using (run_id) where u.name = 'squad_dialect'"
        ).fetchone()[0]
        assert n_real_pairs == REAL_PAIRS

    # A plain dbt build, as a user runs it in the project folder, passes and changes nothing.
    completed = subprocess.run(
        [str(Path(sys.executable).parent / "dbt"), "build"],
        cwd=DBT_PROJECT_DIR,
        env={**os.environ, "BIASWH_HOME": str(warehouse_home)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert completed.returncode == 0, completed.stdout[-3000:]
    assert _fingerprints(warehouse_home) == before
