"""A subject's profile escapes everything a study or an audit wrote: names come from users."""

from __future__ import annotations

import re

import duckdb

from biaswh.dashboards.common.addresses import run_file
from biaswh.dashboards.common.page_subjects import profile_body, subject_pages, subjects_page

HOSTILE = '<script>alert("x")</script>'


def _warehouse() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(
        f"""
        create view main.subject_findings as select
            's1' as subject_id, 'retriever' as subject_kind, '{HOSTILE}' as subject_name, null as subject_version,
            null as config_hash, 'dialect retrieval bias' as study_type, '{HOSTILE}' as study,
            '{HOSTILE}' as dimension, '{HOSTILE}' || headline as finding, headline as is_headline,
            '{HOSTILE}' as effect_name, 1.5 as effect,
            0.5 as ci_low, 2.5 as ci_high, 0.01 as p_value, 0.03 as p_adjusted, 'significant' as verdict,
            '{HOSTILE}' as policy, 'r1' as run_id, null as audit_run_id, 'demo' as data, 'x' as measured_as
        from (values (true), (false)) as t(headline)
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
    assert "no configuration recorded (named by a study)" in body and "version none" not in body
    # besides the name: study, dimension, finding, effect name, policy, the study type, why and the audit,
    # and the metric beside the headline (its finding and scale, folded beneath it)
    assert body.count("&lt;script&gt;") >= 10
    assert '<details class="beside"><summary>1 other metric on its own scale (1 of 1 significant)' in body


def test_the_subjects_page_labels_each_subjects_data_and_tells_two_of_one_name_apart():
    """Two LLMs named alike: one an audit declared (a configuration hash, demo generations), one a study
    named (real generations); a subject without findings counts as real data of none."""
    con = duckdb.connect()
    finding = (
        "select '{id}' as subject_id, 'llm' as subject_kind, 'model-a' as subject_name, null as subject_version,"
        " {hash} as config_hash, 'silent bias' as study_type, 's' as study, 'd' as dimension, 'f' as finding,"
        " 'e' as effect_name, 0.5 as effect, 0.1 as ci_low, 0.9 as ci_high, 0.2 as p_value, 0.4 as p_adjusted,"
        " '{verdict}' as verdict, 'holm' as policy, 'r' as run_id, null as audit_run_id, '{data}' as data,"
        " 'x' as measured_as, true as is_headline"
    )
    con.execute(
        "create view main.subject_findings as "
        + finding.format(id="a", hash="'0123456789abcdef'", verdict="significant", data="demo")
        + " union all "
        + finding.format(id="b", hash="null", verdict="no evidence", data="real")
    )
    con.execute(
        "create view main.dim_subjects as select * from (values ('a', 'llm', 'model-a', null, '0123456789abcdef', 1),"
        " ('b', 'llm', 'model-a', null, null, 2)) as t(subject_id, subject_kind, subject_name, subject_version,"
        " config_hash, n_runs)"
    )
    html = subjects_page(con)
    body_rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)[1:]  # after the header
    cells = [re.findall(r"<td>(.*?)</td>", row, flags=re.S) for row in body_rows]
    plain = [[re.sub(r"<[^>]+>", "", cell).strip() for cell in row] for row in cells]
    assert len(plain) == 2
    assert plain[0][1:] == ["llm", "named by a study", "real data", "2", "0 of 1"]
    assert plain[1][1:] == ["llm", "0123456789ab", "demo data", "1", "1 of 1"]


def test_a_profile_reads_subject_views_published_before_is_headline():
    # `biaswh dashboards` opens the warehouse read-only: views an older version published (no
    # is_headline column, headline findings only) must still draw, each finding a line of its own.
    con = _warehouse()
    columns = [c for (c,) in con.execute("select column_name from (describe main.subject_findings)").fetchall()]
    kept = ", ".join(c for c in columns if c != "is_headline")
    con.execute(f"create table old_findings as select {kept} from main.subject_findings where is_headline")
    con.execute("create or replace view main.subject_findings as select * from old_findings")
    subject = {"subject_id": "s1", "subject_kind": "retriever", "subject_name": "x", "subject_version": None,
               "config_hash": None}  # fmt: skip
    body, _ = profile_body(con, subject)
    assert "other metric on its own scale (" not in body and "other metrics on their own scales (" not in body
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;true" in body


def test_the_metrics_folded_beneath_a_line_are_those_of_its_headlines_run():
    # a subject audited twice: the line's headline comes from one run, and only that run's other
    # metrics fold beneath it (not every run's, which would double the count)
    con = _warehouse()
    con.execute("create table two_runs as select * from main.subject_findings")
    con.execute("insert into two_runs select * replace ('r2' as run_id, 0.9 as p_adjusted) from main.subject_findings")
    con.execute("create or replace view main.subject_findings as select * from two_runs")
    subject = {"subject_id": "s1", "subject_kind": "retriever", "subject_name": "x", "subject_version": None,
               "config_hash": None}  # fmt: skip
    body, _ = profile_body(con, subject)
    assert "<summary>1 other metric on its own scale (1 of 1 significant)" in body
    assert "2 other metrics" not in body


def _cells_of(body: str) -> list[list[str]]:
    """The profile table's body rows, each cell as plain text."""
    profile = body.split("<details><summary>every finding")[0].split("<h2>")[0]
    rows = re.findall(r"<tr>(.*?)</tr>", profile, flags=re.S)[1:]
    return [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td>(.*?)</td>", row, flags=re.S)]
            for row in rows]  # fmt: skip


def test_a_dimension_measured_by_several_runs_shows_the_latest_run_and_counts_only_its_findings():
    # three audits of one subject: the oldest found it significant (and is the strongest), the two later
    # ones did not. The line shows the latest run, counts its findings alone (not "1 of 3 significant",
    # one test repeated), and says how many runs measured the dimension.
    con = _warehouse()
    con.execute("create table runs as select * from main.subject_findings where is_headline")
    con.execute("insert into runs select * replace ('r3' as run_id, 0.2 as p_adjusted, 'no evidence' as verdict,"
                " 0.7 as effect) from main.subject_findings where is_headline")  # fmt: skip
    con.execute("insert into runs select * replace ('r2' as run_id, 0.6 as p_adjusted, 'no evidence' as verdict,"
                " 0.1 as effect) from main.subject_findings where is_headline")  # fmt: skip
    con.execute("create or replace view main.subject_findings as select * from runs")
    con.execute("create schema marts")
    con.execute(
        "create table marts.dim_runs as select * from (values ('r1', timestamp '2026-01-01'),"
        " ('r2', timestamp '2026-03-01'), ('r3', timestamp '2026-02-01')) as t(run_id, started_at)"
    )
    subject = {"subject_id": "s1", "subject_kind": "retriever", "subject_name": "x", "subject_version": None,
               "config_hash": None}  # fmt: skip
    body, _ = profile_body(con, subject)
    (line,) = _cells_of(body)
    assert line[2:6] == ["0.10", "[0.50, 2.50]", "0.60", "no evidence (0 of 1 significant)"]
    assert line[-1].endswith("run r2")
    assert "the latest of 3 runs that measured it (every run" in line[1]
    assert "<summary>every finding (3)</summary>" in body
    # one run only: no such note, and the strongest finding leads
    con.execute("create or replace view main.subject_findings as select * from runs where run_id = 'r1'")
    (line,) = _cells_of(profile_body(con, subject)[0])
    assert line[5] == "significant (1 of 1 significant)" and "latest of" not in line[1]


def test_the_subjects_page_counts_the_latest_runs_tested_findings_and_names_every_kind_of_data():
    # bm25 measured three times: an old demo run found it significant, the latest real run did not;
    # a descriptive finding is not tested and not counted. The count is the profile's (latest run of
    # each dimension), and the data column names both kinds.
    con = duckdb.connect()
    finding = (
        "select 's' as subject_id, '{dimension}' as dimension, 'dialect retrieval bias' as study_type,"
        " '{verdict}' as verdict, '{run}' as run_id, '{data}' as data, 'f' as finding"
    )
    rows = [
        finding.format(dimension="gap", verdict="significant", run="old", data="demo"),
        finding.format(dimension="gap", verdict="no evidence", run="new", data="real"),
        finding.format(dimension="gap", verdict="descriptive", run="new", data="real"),
        finding.format(dimension="quality", verdict="significant", run="new", data="real"),
    ]
    con.execute("create view main.subject_findings as " + " union all ".join(rows))
    con.execute(
        "create view main.dim_subjects as select 's' as subject_id, 'retriever' as subject_kind,"
        " 'bm25' as subject_name, null as subject_version, null as config_hash, 2 as n_runs"
    )
    con.execute("create schema marts")
    con.execute(
        "create table marts.dim_runs as select * from (values ('old', timestamp '2026-01-01'),"
        " ('new', timestamp '2026-02-01')) as t(run_id, started_at)"
    )
    html = subjects_page(con)
    (row,) = [re.findall(r"<td>(.*?)</td>", r, flags=re.S) for r in re.findall(r"<tr>(.*?)</tr>", html)[1:]]
    assert [re.sub(r"<[^>]+>", "", cell) for cell in row[1:]] == [
        "retriever", "named by a study", "real and demo data", "2", "1 of 2"
    ]  # fmt: skip
    # the old run the latest: its dimension counts its one significant finding
    con.execute("create or replace table marts.dim_runs as select * from (values ('old', timestamp '2026-03-01'),"
                " ('new', timestamp '2026-02-01')) as t(run_id, started_at)")  # fmt: skip
    row = re.findall(r"<td>(.*?)</td>", re.findall(r"<tr>(.*?)</tr>", subjects_page(con))[1])
    assert row[-1] == "2 of 2"
    con.execute("create or replace view main.subject_findings as " + rows[2])
    row = re.findall(r"<td>(.*?)</td>", re.findall(r"<tr>(.*?)</tr>", subjects_page(con))[1])
    assert row[3:] == ["real data", "2", "none tested"]


def test_the_site_reads_every_subjects_findings_at_once_and_each_profile_holds_only_its_own():
    con = _warehouse()
    con.execute("create table findings as select * from main.subject_findings")
    con.execute("insert into findings select * replace ('s2' as subject_id, 'r2' as run_id, 2.5 as effect)"
                " from main.subject_findings")  # fmt: skip
    con.execute("create or replace view main.subject_findings as select * from findings")
    con.execute("create or replace view main.dim_subjects as select * from (values ('s1', 'retriever', 'a', null,"
                " null, 1), ('s2', 'retriever', 'b', null, null, 1)) as t(subject_id, subject_kind, subject_name,"
                " subject_version, config_hash, n_runs)")  # fmt: skip
    cursor = con.execute("select * from main.dim_subjects order by subject_id")
    subjects = [dict(zip([d[0] for d in cursor.description], row)) for row in cursor.fetchall()]
    pages = subject_pages(con)
    assert [body for _, _, body, _ in pages] == [profile_body(con, subject)[0] for subject in subjects]
    first, second = (body for _, _, body, _ in pages)
    assert run_file("r1") in first and run_file("r2") not in first and "<b>1.50</b>" in first
    assert run_file("r2") in second and run_file("r1") not in second and "<b>2.50</b>" in second
