-- The gold of every mapped pair whose gold is a judged query (gold_kind 'query_judgments', decided
-- in fct_pair_gold_documents): one row per (pair, judged document), the qrels of its gold query.
-- Each run asking the pair pins these rows as its judgments when it is first built
-- (int_retrieval_pair_judgments_pinned), so a later qrels version never changes a finished run.
with pairs as (
    select * from {{ ref('fct_pair_gold_documents') }}
    where gold_kind = 'query_judgments' and mapping_status = 'mapped'
),

qrels as (
    select * from {{ ref('fct_evaluation_qrels') }}
),

final as (
    select distinct
        pairs.pair_set,
        pairs.pair_id,
        pairs.corpus_split,
        qrels.doc_id,
        qrels.relevance,
        qrels.qrels_source
    from pairs
    inner join qrels
        on
            'queries_' || pairs.gold_query_set = qrels.query_set
            and pairs.gold_query_id = qrels.query_id
)

select * from final
