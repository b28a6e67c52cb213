"""`biaswh audit studies/audit_real.toml`: the shipped real audit, on the shared data, end to end.

Every subject is measured by its kind's study type on the real data (the 200 SQuAD dialect pairs,
WEAT 1-10, the 58 vignettes), its findings are the families' own numbers, and each declared
rivalry is compared on the units both subjects share, adjusted with the findings as one family.
"""

from __future__ import annotations

import duckdb
import pytest
from statsmodels.stats.multitest import multipletests

from biaswh.common.audit_config import load_audit
from biaswh.common.audit_data import REAL_FILES
from tests.conftest import REPOSITORY_ROOT, copy_warehouse, run_here, shared_file

pytestmark = [pytest.mark.dbt, pytest.mark.real_data]
AUDIT_REAL = REPOSITORY_ROOT / "studies" / "audit_real.toml"


@pytest.fixture(scope="module")
def audited(real_dialect_studies, tmp_path_factory):
    """The audit run in a copy of the session's real dialect warehouse (tests/real_dialect_studies.py):
    SQuAD train and the pairs are loaded there already (the audit finds them unchanged), and the
    session's BM25 index and vectors of their corpus are cached; every check reads the audit's runs."""
    for name in REAL_FILES:
        shared_file(name)
    home = copy_warehouse(real_dialect_studies.home, tmp_path_factory.mktemp("audit-real") / "warehouse")
    printed = run_here("audit", str(AUDIT_REAL), "--no-site", home=home).stdout
    return home, printed


def _query(home, sql: str, parameters=()) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return con.execute(sql, list(parameters)).fetchall()


def test_every_real_subject_is_measured_on_real_data(audited):
    home, printed = audited
    audit = load_audit(AUDIT_REAL)
    measured = _query(
        home,
        "select subject_id, count(*), count(distinct data) filter (where data <> 'real') from subject_findings"
        " where audit_run_id is not null group by subject_id",
    )
    assert {row[0] for row in measured} == {s.subject_id for s in audit.subjects}
    assert all(n > 0 and not_real == 0 for _, n, not_real in measured)
    pairs = _query(
        home,
        "select count(distinct pair_id) from marts.fct_dialect_paired_hits h join raw.runs r using (run_id)"
        " where r.name = 'audit_real__dialect'",
    )
    assert pairs == [(200,)]
    # the retrievers' quality is measured on those pairs' own SQuAD questions, every one of them
    evaluated = _query(
        home,
        "select count(distinct m.query_id) from marts.fct_evaluation_query_metrics as m"
        " join marts.dim_evaluation_runs as e using (run_id) join raw.runs as r on e.series_run_id = r.run_id"
        " where r.name = 'audit_real__evaluation'",
    )
    questions = _query(
        home,
        "select count(distinct squad_idx) from marts.fct_pair_gold_documents"
        " where pair_set = 'aave_poc_dataset_20250927-193921' and mapping_status = 'mapped'",
    )
    assert evaluated == questions and 190 <= questions[0][0] <= 200
    assert "dense-minilm against bm25-k1-1.5-b-0.75:" in printed


def test_the_real_findings_and_comparisons_are_one_holm_family_over_shared_units(audited):
    home, _ = audited
    (audit_run,) = _query(home, "select run_id from raw.runs where kind = 'audit' and status = 'succeeded'")[0]
    p_values = [row[0] for row in _query(home, "select p_value from analysis.audit_findings where run_id = ?"
                                               " order by study_type, subject_id, finding", [audit_run])]  # fmt: skip
    compared = _query(
        home,
        "select baseline_label, candidate_label, study_type, n_units, p_value, p_adjusted from"
        " analysis.audit_comparisons where run_id = ? and p_value is not null",
        [audit_run],
    )
    _, expected, *_ = multipletests(p_values + [row[4] for row in compared], method="holm")
    assert [row[5] for row in compared] == pytest.approx(list(expected[len(p_values) :]), abs=1e-12)
    by_pair = {(row[0], row[1]) for row in compared}
    assert by_pair == {
        ("bm25-k1-1.5-b-0.75", "dense-minilm"),
        ("word2vec-gnews-subset-13013x300", "minilm-all-MiniLM-L6-v2"),
        ("qwq", "qwen3-lmstudio"),
    }
    dialect = [row for row in compared if row[2] == "dialect retrieval bias"]
    assert len(dialect) == 3 and all(row[3] == 200 for row in dialect)  # k = 5, 10, 20 on the 200 pairs
