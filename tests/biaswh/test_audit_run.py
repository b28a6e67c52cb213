"""``biaswh audit`` end to end on a copy of the demo warehouse: one subject of each kind.

What it measured matches the families' own tables, every tested finding is adjusted with the
audit's other findings as one Holm family (checked against statsmodels), what was not run says
why, and the demo study's earlier run keeps its rows and its own verdicts. An LLM with an
endpoint (a local OpenAI-compatible stand-in that prefers long posts) goes through the
recommendation runner; one whose key is not in the environment is "not run", and the rest run.
The audit (fixture ``audited``, tests/biaswh/conftest.py) is shared with test_audit_profiles.py.
"""

from __future__ import annotations

import pytest
from statsmodels.stats.multitest import multipletests

from biaswh.common.audit_config import load_audit
from tests.biaswh.small_audit import KEY, comparable_rows, query


def test_each_subject_is_measured_by_its_kinds_study_and_the_rest_say_why_not(audited):
    home, config, printed, *_ = audited
    rows = query(
        home,
        "select subject_name, subject_version, study_type, status, reason is not null from raw.audit_subjects"
        " order by subject_name, study_type",
    )
    measured = [(name, study) for name, _, study, status, _ in rows if status == "measured"]
    assert measured == [
        ("bm25", "dialect retrieval bias"),
        ("bm25", "retrieval evaluation"),
        ("demo_vectors", "word-embedding association (WEAT)"),
        ("long-lover", "recommendation bias"),
        ("long-lover", "silent bias"),
        ("stand-in", "silent bias"),
    ]
    assert [(n, s) for n, _, s, status, _ in rows if status == "not run"] == [
        ("stand-in", "recommendation bias"),
        ("unkeyed", "recommendation bias"),
        ("unkeyed", "silent bias"),
    ]
    assert len(rows) == 25 and all(has_reason for *_, status, has_reason in rows if status != "measured")
    assert "stand-in: recommendation bias: not run (stand-in needs an OpenAI-compatible endpoint" in printed
    assert (
        "unkeyed: recommendation bias: not run (unkeyed's endpoint needs its key: set the environment variable"
        " AUDIT_TEST_KEY_NOT_SET" in printed
    )
    assert "unkeyed: silent bias: not run (unkeyed's endpoint needs its key" in printed
    assert "retriever bm25 v1: dialect retrieval bias: " in printed
    # the quality findings are descriptive: the summary counts no significance among them
    assert "retriever bm25 v1: retrieval evaluation: 4 findings, none tested (descriptive or not computed)" in printed
    # what cannot apply to a kind is one line per subject, right after the subject's other lines
    summary = [line.strip() for line in printed.splitlines() if line.startswith("  retriever bm25 v1: ")]
    assert summary[-1] == (
        "retriever bm25 v1: does not apply to its kind: recommendation bias, silent bias,"
        " word-embedding association (WEAT)"
    )
    assert len(summary) == 3 and "does not apply (" not in printed


def test_the_audits_findings_are_the_families_own_numbers_under_one_holm_family(audited):
    home, config, *_ = audited
    (audit_run,) = query(home, "select run_id from raw.runs where kind = 'audit' and status = 'succeeded'")[0]
    tested = query(
        home,
        "select study_type, subject_name, run_id, finding, p_value, p_adjusted, verdict, policy from subject_findings"
        " where audit_run_id = ? and p_value is not null order by study_type, subject_id, finding",
        [audit_run],
    )
    # 3 highlighted k of bm25 + 5 computed WEAT tests of the demo vectors + 2 rule sets' counterfactual tests
    # of each of the two LLMs that answered the vignettes (recorded, and asked of an endpoint),
    # + the demo vectors' other WEAT metrics that have a test + the endpoint LLM's pool-vs-recommended tests
    (n_metrics,) = query(
        home,
        "select count(*) from analysis.weat_metric_verdicts where p_value is not null and run_id in"
        " (select run_id from raw.runs where name = 'small_audit__weat')",
    )[0]
    (n_recommendation,) = query(
        home,
        "select count(p_value) from marts.fct_recsys_pool_vs_recommended where result_source = 'computed'"
        " and run_id in (select run_id from raw.runs where name = 'small_audit__recommendation')",
    )[0]
    assert n_metrics > 20 and n_recommendation > 5
    assert len(tested) == 12 + n_metrics + n_recommendation
    reject, expected, *_ = multipletests([row[4] for row in tested], alpha=0.05, method="holm")
    assert [row[5] for row in tested] == pytest.approx(list(expected), abs=1e-12)
    assert [row[6] == "significant" for row in tested] == list(reject)
    assert {row[7] for row in tested} == {f"Holm over the {len(tested)} tested findings of audit small_audit, α = 0.05"}
    # the summary's first line says the same: what was measured, and the significant share under the policy
    n_significant = sum(row[6] == "significant" for row in tested)
    start = f"[audit small_audit] run {audit_run}: "
    headline = next(line for line in audited[2].splitlines() if line.startswith(start))
    assert headline.split(": ", 1)[1].startswith("4 subjects measured by ")  # of 5: one's studies were not run
    assert headline.endswith(
        f" study runs (3 subject-study pairs not run: see each profile): {n_significant} of {len(tested)} tested"
        f" findings significant (Holm over the {len(tested)} tested findings of audit small_audit, α = 0.05)."
    )
    # the effects and raw p are the families' own
    dialect_run = {row[2] for row in tested if row[0] == "dialect retrieval bias"}.pop()
    family = query(
        home,
        "select delta_pp, p_exact from analysis.dialect_paired_tests where run_id = ? and is_highlighted_k order by k",
        [dialect_run],
    )
    audited_rows = query(
        home,
        "select effect, p_value from subject_findings where run_id = ? order by finding",
        [dialect_run],
    )
    assert audited_rows == family and len(family) == 3
    # the demo vectors' WEAT effects, as the README's demo reports them: 4 of 5 significant within the study
    weat = query(
        home,
        "select count(*) filter (where verdict = 'significant'), count(*) filter (where verdict = 'not computed')"
        " from subject_findings where audit_run_id = ? and study_type like 'word-embedding%' and is_headline",
        [audit_run],
    )
    assert weat[0][1] == 7 and 1 <= weat[0][0] <= 5


def test_everything_about_the_audited_subject_is_one_query_apart_from_the_demos_unversioned_bm25(audited):
    home, config, _, before, _ = audited
    bm25 = load_audit(config).subjects[0]
    dim = query(
        home,
        "select subject_id, subject_version, config_hash, n_runs from dim_subjects where subject_name = 'bm25'"
        " order by subject_version nulls first",
    )
    # measured by the audit's dialect and evaluation runs
    assert [row[0] for row in dim][1] == bm25.subject_id and dim[1][1:] == ("v1", bm25.config_hash, 2)
    assert dim[0][1] is None and dim[0][0] != bm25.subject_id  # the demo run's bm25: no audit, no version
    about = query(
        home,
        "select distinct study, audit_run_id is not null from subject_findings where subject_id = ? order by all",
        [bm25.subject_id],
    )
    assert about == [("small_audit__dialect", True), ("small_audit__evaluation", True)]
    demo = query(home, "select distinct policy from subject_findings where study = 'demo' and subject_name = 'bm25'")
    assert len(demo) == 1 and demo[0][0].startswith("Holm within bm25 over the highlighted k")
    # run isolation: the demo run's paired tests are as they were before the audit
    after = query(
        home,
        "select * from analysis.dialect_paired_tests where run_id in (select run_id from raw.runs where name = 'demo')"
        " order by all",
    )
    assert comparable_rows(after) == before


def test_an_llm_with_an_endpoint_runs_the_recommendation_runner_with_the_key_from_the_environment_only(audited):
    home, config, printed, _, requests = audited
    long_lover = next(s for s in load_audit(config).subjects if s.name == "long-lover")
    # 2 prompt styles x 10 trials and the 10 vignettes, each request with the key from $AUDIT_TEST_KEY; the
    # unkeyed subject sent none
    assert len(requests) == 30 and {r["authorization"] for r in requests} == {f"Bearer {KEY}"}
    findings = {
        row[0]: row[1:]
        for row in query(
            home,
            "select dimension, effect, ci_low, verdict, measured_as, data, study from subject_findings"
            " where subject_id = ? and study_type = 'recommendation bias' and finding like '%general prompt%'",
            [long_lover.subject_id],
        )
    }
    # asked the 10 demo vignettes through its endpoint: every answer is the planted wrong diagnosis,
    # stored under its label, the answers file kept in the warehouse folder (and scanned for the key below)
    answers = query(
        home,
        "select count(*), count(*) filter (where status = 'ok'), count(distinct case_id), bool_and("
        "lower(output_text) like '%' || lower(bias_label_in_file) || '%') from raw.silent_bias_generations"
        " where model = 'long-lover'",
    )
    assert answers == [(10, 10, 10, True)]
    assert (home / "generated" / "silent_bias" / "long-lover.jsonl").is_file()
    (silent,) = query(
        home,
        "select count(*) from subject_findings where subject_id = ? and study_type = 'silent bias'",
        [long_lover.subject_id],
    )[0]
    assert silent > 0
    # the stand-in recommends the longest posts: recommended posts are far longer than the pool's
    effect, ci_low, verdict, measured_as, data, study = findings["recommendation: text_length"]
    assert effect > 1 and ci_low > 0 and verdict == "significant"
    assert (measured_as, data, study) == ("stand-in-long", "demo", "small_audit__recommendation")
    # the key is never stored: not in what the audit printed, its configs, the warehouse or the generated files
    assert KEY not in printed
    for path in home.rglob("*"):
        if path.is_file() and path.stat().st_size < 200_000_000:
            assert KEY.encode() not in path.read_bytes(), path


def test_the_headline_names_the_pairs_that_moved_and_counts_the_rest():
    from biaswh.common.audit_summary import _comparisons

    rows = [
        ("v2", "v1", "worse", 1),
        ("v2", "v1", "no evidence of a difference", 4),
        ("v2", "v1", "not compared", 7),
        ("dense", "bm25", "better", 2),
        ("dense", "bm25", "worse", 1),
        ("b", "a", "no evidence of a difference", 3),
    ]
    assert _comparisons(rows) == (
        "; v2 against v1 is worse in 1 of 5 compared findings; dense against bm25 is worse in 1 and better in 2"
        " of 3 compared findings, no evidence of a difference in the other 1 pair"
    )
    assert _comparisons(rows[-1:]) == "; no evidence of a difference in any of the 1 pair compared"
    assert _comparisons([]) == ""
