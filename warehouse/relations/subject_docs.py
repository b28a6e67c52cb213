"""What the subjects' views (:mod:`biaswh.warehouse.relations.subjects`) hold: each view's description, columns and
their descriptions, written as DuckDB comments and listed in the docs' SQL reference."""

SUBJECT_VIEW_COMMENTS = {
    "subject_findings": "One row per subject, study run and finding: effect, interval, raw and adjusted p, verdict,"
    " the policy that judged it (the audit's, when an audit ran it), the run (warehouse/relations/subjects.py).",
    "dim_subjects": "One row per subject (kind, name, version, configuration hash; subject_id from the four),"
    " with the study runs that measured it (warehouse/relations/subjects.py).",
    "audit_coverage": "One row per audit, subject and study type: measured (with its study run), does not apply"
    " or not run, and why (warehouse/relations/subjects.py).",
}
# Each view's columns, in order (the docs' SQL reference lists them so).
SUBJECT_VIEW_COLUMNS = {
    "subject_findings": (
        "subject_id", "subject_kind", "subject_name", "subject_version", "config_hash", "study_type", "study",
        "dimension", "finding", "is_headline", "effect_name", "effect", "ci_low", "ci_high", "p_value", "p_adjusted",
        "verdict", "policy", "run_id", "audit_run_id", "data", "measured_as",
    ),
    "dim_subjects": (
        "subject_id", "subject_kind", "subject_name", "subject_version", "config_hash", "configuration", "n_runs",
        "run_ids",
    ),
    "audit_coverage": (
        "audit_run_id", "audit", "audit_status", "audit_started_at", "subject_id", "subject_kind", "subject_name",
        "subject_version", "study_type", "status", "reason", "run_id",
    ),
}  # fmt: skip
# The views' column descriptions (DuckDB comments; docs/sql-reference.md's subjects section).
SUBJECT_COLUMN_DOCS = {
    "subject_id": "The subject's stable id: sha256 over kind, name, version and configuration hash, 16 hex digits.",
    "subject_kind": "What the subject is: retriever, embedding or llm.",
    "subject_name": "The subject's name: an audit's [[subjects]] name, else the retriever, embedding or model.",
    "subject_version": "The version an audit gave the subject (empty for none); null outside an audit.",
    "config_hash": "sha256 of the subject's configuration as the audit declared it (files by content); null outside.",
    "configuration": "The subject's configuration as the audit declared it (JSON); null outside an audit.",
    "study_type": "The study type that measured it, as its family declares it.",
    "study": "The study (its config's name) whose run measured it.",
    "dimension": "The bias dimension, in words, as the family names it.",
    "finding": "What was measured, unique within a run, study type and subject.",
    "is_headline": "True for a finding on its dimension's common scale (the effect its family leads with), which"
    " may head the dimension's line on a profile; false for another metric of the dimension on its own scale"
    " or a sensitivity analysis of the headline effect.",
    "effect_name": "What effect means, with its scale.",
    "effect": "The effect on the scale effect_name says; null when it could not be computed.",
    "ci_low": "Lower bound of the effect's 95% interval (the study's method).",
    "ci_high": "Upper bound of the effect's 95% interval (the study's method).",
    "p_value": "The raw p-value of the finding's test; null for a descriptive finding.",
    "p_adjusted": "The p-value adjusted within the family that policy names (an audit's: all its tested findings).",
    "verdict": "significant, no evidence (adjusted p not below alpha), not judged (no adjustment),"
    " descriptive (no test) or not computed.",
    "policy": "The adjustment, family and alpha that judged the finding, in words.",
    "run_id": "The study run that measured the finding (raw.runs, dim_runs).",
    "audit_run_id": "The audit run that started the study run; null outside an audit.",
    "data": "The data the run stands on, as its config states: real, synthetic or demo.",
    "measured_as": "The subject's name in the study's own tables (its retriever, embedding or model column).",
    "n_runs": "How many study runs measured the subject (or an audit recorded it for).",
    "run_ids": "Those runs.",
    "audit": "The audit's name ([audit] name).",
    "audit_status": "The audit run's status: running, succeeded, failed or interrupted.",
    "audit_started_at": "When the audit run started (UTC).",
    "status": "measured (run_id names the study run), does not apply, or not run.",
    "reason": "Why the study type does not apply to the subject, or what to provide to run it.",
}
