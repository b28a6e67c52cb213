-- Dialect/variant query pairs (ingest/dialect/pairs.py).
-- Long form: one row per (pair, variant), so a study can compare any number of variants.
create table if not exists raw.query_pair_variants (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    pair_set varchar not null,
    pair_id varchar not null,
    source_row integer not null,
    squad_split varchar,            -- SQuAD pairs only (other gold kinds: 16_pairs_any_corpus.sql)
    squad_idx integer,
    variant varchar not null,
    source_column varchar not null,
    query_text_raw varchar not null,
    query_text varchar not null,
    cleanup varchar not null,       -- 'none' or the clean-up rule set applied
    attributes json                 -- every other column of the source row
);
