"""Subjects: what a study measures (a retriever, an embedding, an LLM), as rows across study types.

A subject is one kind (``retriever``, ``embedding``, ``llm``), name, version and configuration
hash; its id is :func:`subject_id` of the four, the same in Python and in SQL. Each study family
declares, with :func:`register_subject_findings`, how its results name the subject they measure
(the ``retriever``, ``embedding`` or ``model`` column) and which of its rows are findings; the
kernel then publishes two contract views in ``main``:

- ``subject_findings``: one row per subject, study run and finding (effect, interval, raw and
  adjusted p, verdict, the policy that judged it, the run), so "everything about subject X" is
  ``select * from subject_findings where subject_name = 'X'``;
- ``dim_subjects``: one row per subject, with the runs that measured it.

They are views published after each study run and audit, not dbt models: the family tables they
read are written by the analysis steps after dbt's builds, and exist only once a family ran.
A subject an audit declared (``raw.audit_subjects``) keeps its name, version and configuration
hash, and the audit's one adjustment (``analysis.audit_findings``) judges its findings; a study
run outside an audit measures subjects known only by kind and name (version and hash empty).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import duckdb

from biaswh.warehouse.relations.subject_docs import SUBJECT_COLUMN_DOCS, SUBJECT_VIEW_COMMENTS

SUBJECT_KINDS = ("retriever", "embedding", "llm")
# What each family's select yields, in this order (one row per measured subject and finding).
MEASURE_COLUMNS = (
    "run_id",  # the study run
    "measured_as",  # the subject's name in the family's results (retriever, embedding, model)
    "dimension",  # the bias dimension, in words (e.g. "dialect: aae vs sae")
    "finding",  # what was measured, unique within a run, study type and subject
    "effect_name",  # what effect means, with its scale
    "effect",
    "ci_low",
    "ci_high",
    "p_value",  # raw p; null for a descriptive finding
    "p_adjusted",  # within the study's own family; null when the study adjusts none
    "is_significant",  # the study's own verdict; null when it judges none
    "policy",  # the study's own adjustment, family and alpha, in words
)
_SEPARATOR = "\x1f"  # the unit separator: never part of a name, so no two subjects share a key


@dataclass(frozen=True)
class SubjectFindings:
    """One family's findings about the subjects of one kind: the relations they need and the select."""

    study_type: str
    kind: str
    relations: tuple[str, ...]
    select: str
    # True: a finding on the dimension's common scale, which may head its line on a profile (WEAT: d);
    # False: another metric of the same dimension, reported beside it on its own scale.
    headline: bool = True


SUBJECT_FINDINGS: list[SubjectFindings] = []


def register_subject_findings(
    study_type: str, *, kind: str, relations: tuple[str, ...], select: str, headline: bool = True
) -> None:
    """Declare a family's findings about subjects of ``kind`` (the family's steps module calls it).

    Parameters
    ----------
    study_type : the study type, as pages and audits name it (e.g. ``"dialect retrieval bias"``).
    kind : one of :data:`SUBJECT_KINDS`.
    relations : ``schema.table`` the select reads; the findings are left out while one is missing.
    select : SQL yielding :data:`MEASURE_COLUMNS` by name, one row per subject and finding.
    headline : whether the findings are on the dimension's common scale (``is_headline``): a
        profile's line for a dimension leads with its strongest headline finding and lists the
        others (e.g. WEAT's RND, MAC, ECT, RIPA and RNSB beside d) on their own scales.
    """
    if kind not in SUBJECT_KINDS:
        raise ValueError(f"subject kind {kind!r}: choose one of {', '.join(SUBJECT_KINDS)}")
    declared = SubjectFindings(study_type, kind, tuple(relations), select, headline)
    if declared not in SUBJECT_FINDINGS:  # a module imported twice (plugins, tests) declares once
        SUBJECT_FINDINGS.append(declared)


def subject_id(kind: str, name: str, version: str = "", config_hash: str = "") -> str:
    """The subject's stable id: the first 16 hex digits of sha256 over kind, name, version and hash.

    :func:`subject_id_sql` computes the same in DuckDB.
    """
    key = _SEPARATOR.join((kind, name, version, config_hash))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def subject_id_sql(kind: str, name: str, version: str, config_hash: str) -> str:
    """The SQL of :func:`subject_id` over four varchar expressions."""
    parts = " || chr(31) || ".join(f"coalesce({e}, '')" for e in (kind, name, version, config_hash))
    return f"substr(sha256({parts}), 1, 16)"


def _existing(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute("select table_schema, table_name from information_schema.tables").fetchall()
    return {f"{schema}.{table}" for schema, table in rows}


def declared_union(declared: list, columns: tuple[str, ...], existing: set[str], **constants: str) -> str | None:
    """The union of the declared selects whose relations all exist in ``existing``; None when none does.

    Each part yields ``columns`` and, first, each constant named in ``constants`` (a declaration's
    attribute, e.g. ``study_type="study_type"``) as a literal (a string, or a boolean).
    """
    listed = ", ".join(columns)
    parts = [
        "select "
        + "".join(f"{_literal(getattr(d, attribute))} as {name}, " for name, attribute in constants.items())
        + f"{listed} from ({d.select}) as declared"
        for d in declared
        if all(relation in existing for relation in d.relations)
    ]
    return "\nunion all by name\n".join(parts) if parts else None


def _literal(value: str | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "'" + value.replace("'", "''") + "'"


def _measures_sql(existing: set[str]) -> str | None:
    constants = {"study_type": "study_type", "subject_kind": "kind", "is_headline": "headline"}
    return declared_union(SUBJECT_FINDINGS, MEASURE_COLUMNS, existing, **constants)


# The measures before any family has written results: no row, the columns' types (an audit that
# could run no study, on a fresh warehouse, still reads the view and finds nothing).
_NO_MEASURES = (
    "select null::varchar as study_type, null::varchar as subject_kind, null::boolean as is_headline,"
    " null::varchar as run_id, null::varchar as measured_as, null::varchar as dimension, null::varchar as finding,"
    " null::varchar as effect_name, null::double as effect, null::double as ci_low, null::double as ci_high,"
    " null::double as p_value, null::double as p_adjusted, null::boolean as is_significant,"
    " null::varchar as policy where false"
)


def subject_findings_sql(existing: set[str]) -> str:
    """The ``subject_findings`` view's select over the relations in ``existing`` (no row before any family ran)."""
    measures = _measures_sql(existing) or _NO_MEASURES
    derived_id = subject_id_sql("m.subject_kind", "m.measured_as", "''", "''")
    if "analysis.audit_findings" in existing:
        audited = "select study_run_id, subject_id, study_type, finding, p_adjusted, is_significant, policy"
        audited += " from analysis.audit_findings"
    else:
        audited = (
            "select null::varchar as study_run_id, null::varchar as subject_id, null::varchar as study_type,"
            " null::varchar as finding, null::double as p_adjusted, null::boolean as is_significant,"
            " null::varchar as policy where false"
        )
    return f"""
with measures as (
{measures}
),
runs as (
    select run_id, name as study, parameters ->> 'data' as data from raw.runs where status = 'succeeded'
),
subjects as (
    select
        m.*,
        coalesce(s.subject_id, {derived_id}) as subject_id,
        coalesce(s.subject_name, m.measured_as) as subject_name,
        s.subject_version,
        s.config_hash,
        s.audit_run_id
    from measures as m
    left join raw.audit_subjects as s
        on m.run_id = s.run_id
        and m.study_type = s.study_type
        and m.subject_kind = s.subject_kind
        and m.measured_as = s.measured_as
        and s.status = 'measured'
),
audited as (
{audited}
)
select
    subjects.subject_id,
    subjects.subject_kind,
    subjects.subject_name,
    subjects.subject_version,
    subjects.config_hash,
    subjects.study_type,
    runs.study,
    subjects.dimension,
    subjects.finding,
    subjects.is_headline,
    subjects.effect_name,
    subjects.effect,
    subjects.ci_low,
    subjects.ci_high,
    subjects.p_value,
    coalesce(audited.p_adjusted, subjects.p_adjusted) as p_adjusted,
    case
        when subjects.effect is null then 'not computed'
        when subjects.p_value is null then 'descriptive'
        when coalesce(audited.is_significant, subjects.is_significant) is null then 'not judged'
        when coalesce(audited.is_significant, subjects.is_significant) then 'significant'
        else 'no evidence'
    end as verdict,
    coalesce(audited.policy, subjects.policy) as policy,
    subjects.run_id,
    subjects.audit_run_id,
    runs.data,
    subjects.measured_as
from subjects
inner join runs on subjects.run_id = runs.run_id
left join audited
    on subjects.run_id = audited.study_run_id
    and subjects.subject_id = audited.subject_id
    and subjects.study_type = audited.study_type
    and subjects.finding = audited.finding
"""


DIM_SUBJECTS_SQL = """
with declared as (
    select subject_id, subject_kind, subject_name, subject_version, config_hash, configuration, run_id
    from raw.audit_subjects
    where audit_run_id in (select run_id from raw.runs where status = 'succeeded')
),
measured as (
    select distinct subject_id, subject_kind, subject_name, subject_version, config_hash,
        null::varchar as configuration, run_id
    from main.subject_findings
),
every_row as (
    select * from declared
    union all
    select * from measured
)
select
    subject_id,
    any_value(subject_kind) as subject_kind,
    any_value(subject_name) as subject_name,
    any_value(subject_version) as subject_version,
    any_value(config_hash) as config_hash,
    any_value(configuration) filter (where configuration is not null) as configuration,
    count(distinct run_id) as n_runs,
    list(distinct run_id order by run_id) filter (where run_id is not null) as run_ids
from every_row
group by subject_id
"""

AUDIT_COVERAGE_SQL = """
select
    subjects.audit_run_id,
    audits.name as audit,
    audits.status as audit_status,
    audits.started_at as audit_started_at,
    subjects.subject_id,
    subjects.subject_kind,
    subjects.subject_name,
    subjects.subject_version,
    subjects.study_type,
    subjects.status,
    subjects.reason,
    subjects.run_id
from raw.audit_subjects as subjects
inner join raw.runs as audits on subjects.audit_run_id = audits.run_id
"""


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def publish_subject_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Create ``main.subject_findings``, ``main.dim_subjects`` and ``main.audit_coverage``; return the names made.

    Before a family that declares findings has run, ``subject_findings`` and ``dim_subjects`` hold no row.
    """
    existing = _existing(con)
    if "raw.audit_subjects" not in existing:
        return []
    views = {"subject_findings": subject_findings_sql(existing), "dim_subjects": DIM_SUBJECTS_SQL}
    views["audit_coverage"] = AUDIT_COVERAGE_SQL
    for view, sql in views.items():
        con.execute(f"create or replace view main.{view} as {sql}")
        con.execute(f"comment on view main.{view} is {_quoted(SUBJECT_VIEW_COMMENTS[view])}")
        for (column,) in con.execute(
            "select column_name from duckdb_columns() where schema_name = 'main' and table_name = ?", [view]
        ).fetchall():
            con.execute(f"comment on column main.{view}.{column} is {_quoted(SUBJECT_COLUMN_DOCS[column])}")
    return list(views)
