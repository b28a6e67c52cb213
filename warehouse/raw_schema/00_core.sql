-- The raw schema: written only by ingest/ jobs, read only by dbt staging models.
-- Every row carries the run that loaded it and the sha256 of its source file.

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

create table if not exists raw.squad_questions (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    split varchar not null,
    row_idx integer not null,       -- position in the Hugging Face order; pairs reference it
    squad_id varchar,
    title varchar,
    context varchar not null,
    question varchar not null,
    answer_texts varchar[],
    answer_starts integer[]
);

-- Long form: one row per (pair, variant), so a study can compare any number of variants.
create table if not exists raw.query_pair_variants (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    pair_set varchar not null,
    pair_id varchar not null,
    source_row integer not null,
    squad_split varchar not null,
    squad_idx integer not null,
    variant varchar not null,
    source_column varchar not null,
    query_text_raw varchar not null,
    query_text varchar not null,
    cleanup varchar not null,       -- 'none' or the clean-up rule set applied
    attributes json                 -- every other column of the source row
);
