-- Only the latest loaded version of each pair set.
with source as (
    select * from {{ source('query_pairs', 'query_pair_variants') }}
),

latest_versions as (
    {{ latest_versions('query_pairs', 'pair_set') }}
),

final as (
    select
        source.pair_set,
        source.pair_id,
        source.variant,
        source.source_row,
        source.squad_split,
        source.squad_idx,
        source.gold_kind,
        source.corpus,
        source.gold_source_doc_id,
        source.gold_query_set,
        source.gold_query_id,
        source.source_column,
        source.query_text_raw,
        source.query_text,
        source.cleanup,
        source.attributes,
        source.source_version,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.pair_set = latest_versions.pair_set
            and source.source_version = latest_versions.source_version
)

select * from final
