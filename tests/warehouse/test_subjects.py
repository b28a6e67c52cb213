"""Subjects as rows: ``subject_findings`` and ``dim_subjects`` checked against the families' own tables.

On a copy of the warehouse every demo study built (``make demo``'s), with the views published
afresh: each family's findings appear once per subject with the family's own numbers and
verdict, a failed run's findings leave, and the subject id is the same in Python and SQL.
"""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.relations.subject_docs import SUBJECT_COLUMN_DOCS, SUBJECT_VIEW_COLUMNS
from biaswh.warehouse.relations.subjects import subject_id, subject_id_sql
from tests.conftest import copy_warehouse


@pytest.fixture(scope="module")
def site_copy(demo_site, tmp_path_factory):
    """A writable copy of the demo site's warehouse with the subjects' views published by this code."""
    from biaswh.plugins import load_plugins
    from biaswh.warehouse.relations.contracts import publish_contract_views

    home = copy_warehouse(demo_site.parent, tmp_path_factory.mktemp("subjects") / "warehouse")
    load_plugins()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BIASWH_HOME", str(home))
        from biaswh.warehouse.database.connection import open_warehouse

        with open_warehouse() as con:
            published = publish_contract_views(con)
    assert {"subject_findings", "dim_subjects", "audit_coverage"} <= set(published)
    return home


def _connect(home) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)


def test_the_subject_id_is_the_same_in_python_and_sql_and_changes_with_each_part():
    con = duckdb.connect()
    parts = ("retriever", "bm25", "v2", "ab12")
    sql_id = con.execute(f"select {subject_id_sql(*(repr(p) for p in parts))}").fetchone()[0]
    assert sql_id == subject_id(*parts)
    assert len({subject_id(*parts), *(subject_id(*parts[:i], "x", *parts[i + 1 :]) for i in range(4))}) == 5
    # the separator keeps ("a", "bc") and ("ab", "c") apart
    assert subject_id("retriever", "a", "bc") != subject_id("retriever", "ab", "c")


def test_dialect_findings_are_the_highlighted_paired_tests_of_each_retriever(site_copy):
    with _connect(site_copy) as con:
        family = con.execute(
            "select run_id, retriever, k, delta_pp, ci_low, ci_high, p_exact, p_adjusted, is_significant"
            " from analysis.dialect_paired_tests where is_highlighted_k order by all"
        ).fetchall()
        subject = con.execute(
            "select run_id, subject_name, cast(regexp_extract(finding, 'recall@([0-9]+)', 1) as bigint), effect,"
            " ci_low, ci_high, p_value, p_adjusted, verdict = 'significant' from subject_findings"
            " where study_type = 'dialect retrieval bias' order by all"
        ).fetchall()
        rules = con.execute(
            "select run_id, retriever, 'dialect feature: ' || rule, delta_pp, p_exact, p_adjusted from"
            " analysis.dialect_feature_effects order by all"
        ).fetchall()
        rule_findings = con.execute(
            "select run_id, subject_name, dimension, effect, p_value, p_adjusted from subject_findings"
            " where study_type = 'dialect feature effects' order by all"
        ).fetchall()
    assert len(family) >= 15 and subject == family
    assert len(rules) == 18 and rule_findings == rules


def test_weat_findings_carry_d_its_interval_and_the_studys_adjusted_verdict(site_copy):
    with _connect(site_copy) as con:
        family = con.execute(
            "select r.run_id, r.embedding, r.test_set || '/' || r.test, r.effect_size, r.ci_low, r.ci_high,"
            " r.p_value, i.p_adjusted, if(r.effect_size is null, null, i.is_significant)"  # not computed: no verdict
            " from marts.fct_weat_results as r"
            " join analysis.weat_interpretations as i using (run_id, embedding, test_set, test) order by all"
        ).fetchall()
        subject = con.execute(
            "select run_id, subject_name, finding, effect, ci_low, ci_high, p_value, p_adjusted,"
            " case verdict when 'significant' then true when 'no evidence' then false end"
            " from subject_findings where subject_kind = 'embedding' and is_headline order by all"
        ).fetchall()
        verdicts = dict(
            con.execute(
                "select verdict, count(*) from subject_findings where subject_kind = 'embedding' and is_headline"
                " group by verdict"
            ).fetchall()
        )
    assert subject == family
    # the demo: 4 + 5 significant (README's study table), and tests too sparse to compute
    assert verdicts["significant"] == 9 and verdicts["not computed"] == 7


def test_weats_other_metrics_are_findings_beside_d_with_the_marts_numbers_and_the_policys_verdicts(site_copy):
    with _connect(site_copy) as con:
        family = con.execute(
            "select m.run_id, m.embedding, m.test_set || '/' || m.test, m.metric, m.attribute_set, m.value,"
            " m.ci_low, m.ci_high, m.p_value, v.p_adjusted,"
            " case when m.value is null then 'not computed' when m.p_value is null then 'descriptive'"
            " when v.is_significant then 'significant' else 'no evidence' end,"
            " coalesce(t.test_title, m.test)"
            " from marts.fct_weat_metrics as m"
            " join analysis.weat_metric_verdicts as v using (run_id, embedding, test_set, test, metric, attribute_set)"
            " left join marts.dim_weat_tests as t using (test_set, test) order by all"
        ).fetchall()
        subject = con.execute(
            "select run_id, subject_name, finding, effect_name, effect, ci_low, ci_high, p_value, p_adjusted, verdict,"
            " dimension, policy from subject_findings where subject_kind = 'embedding' and not is_headline"
        ).fetchall()
        headline_dimensions = {
            row[0]
            for row in con.execute(
                "select dimension from subject_findings where subject_kind = 'embedding' and is_headline"
            ).fetchall()
        }
    labels = {"rnd": "RND", "mac": "MAC", "ect": "ECT", "ripa": "RIPA", "ripa_pairwise": "RIPA pairwise"}
    labels |= {"rnsb": "RNSB", "d_word_sets": "d over"}
    by_key = {}
    for run_id, name, finding, effect_name, *numbers, verdict, dimension, policy in subject:
        test, _, rest = finding.partition(": ")
        metric = next(m for m, label in labels.items() if rest.startswith(label + (" " if m == "d_word_sets" else ",")))
        attribute = {"attribute set A": "attribute_a", "attribute set B": "attribute_b"}.get(
            rest.split(", ", 1)[1].split(" (")[0], "both"
        )
        assert (run_id, name, test, metric, attribute) not in by_key  # one finding per metric row
        by_key[run_id, name, test, metric, attribute] = (*numbers, verdict, dimension)
        assert effect_name.startswith({"d_word_sets": "WEAT effect size d"}.get(metric, labels[metric]))
        if verdict in ("significant", "no evidence"):
            assert policy.startswith("Holm within embedding ") and policy.endswith("α = 0.05")
        else:
            assert verdict in ("descriptive", "not computed")
    assert len(by_key) == len(family) == len(subject) > 100
    for run_id, embedding, test, metric, attribute, *expected in family:
        assert by_key[run_id, embedding, test, metric, attribute] == tuple(expected)
    verdicts = [row[9] for row in subject]
    # a tested metric is judged; pooled MAC and d over word sets never are (no test, so no verdict)
    assert {"significant", "no evidence", "descriptive", "not computed"} == set(verdicts)
    pooled = [row[9] for row in subject if "MAC, both attribute sets" in row[2]]
    assert "descriptive" in pooled and set(pooled) <= {"descriptive", "not computed"}
    assert {row[10] for row in subject} <= headline_dimensions  # each beside a d of its own dimension


def test_silent_bias_findings_are_rates_as_described_and_counterfactual_tests_unjudged(site_copy):
    with _connect(site_copy) as con:
        rates = con.execute(
            "select run_id, model, silent_bias_rate, ci_low, ci_high from analysis.silent_bias_rates order by all"
        ).fetchall()
        described = con.execute(
            "select run_id, subject_name, effect, ci_low, ci_high from subject_findings"
            " where subject_kind = 'llm' and dimension like 'silent bias: %' order by all"
        ).fetchall()
        tests = con.execute(
            "select run_id, model, flip_rate, p_value from analysis.silent_bias_counterfactual_tests order by all"
        ).fetchall()
        tested = con.execute(
            "select run_id, subject_name, effect, p_value from subject_findings"
            " where study_type = 'silent bias' and p_value is not null order by all"
        ).fetchall()
        verdicts = con.execute(
            "select distinct verdict from subject_findings where study_type = 'silent bias' and p_value is not null"
        ).fetchall()
    assert described == rates and tested == tests and len(tests) == 4
    assert verdicts == [("not judged",)]  # the study adjusts none; only an audit judges them


def test_evaluation_findings_are_each_retrievers_quality_at_10_and_its_tested_drift(site_copy):
    with _connect(site_copy) as con:
        quality = con.execute(
            "select r.series_run_id, if(r.is_baseline, m.retriever, m.retriever || ' (' || r.label || ')'),"
            " m.metric, m.value, m.ci_low, m.ci_high from analysis.evaluation_metrics_at_k as m"
            " join raw.evaluation_runs as r using (run_id) where m.k = 10"
            " and m.metric in ('recall', 'precision', 'ndcg', 'mrr') and m.retriever not like '%@%' order by all"
        ).fetchall()
        described = con.execute(
            "select run_id, subject_name, regexp_extract(finding, '^([a-z]+)@10 ', 1), effect, ci_low, ci_high"
            " from subject_findings where study_type = 'retrieval evaluation' and p_value is null order by all"
        ).fetchall()
        drift = con.execute(
            "select a.series_run_id, a.retriever || ' (' || r.label || ')', a.mean_change, a.p_value, a.p_adjusted,"
            " a.is_significant from analysis.evaluation_alerts as a join raw.evaluation_runs as r using (run_id)"
            " where a.status = 'tested' and not a.depends_on_machine order by all"
        ).fetchall()
        tested = con.execute(
            "select run_id, subject_name, effect, p_value, p_adjusted, verdict = 'significant' from subject_findings"
            " where study_type = 'retrieval evaluation' and p_value is not null order by all"
        ).fetchall()
    # the two evaluation demos' series: four metrics of each named system in each of their runs
    assert len(quality) >= 4 * 4 * 4 and described == quality
    assert not any("@" in name for _, name, *_ in described)  # fusion sweep points are not subjects
    assert len(drift) >= 10 and tested == drift
    assert any(significant for *_, significant in tested)  # the demo's planted drop (index_missing_10pct)


def test_recommendation_findings_are_the_computed_pool_tests_of_each_model(site_copy):
    with _connect(site_copy) as con:
        family = con.execute(
            "select run_id, provider, if(feature_type = 'numerical', hedges_g, bias),"
            " if(feature_type = 'numerical', ci_low, null), p_value, p_value_adjusted, significant_adjusted"
            " from marts.fct_recsys_pool_vs_recommended where result_source = 'computed' order by all"
        ).fetchall()
        subject = con.execute(
            "select run_id, subject_name, effect, ci_low, p_value, p_adjusted,"
            " case verdict when 'significant' then true when 'no evidence' then false end"
            " from subject_findings where study_type = 'recommendation bias' order by all"
        ).fetchall()
        policies = con.execute(
            "select distinct policy from subject_findings where study_type = 'recommendation bias'"
        ).fetchall()
    assert len(family) > 100 and subject == family
    assert {name for _, name, *_ in subject} == {"anthropic", "gemini", "openai"}
    assert any(row[-1] for row in subject) and not all(row[-1] for row in subject)
    n_tests = sum(1 for row in family if row[4] is not None)
    assert policies == [(f"Holm within result set synthetic_demo ({n_tests} tests), α = 0.05",)]


def test_everything_about_one_subject_is_one_query_and_dim_subjects_lists_each_once(site_copy):
    with _connect(site_copy) as con:
        bm25 = con.execute(
            "select distinct study, study_type from subject_findings where subject_name = 'bm25' order by all"
        ).fetchall()
        ids = con.execute("select distinct subject_id, subject_kind, subject_name from subject_findings").fetchall()
        dim = con.execute("select subject_id, subject_kind, subject_name, n_runs from dim_subjects").fetchall()
    # bm25 is measured by the dialect demo, the rule-variant demo (per dialect rule) and the evaluation demo
    assert bm25 == [
        ("demo", "dialect retrieval bias"),
        ("demo_evaluation", "retrieval evaluation"),
        ("demo_rule_variants", "dialect feature effects"),
    ]
    assert sorted(row[:3] for row in dim) == sorted(ids)
    assert all(sid == subject_id(kind, name) for sid, kind, name in ids)  # no audit: version and hash empty
    assert dict((row[2], row[3]) for row in dim if row[1] == "retriever")["bm25"] == 3


def test_a_failed_runs_findings_leave_subject_findings(site_copy, tmp_path, monkeypatch):
    home = copy_warehouse(site_copy, tmp_path / "warehouse")
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        (run_id,) = con.execute("select run_id from raw.runs where kind = 'study' and name = 'demo'").fetchone()
        before = con.execute("select count(*) from subject_findings where run_id = ?", [run_id]).fetchone()[0]
        con.execute("update raw.runs set status = 'failed' where run_id = ?", [run_id])
        after = con.execute("select count(*) from subject_findings where run_id = ?", [run_id]).fetchone()[0]
    assert before == 15 and after == 0


def test_the_views_have_the_documented_columns_each_with_its_comment(site_copy):
    with _connect(site_copy) as con:
        for view, documented in SUBJECT_VIEW_COLUMNS.items():
            columns = con.execute(
                "select column_name, comment from duckdb_columns() where schema_name = 'main' and table_name = ?"
                " order by column_index",
                [view],
            ).fetchall()
            assert columns == [(name, SUBJECT_COLUMN_DOCS[name]) for name in documented], view


def test_a_check_that_measures_the_machine_is_no_finding_about_the_retriever(site_copy, tmp_path):
    """A latency breach is tested in its series (a family of its own) but says nothing about the
    retriever: two runs of one config on two machines must agree on every subject's findings."""
    home = copy_warehouse(site_copy, tmp_path / "warehouse")
    drift = "select count(*) from subject_findings where study_type = 'retrieval evaluation' and p_value is not null"
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        before = con.execute(drift).fetchone()[0]
        (machine,) = con.execute(
            "select count(*) from analysis.evaluation_alerts as a join raw.evaluation_runs as r using (run_id)"
            " where a.status = 'tested' and not r.is_baseline and a.depends_on_machine"
        ).fetchone()
        con.execute(
            "update analysis.evaluation_alerts set depends_on_machine = true where (run_id, metric) in (select"
            " a.run_id, a.metric from analysis.evaluation_alerts as a join raw.evaluation_runs as r using (run_id)"
            " where a.status = 'tested' and not r.is_baseline and not a.depends_on_machine order by all limit 1)"
        )
        (marked,) = con.execute(
            "select count(*) from analysis.evaluation_alerts as a join raw.evaluation_runs as r using (run_id)"
            " where a.status = 'tested' and not r.is_baseline and a.depends_on_machine"
        ).fetchone()
        after = con.execute(drift).fetchone()[0]
    assert before >= 10 and marked > machine
    assert after == before - (marked - machine)
