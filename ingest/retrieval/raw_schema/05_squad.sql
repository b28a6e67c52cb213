-- SQuAD questions and their contexts (ingest/retrieval/squad.py): a context is a corpus document,
-- a question carries its gold context (row_idx).

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
