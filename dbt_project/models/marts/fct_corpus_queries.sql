-- The queries of every ingested corpus query set (latest version), with the corpus they ask.
with queries as (
    select * from {{ ref('stg_corpus__queries') }}
),

final as (
    select
        query_set,
        source_version,
        corpus,
        query_id,
        query_text,
        source_row
    from queries
)

select * from final
