-- Every pair, mapped to its gold or carrying the reason it could not be. The gold is a SQuAD
-- row's context (squad_question), a corpus document named by its source id (corpus_document),
-- or every document the qrels of a corpus query judge relevant (query_judgments); pairs loaded
-- before the other kinds existed have no gold_kind and are SQuAD rows.
with variants as (
    select * from {{ ref('stg_query_pairs__variants') }}
),

questions as (
    select * from {{ ref('fct_squad_questions') }}
),

documents as (
    select * from {{ ref('dim_corpus_documents') }}
),

qrels as (
    select * from {{ ref('fct_evaluation_qrels') }}
),

corpus_queries as (
    select * from {{ ref('fct_corpus_queries') }}
),

pairs as (
    select distinct
        pair_set,
        pair_id,
        source_row,
        coalesce(gold_kind, 'squad_question') as gold_kind,
        coalesce(corpus, squad_split) as corpus_split,
        squad_split,
        squad_idx,
        gold_source_doc_id,
        gold_query_set,
        gold_query_id
    from variants
),

-- Each pair's key into the one table its gold kind names (null for the other kinds). Joined on
-- these alone: a left join whose condition also tests the pair's kind becomes a nested loop
-- join in DuckDB, every pair against every SQuAD row (26 s for 50,000 pairs and 87,599 rows).
pairs_keyed as (
    select
        *,
        case when gold_kind = 'squad_question' then squad_split end as question_split,
        case when gold_kind = 'corpus_document' then corpus_split end as document_split,
        case when gold_kind = 'query_judgments' then gold_query_set end as judged_query_set
    from pairs
),

loaded_splits as (
    select distinct split from documents
),

judged_queries as (
    select
        corpus_queries.query_set,
        corpus_queries.query_id,
        count(*) as n_relevant
    from corpus_queries
    inner join qrels
        on
            'queries_' || corpus_queries.query_set = qrels.query_set
            and corpus_queries.query_id = qrels.query_id
    where qrels.relevance > 0
    group by corpus_queries.query_set, corpus_queries.query_id
),

final as (
    select
        pairs.pair_set,
        pairs.pair_id,
        pairs.source_row,
        pairs.gold_kind,
        pairs.corpus_split,
        pairs.squad_split,
        pairs.squad_idx,
        pairs.gold_source_doc_id,
        pairs.gold_query_set,
        pairs.gold_query_id,
        coalesce(questions.doc_id, documents.doc_id) as gold_doc_id,
        questions.question as squad_question,
        case
            when loaded_splits.split is null then null
            when pairs.gold_kind = 'query_judgments' then judged_queries.n_relevant
            when coalesce(questions.doc_id, documents.doc_id) is not null then 1
        end as n_gold_documents,
        case
            when loaded_splits.split is null and pairs.gold_kind = 'squad_question' then 'squad_split_not_loaded'
            when loaded_splits.split is null then 'corpus_not_loaded'
            when pairs.gold_kind = 'squad_question' and questions.row_idx is null then 'squad_idx_not_in_split'
            when pairs.gold_kind = 'corpus_document' and documents.doc_id is null then 'gold_doc_not_in_corpus'
            when pairs.gold_kind = 'query_judgments' and judged_queries.query_id is null
                then 'gold_query_not_judged'
            else 'mapped'
        end as mapping_status
    from pairs_keyed as pairs
    left join loaded_splits
        on pairs.corpus_split = loaded_splits.split
    left join questions
        on
            pairs.question_split = questions.split
            and pairs.squad_idx = questions.row_idx
    left join documents
        on
            pairs.document_split = documents.split
            and pairs.gold_source_doc_id = documents.source_doc_id
    left join judged_queries
        on
            pairs.judged_query_set = judged_queries.query_set
            and pairs.gold_query_id = judged_queries.query_id
)

select * from final
