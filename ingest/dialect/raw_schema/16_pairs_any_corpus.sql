-- Dialect/variant pairs over any corpus (ingest/dialect/pair_golds.py): a pair's gold is a SQuAD row
-- (squad_split, squad_idx), a corpus document (gold_source_doc_id) or a judged query of a corpus
-- query set (gold_query_set, gold_query_id: every document its qrels judge relevant). The
-- columns are added to raw.query_pair_variants in place, so a warehouse written before keeps its
-- pairs (their gold_kind is null: SQuAD rows).
alter table raw.query_pair_variants alter column squad_split drop not null;
alter table raw.query_pair_variants alter column squad_idx drop not null;
alter table raw.query_pair_variants add column if not exists gold_kind varchar;           -- squad_question, corpus_document, query_judgments
alter table raw.query_pair_variants add column if not exists corpus varchar;              -- the SQuAD dataset or corpus the pair's queries search
alter table raw.query_pair_variants add column if not exists gold_source_doc_id varchar;  -- corpus_document: the document's source id
alter table raw.query_pair_variants add column if not exists gold_query_set varchar;      -- query_judgments: the corpus query set's name
alter table raw.query_pair_variants add column if not exists gold_query_id varchar;       -- query_judgments: its query id
