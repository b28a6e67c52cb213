"""A subject's profile escapes everything a study or an audit wrote: names come from users."""

from __future__ import annotations

import duckdb

from dashboards.common.page_subjects import profile_body, subjects_page

HOSTILE = '<script>alert("x")</script>'


def _warehouse() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(
        f"""
        create view main.subject_findings as select
            's1' as subject_id, 'retriever' as subject_kind, '{HOSTILE}' as subject_name, null as subject_version,
            null as config_hash, 'dialect retrieval bias' as study_type, '{HOSTILE}' as study,
            '{HOSTILE}' as dimension, '{HOSTILE}' as finding, '{HOSTILE}' as effect_name, 1.5 as effect,
            0.5 as ci_low, 2.5 as ci_high, 0.01 as p_value, 0.03 as p_adjusted, 'significant' as verdict,
            '{HOSTILE}' as policy, 'r1' as run_id, null as audit_run_id, 'demo' as data, 'x' as measured_as
        """
    )
    con.execute(
        f"create view main.dim_subjects as select 's1' as subject_id, 'retriever' as subject_kind,"
        f" '{HOSTILE}' as subject_name, '{HOSTILE}' as subject_version, null as config_hash, 1 as n_runs"
    )
    con.execute(
        f"create view main.audit_coverage as select 's1' as subject_id, '{HOSTILE}' as study_type,"
        f" 'not run' as status, '{HOSTILE}' as reason, '{HOSTILE}' as audit, 'succeeded' as audit_status,"
        " now() as audit_started_at"
    )
    return con


def test_the_profile_and_the_subjects_page_escape_every_stored_text():
    con = _warehouse()
    subject = {"subject_id": "s1", "subject_kind": "retriever", "subject_name": HOSTILE, "subject_version": None,
               "config_hash": None}  # fmt: skip
    body, data = profile_body(con, subject)
    listing = subjects_page(con)
    for html in (body, listing):
        assert "<script>alert" not in html and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert data == "demo"
    # besides the name: study, dimension, finding, effect name, policy, the study type, why and the audit
    assert body.count("&lt;script&gt;") >= 8
