"""Versions and rivals in the shipped demo audit (studies/audit_demo.toml, as `make demo` runs it).

The demo word vectors' version 2 carries a planted difference (studies/demo_data/weat/README.md):
only the target words of the user test filler_control moved. The comparison must call version 2
"worse" there, with a positive difference and an interval above 0, and find no evidence of a
difference on every other finding. Every comparison's units are the family's own (their mean is
the finding's effect), the audit adjusts findings and comparisons as one family (statsmodels), a
Benjamini-Hochberg policy at another alpha is honoured in every stored sentence, and the
comparison tables export.
"""

from __future__ import annotations

import dataclasses

import duckdb
import pytest
from statsmodels.stats.multitest import multipletests

from biaswh.common.audit_config import load_audit
from biaswh.common.audit_run import adjust_audit_findings
from biaswh.stats.multiple_comparisons import VerdictPolicy
from tests.conftest import AUDIT_DEMO, copy_warehouse, run_here

pytestmark = pytest.mark.dbt
PLANTED = "demo_user_tests/filler_control"


def _query(home, sql: str, parameters=()) -> list[dict]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        cursor = con.execute(sql, list(parameters))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def _audit_run(home) -> str:
    return _query(home, "select run_id from raw.runs where kind = 'audit' and status = 'succeeded'")[-1]["run_id"]


def _compared(home, baseline: str, candidate: str) -> list[dict]:
    return _query(
        home,
        "select * from analysis.audit_comparisons where run_id = ? and baseline_label = ? and candidate_label = ?"
        " order by finding",
        [_audit_run(home), baseline, candidate],
    )


def test_the_planted_difference_is_found_worse_on_exactly_its_test_and_no_evidence_elsewhere(audit_site):
    rows = _compared(audit_site.parent, "demo-vectors-1", "demo-vectors-2")
    assert {row["relation"] for row in rows} == {"versions of one subject"}
    planted = [row for row in rows if row["finding"] == PLANTED]
    assert len(planted) == 1
    (row,) = planted
    assert row["verdict"] == "worse" and row["difference"] > 0 and row["ci_low"] > 0
    assert row["n_units"] == 16 and row["n_nonzero"] == 16 and row["p_adjusted"] < row["alpha"]
    others = [row for row in rows if row["finding"] != PLANTED]
    assert len(others) >= 5
    compared = [row for row in others if row["verdict"] != "not compared"]
    assert compared and all(row["verdict"] == "no evidence of a difference" for row in compared)
    assert all(row["difference"] == 0 and row["p_value"] == 1 for row in compared)  # the same vectors
    assert all(row["n_units"] == 0 for row in others if row["verdict"] == "not compared")


def test_each_comparisons_units_average_to_the_findings_own_effect(audit_site):
    home = audit_site.parent
    audit_run = _audit_run(home)
    rows = _query(
        home,
        "select c.study_type, c.finding, c.baseline_mean, c.candidate_mean, b.effect as baseline_effect,"
        " k.effect as candidate_effect, c.n_units from analysis.audit_comparisons as c"
        " inner join subject_findings as b on b.subject_id = c.baseline_subject_id and b.finding = c.finding"
        " and b.run_id = c.baseline_run_id and b.study_type = c.study_type"
        " inner join subject_findings as k on k.subject_id = c.candidate_subject_id and k.finding = c.finding"
        " and k.run_id = c.candidate_run_id and k.study_type = c.study_type"
        " where c.run_id = ? and c.study_type in ('dialect retrieval bias', 'silent bias') and c.n_units > 0",
        [audit_run],
    )
    assert {row["study_type"] for row in rows} == {"dialect retrieval bias", "silent bias"}
    for row in rows:  # a recall gap in points, a flip rate: each the mean of its units
        assert row["baseline_mean"] == pytest.approx(row["baseline_effect"], abs=1e-9), row
        assert row["candidate_mean"] == pytest.approx(row["candidate_effect"], abs=1e-9), row


def test_findings_and_comparisons_are_one_holm_family(audit_site):
    home = audit_site.parent
    audit_run = _audit_run(home)
    findings = _query(home, "select p_value, p_adjusted, is_significant, policy from analysis.audit_findings"
                            " where run_id = ? order by study_type, subject_id, finding", [audit_run])  # fmt: skip
    comparisons = _query(
        home,
        "select p_value, p_adjusted, is_significant, policy, verdict from analysis.audit_comparisons"
        " where run_id = ? and p_value is not null",
        [audit_run],
    )
    every = findings + comparisons
    reject, expected, *_ = multipletests([r["p_value"] for r in every], alpha=0.05, method="holm")
    assert [r["p_adjusted"] for r in every] == pytest.approx(list(expected), abs=1e-12)
    assert [r["is_significant"] for r in findings] == list(reject[: len(findings)])
    n = len(every)
    assert {r["policy"] for r in every} == {
        f"Holm over the {n} tests of audit audit_demo ({len(findings)} findings, {len(comparisons)} comparisons),"
        " α = 0.05"
    }


def test_a_benjamini_hochberg_policy_at_another_alpha_is_honoured_in_every_verdict(audit_site, tmp_path):
    home = copy_warehouse(audit_site.parent, tmp_path / "warehouse")
    audit = dataclasses.replace(load_audit(AUDIT_DEMO), policy=VerdictPolicy("fdr_bh", 0.2))
    audit_run = _audit_run(home)
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        adjust_audit_findings(con, audit, audit_run)
    every = _query(
        home,
        "select p_value, p_adjusted, is_significant, policy, alpha, adjustment, n_units, 'comparison' as kind"
        " from analysis.audit_comparisons where run_id = ? and p_value is not null"
        " union all by name select p_value, p_adjusted, is_significant, policy, alpha, adjustment,"
        " null as n_units, 'finding' as kind"
        " from analysis.audit_findings where run_id = ?",
        [audit_run, audit_run],
    )
    reject, expected, *_ = multipletests([r["p_value"] for r in every], alpha=0.2, method="fdr_bh")
    assert [r["p_adjusted"] for r in every] == pytest.approx(list(expected), abs=1e-12)
    assert [r["is_significant"] for r in every] == [
        bool(flag) and (r["kind"] == "finding" or r["n_units"] >= 6) for flag, r in zip(reject, every)
    ]
    assert {(r["adjustment"], r["alpha"]) for r in every} == {("Benjamini-Hochberg", 0.2)}
    assert all(r["policy"].startswith("Benjamini-Hochberg over the ") and r["policy"].endswith("α = 0.2")
               for r in every)  # fmt: skip
    verdicts = _query(home, "select distinct verdict, policy from subject_findings where audit_run_id = ?"
                            " and p_value is not null", [audit_run])  # fmt: skip
    assert all(v["policy"].startswith("Benjamini-Hochberg") for v in verdicts)


def test_the_comparison_tables_export_with_the_stored_values(audit_site, tmp_path):
    home = copy_warehouse(audit_site.parent, tmp_path / "warehouse")
    printed = run_here("export", "audit_demo", "--format", "csv", "--out", str(tmp_path / "out"), home=home).stdout
    assert "of study audit_demo" in printed
    import polars as pl

    files = sorted((tmp_path / "out").glob("audit-demo-*/comparisons-*.csv"))
    assert len(files) == 3  # one table per compared pair
    exported = pl.concat([pl.read_csv(path) for path in files], how="diagonal_relaxed")
    stored = _query(home, "select finding, difference, p_adjusted, verdict from analysis.audit_comparisons"
                          " where run_id = ?", [_audit_run(home)])  # fmt: skip
    assert exported.height == len(stored)
    planted = exported.filter(pl.col("finding") == PLANTED).row(0, named=True)
    expected = next(r for r in stored if r["finding"] == PLANTED and r["verdict"] == "worse")
    assert planted["verdict"] == "worse" and planted["difference"] == pytest.approx(expected["difference"])
