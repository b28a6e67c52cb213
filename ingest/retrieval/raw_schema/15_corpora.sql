-- Retrieval corpora and query sets of any source (ingest/retrieval/corpus.py): a BEIR folder, an MS MARCO
-- TSV, JSONL/CSV/Parquet with named columns, or a folder of text or Markdown files.
-- One version per source content (ingest/common/versions.py); staging reads the latest of each name.

-- One row per document; doc_id numbers the documents in source order (from 0) and is what
-- raw.retrieval_results and raw.evaluation_qrels hold; source_doc_id is the source's own id.
create table if not exists raw.corpus_documents (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    corpus varchar not null,             -- the corpus name (the [[ingest]] step's name)
    source_row integer not null,         -- 1-based: line of a TSV/JSONL/text file, record of CSV/JSON/Parquet
    source_file varchar not null,        -- the file the document comes from (relative to a folder source)
    doc_id integer not null,
    source_doc_id varchar not null,      -- e.g. BEIR _id, MS MARCO pid, notes/a.md:12, notes/a.md#setup
    title varchar not null,              -- '' when the source has none
    document_text varchar not null
);

-- One row per query of a query set over a corpus; query_id is the source's own id.
create table if not exists raw.corpus_queries (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    query_set varchar not null,          -- the query set name (the [[ingest]] step's name)
    corpus varchar not null,             -- the corpus its qrels and retrievals refer to
    source_row integer not null,
    query_id varchar not null,
    query_text varchar not null
);
