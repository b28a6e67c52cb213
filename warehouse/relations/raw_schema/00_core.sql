-- The raw schema: written only by ingest/ (sources loaded from files and services) and compute/
-- (the jobs between the two dbt builds); read only by dbt staging models.
-- Every row carries the run that loaded it and the sha256 of its source file.
-- This file holds the kernel's tables (runs, sources, parameters, build state); each study
-- family's tables are in its own <layer>/<family>/raw_schema/NN_<name>.sql (warehouse/settings/plugin_roots.py).

create schema if not exists raw;

create table if not exists raw.runs (
    run_id varchar primary key,
    kind varchar not null,          -- e.g. ingest_squad, ingest_pairs, study
    name varchar,                   -- human label: dataset or study name
    status varchar not null,        -- running, succeeded, failed, interrupted (its process died)
    parameters json,
    code_version varchar,
    package_versions json,
    started_at timestamp not null,
    finished_at timestamp,
    row_counts json,
    message varchar
);
-- Wall time per stage of a study run (ingest, dbt builds, jobs, analysis, dashboards).
alter table raw.runs add column if not exists stage_seconds json;
-- The process that owns a run and its host: a 'running' run whose process is gone from this
-- host is marked 'interrupted' the next time the warehouse is opened for writing.
alter table raw.runs add column if not exists pid integer;
alter table raw.runs add column if not exists host varchar;

create table if not exists raw.run_sources (
    run_id varchar not null,
    source_path varchar not null,
    source_sha256 varchar not null,
    size_bytes bigint
);

-- One row per version of a named source; a changed file under the same name is a new version.
create table if not exists raw.source_versions (
    dataset varchar not null,       -- squad, query_pairs, ...
    source_name varchar not null,   -- e.g. the SQuAD split, or the pair set's name
    version integer not null,
    source_sha256 varchar not null,
    source_path varchar not null,
    run_id varchar not null,
    n_rows bigint not null,
    loaded_at timestamp not null,
    primary key (dataset, source_name, version)
);

-- Which (dataset, source name, version) a study run read: its pinned inputs. A later ingest
-- adds versions; it never changes what an earlier run read.
create table if not exists raw.run_inputs (
    run_id varchar not null,
    dataset varchar not null,
    source_name varchar not null,
    version integer not null,
    primary key (run_id, dataset, source_name)
);

-- Every parameter that shapes a run's results in dbt (highlight k, evaluation k, alpha, ...),
-- recorded per run from its study config over the documented defaults (dbt_project.yml vars).
-- Run-keyed models read these, never the global dbt vars, so no later build changes a run.
create table if not exists raw.run_parameters (
    run_id varchar not null,
    name varchar not null,
    value json not null,
    primary key (run_id, name)
);

-- The layout this warehouse was written with (one row); see warehouse/relations/layout.py.
create table if not exists raw.warehouse_layout (
    layout_version integer not null,
    created_at timestamp not null
);

-- The inputs of the last successful build of each dbt selection (a hash of the dbt project's
-- files and of raw.source_versions): a study skips a build whose inputs did not change.
create table if not exists raw.dbt_build_state (
    selection varchar primary key,
    fingerprint varchar not null,
    built_at timestamp not null
);

-- The views a study build left as they were (warehouse/dbt_build/view_state.py): each view's last
-- successful build, from which project state, and its definition as DuckDB held it then.
create table if not exists raw.dbt_view_state (
    unique_id varchar primary key,
    fingerprint varchar not null,
    definition_sha256 varchar not null,
    built_at timestamp not null
);

-- What each audit did with each subject and study type (biaswh audit; warehouse/relations/subjects.py):
-- who the subject is (kind, name, version, the sha256 of its configuration, subject_id from the
-- four); status 'measured' names the study run and the name its results give the subject
-- (measured_as: its retriever, embedding or model column), 'does not apply' and 'not run' say
-- why not. The subject_findings and dim_subjects views read it.
create table if not exists raw.audit_subjects (
    audit_run_id varchar not null,  -- the audit run (raw.runs, kind 'audit')
    subject_id varchar not null,
    subject_kind varchar not null,  -- retriever, embedding or llm
    subject_name varchar not null,
    subject_version varchar not null,
    config_hash varchar not null,
    configuration json not null,
    study_type varchar not null,
    status varchar not null,        -- measured, does not apply, not run
    run_id varchar,                 -- the study run that measured it (status measured)
    measured_as varchar,
    reason varchar,                 -- why it does not apply, or what to provide to run it
    primary key (audit_run_id, subject_id, study_type)
);
