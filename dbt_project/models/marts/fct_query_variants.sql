-- The queries a retrieval study runs: one per (pair set, pair, variant), with its gold document or
-- the judged query whose qrels are its gold.
with variants as (
    select * from {{ ref('stg_query_pairs__variants') }}
),

pairs as (
    select * from {{ ref('fct_pair_gold_documents') }}
),

final as (
    select
        variants.pair_set,
        variants.source_version,
        variants.pair_id,
        variants.variant,
        variants.query_text,
        variants.query_text_raw,
        variants.cleanup,
        pairs.corpus_split,
        pairs.gold_kind,
        pairs.gold_doc_id,
        pairs.gold_query_set,
        pairs.gold_query_id,
        pairs.mapping_status
    from variants
    inner join pairs
        on
            variants.pair_set = pairs.pair_set
            and variants.pair_id = pairs.pair_id
)

select * from final
