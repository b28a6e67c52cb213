-- Only the latest loaded version of each pair set.
with source as (
    select * from {{ source('query_pairs', 'query_pair_variants') }}
),

latest_versions as (
    select
        source_name as pair_set,
        max(version) as source_version,
    from {{ source('warehouse', 'source_versions') }}
    where dataset = 'query_pairs'
    group by source_name
),

final as (
    select
        source.pair_set,
        source.pair_id,
        source.variant,
        source.source_row,
        source.squad_split,
        source.squad_idx,
        source.source_column,
        source.query_text_raw,
        source.query_text,
        source.cleanup,
        source.attributes,
        source.source_version,
        source.run_id,
        source.source_sha256,
    from source
    inner join latest_versions
        on source.pair_set = latest_versions.pair_set
        and source.source_version = latest_versions.source_version
)

select * from final
